"""Analyses finished matches in the background: one worker process at low priority, one match at a time.

A subscriber of the host core (like the ratings): the `finished` event only queues the match id, so the
host's move path never waits for an engine. A task on the event loop takes the queue in order, loads the
match, has the worker process analyse it (the CPU work never runs on the event loop's thread) and stores
the entries (`bot.records.analysis_store`). At start, recent finished matches without an analysis are
queued too (`CATCH_UP_DAYS`); older ones are analysed on demand by `dmhost log --analyse`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import multiprocessing
import os
from collections.abc import Callable
from multiprocessing.pool import Pool
from typing import Any

from bot.records.analysis import ANALYSED_GAMES, analyse_match
from bot.records.analysis_store import CATCH_UP_DAYS, load_analysis, missing_analyses, save_analysis
from bot.store.db import utcnow
from bot.store.matches import MatchStore, StoredMatch

log = logging.getLogger(__name__)

NICENESS = 10
"""Added to the worker process's niceness: live matches' processes come first for the CPU."""


def _lower_priority() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICENESS)


class AnalysisWorker:
    """Queues finished matches and analyses them one at a time in a low-priority worker process."""

    def __init__(self, store: MatchStore, *, processes: int = 1) -> None:
        self.store = store
        self.processes = processes
        self.pending: set[int] = set()
        """Matches queued or being analysed."""
        self.lock = asyncio.Lock()
        """Held while one match is analysed and stored."""
        self._queue: asyncio.Queue[int] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._pool: Pool | None = None
        self._closed = False

    # -- the subscriber ---------------------------------------------------------------
    def attach(self, service: Any) -> None:
        """Analyse every match the service finishes (`service.subscribe`)."""
        service.subscribe(self.on_event)

    def on_event(self, ev: Any) -> None:
        """A host event: a finished match of an analysed game is queued (nothing else happens here)."""
        if getattr(ev, "kind", None) != "finished":
            return
        result = getattr(ev, "result", None)
        game = getattr(result, "game", None)
        if game is None or game in ANALYSED_GAMES:
            self.enqueue(int(ev.match_id))

    def enqueue(self, match_id: int) -> None:
        """Queue a match (once) and make sure the queue is being worked on."""
        if self._closed or match_id in self.pending:
            return
        self.pending.add(match_id)
        self._queue.put_nowait(match_id)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._work(), name="match-analysis")

    async def catch_up(self, owns: Callable[[int | None], bool] | None = None) -> list[int]:
        """Queue the recent finished matches that have no analysis (a crash or a restart in between)."""
        since = utcnow() - dt.timedelta(days=CATCH_UP_DAYS)
        ids = await missing_analyses(self.store, since)
        queued = []
        for mid in ids:
            if owns is not None:
                stored = await self.store.load(mid)
                if stored is None or not owns(stored.guild_id):
                    continue
            self.enqueue(mid)
            queued.append(mid)
        return queued

    async def drain(self) -> None:
        """Wait until every queued match is analysed and stored."""
        await self._queue.join()

    async def close(self) -> None:
        """Stop: the queue is dropped and the worker process ended (what was not stored is caught up later)."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._pool is not None:
            self._pool.terminate()
            await asyncio.to_thread(self._pool.join)
            self._pool = None

    # -- the work ---------------------------------------------------------------------
    async def _work(self) -> None:
        while True:
            match_id = await self._queue.get()
            try:
                async with self.lock:
                    await self._one(match_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("analysing match %s failed", match_id)
            finally:
                self.pending.discard(match_id)
                self._queue.task_done()

    async def _one(self, match_id: int) -> None:
        if await load_analysis(self.store, match_id) is not None:
            return
        stored = await self.store.load(match_id, with_events=True)
        if stored is None or stored.status != "finished":
            return
        entries = await self._run(stored)
        await save_analysis(self.store, match_id, entries)

    def _ensure_pool(self) -> Pool:
        if self._pool is None:
            ctx = multiprocessing.get_context("spawn")  # no fork of a process with threads (database, Discord)
            self._pool = ctx.Pool(self.processes, initializer=_lower_priority)
        return self._pool

    async def _run(self, stored: StoredMatch) -> list[dict[str, Any]]:
        """`analyse_match(stored)` in the worker process."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[list[dict[str, Any]]] = loop.create_future()

        def deliver(setter: Callable[[Any], None], value: Any) -> None:
            def apply() -> None:
                if not done.done():
                    setter(value)

            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(apply)

        self._ensure_pool().apply_async(
            analyse_match,
            (stored,),
            callback=lambda r: deliver(done.set_result, r),
            error_callback=lambda e: deliver(done.set_exception, e),
        )
        return await done


def start_analysis_worker(
    service: Any, *, owns: Callable[[int | None], bool] | None = None, catch_up: bool = True
) -> AnalysisWorker:
    """The background analysis of `service`'s finished matches: subscribed now; the recent matches that
    were never analysed are queued once the loop runs (`catch_up`). Close it with `await worker.close()`."""
    worker = AnalysisWorker(service.store)
    worker.attach(service)
    if catch_up:
        task = asyncio.get_running_loop().create_task(_catch_up(worker, owns))
        _background.add(task)
        task.add_done_callback(_background.discard)
    return worker


_background: set[asyncio.Task[Any]] = set()


async def _catch_up(worker: AnalysisWorker, owns: Callable[[int | None], bool] | None) -> None:
    try:
        await worker.catch_up(owns)
    except Exception:
        log.exception("queueing the missing analyses failed")
