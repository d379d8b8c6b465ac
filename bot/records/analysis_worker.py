"""Analyses finished matches in the background: one worker process at low priority, one match at a time.

A subscriber of the host core (like the ratings): the `finished` event only queues the match id, so the
host's move path never waits for an engine. A thread takes the queue in order: it has the event loop load
the match, the worker process analyse it (the CPU work never runs on the event loop's thread, nor in this
process) and the event loop store the entries (`bot.records.analysis_store`). At start, the recent
finished matches without an analysis are queued too (`CATCH_UP_DAYS`); older ones are analysed on
demand by `dmhost log --analyse`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable, Coroutine
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from bot.records.analysis import ANALYSED_GAMES, analyse_match
from bot.records.analysis_store import CATCH_UP_DAYS, load_analysis, missing_analyses, save_analysis
from bot.store.db import utcnow
from bot.store.matches import MatchStore, StoredMatch
from bot.types import MatchStatus

log = logging.getLogger(__name__)

T = TypeVar("T")
DB_TIMEOUT = 60.0
"""Seconds the worker thread waits for one database read or write on the event loop."""
POLL_SECONDS = 0.5
"""How often the worker thread, waiting for the worker process, checks whether it was closed."""
CLOSE_SECONDS = 5.0
"""How long closing waits for the analysis process to end."""
NICENESS = 10
"""Added to the worker process's niceness: live matches' processes come first for the CPU."""


def _lower_priority() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICENESS)


class _Stopped(Exception):
    """The event loop or the worker was closed: the queue is left for the next start."""


class AnalysisWorker:
    """Queues finished matches and analyses them one at a time in a low-priority worker process.

    The queue is worked by a thread of its own (it only waits: for the worker process, and for the short
    database reads and writes it hands to the event loop), so no task of the event loop waits on an engine."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store
        self.pending: set[int] = set()
        """Matches queued or being analysed."""
        self.lock = threading.Lock()
        """Held while one match is analysed and stored."""
        self._jobs: queue.Queue[int | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._process: _Process | None = None
        self._process_lock = threading.Lock()
        self._closed = False
        self.landed: list[Callable[[int], None]] = []
        """Told (on the event loop) of each match whose analysis was just stored (the coaching's puzzles)."""

    # -- the subscriber ---------------------------------------------------------------
    def attach(self, subscribe: Callable[[Callable[[Any], None]], None]) -> None:
        """Analyse every match the host finishes: `subscribe` is the root's bus's (`Bus.subscribe`, at the
        stage the root chooses)."""
        subscribe(self.on_event)

    def on_event(self, ev: Any) -> None:
        """A host event: a finished match of an analysed game is queued (nothing else happens here)."""
        if getattr(ev, "kind", None) != "finished":
            return
        result = getattr(ev, "result", None)
        game = getattr(result, "game", None)
        if game is None or game in ANALYSED_GAMES:
            self.enqueue(int(ev.match_id))

    def enqueue(self, match_id: int) -> None:
        """Queue a match (once) and make sure the queue is being worked on (call it on the event loop)."""
        if self._closed or match_id in self.pending:
            return
        self._loop = asyncio.get_running_loop()
        self.pending.add(match_id)
        self._jobs.put(match_id)
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="match-analysis", daemon=True)
            self._thread.start()

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
        await asyncio.to_thread(self._jobs.join)

    async def close(self) -> None:
        """Stop: the queue is dropped and the worker process ended (what was not stored is caught up later)."""
        self._closed = True
        self._jobs.put(None)
        with self._process_lock:
            process, self._process = self._process, None
        if process is not None:
            try:  # never hold the bot's close for it
                await asyncio.wait_for(asyncio.to_thread(process.stop), CLOSE_SECONDS + 1)
            except TimeoutError:
                log.warning("the analysis process did not stop within %s s; left to the system", CLOSE_SECONDS)

    # -- the work (on the worker thread) -----------------------------------------------
    def _work(self) -> None:
        stop = False
        while not stop:
            match_id = self._jobs.get()
            try:
                if match_id is None or self._closed:
                    stop = True
                else:
                    with self.lock:
                        self._one(match_id)
            except _Stopped:
                stop = True
            except Exception:
                if not self._closed and self._loop is not None and not self._loop.is_closed():
                    log.exception("analysing match %s failed", match_id)
            finally:
                if match_id is not None:
                    self.pending.discard(match_id)
                self._jobs.task_done()
        self._drop_queued()

    def _drop_queued(self) -> None:
        """Stopping: what is still queued is let go (caught up later), so a `drain` under way returns."""
        while True:
            try:
                match_id = self._jobs.get_nowait()
            except queue.Empty:
                return
            if match_id is not None:
                self.pending.discard(match_id)
            self._jobs.task_done()

    def _on_loop(self, make: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """Run a (short) database coroutine on the event loop and wait for it here; `_Stopped` when the
        loop is gone (the process is shutting down)."""
        loop = self._loop
        if loop is None or loop.is_closed() or self._closed:
            raise _Stopped
        coro = make()
        try:
            future = asyncio.run_coroutine_threadsafe(coro, loop)
        except RuntimeError:
            coro.close()
            raise _Stopped from None
        return future.result(timeout=DB_TIMEOUT)

    def _one(self, match_id: int) -> None:
        if self._on_loop(lambda: load_analysis(self.store, match_id)) is not None:
            return
        stored = self._on_loop(lambda: self.store.load(match_id, with_events=True))
        if stored is None or stored.status != MatchStatus.FINISHED:
            return
        entries = self._analyse(stored)
        if entries is not None:
            self._on_loop(lambda: self._save(match_id, entries))

    async def _save(self, match_id: int, entries: list[dict[str, Any]]) -> None:
        await save_analysis(self.store, match_id, entries)
        for hear in self.landed:
            try:
                hear(match_id)
            except Exception:
                log.exception("a listener of match %s's analysis failed", match_id)

    def _analyse(self, stored: StoredMatch) -> list[dict[str, Any]] | None:
        """`analyse_match(stored)` in the worker process; None when the worker was closed meanwhile. The
        process is stopped again as soon as the queue is empty: nothing of it outlives the work."""
        with self._process_lock:
            if self._closed:  # closed meanwhile: start no process that nobody would stop
                return None
            if self._process is None:
                self._process = _Process()
            process = self._process
        try:
            return process.analyse(stored, lambda: self._closed)
        finally:
            if self._jobs.empty() or self._closed:
                with self._process_lock:
                    if self._process is process:
                        self._process = None
                process.stop()


class _Process:
    """One low-priority process that analyses the matches it is sent over a pipe, one at a time.

    A plain process and a pipe, not a `multiprocessing.Pool`: a pool left to the garbage collector ends
    its threads from whatever code the collector interrupts, and can hang it there."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")  # no fork of a process with threads (database, Discord)
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child,), name="match-analysis", daemon=True)
        self.proc.start()
        child.close()

    def analyse(self, stored: StoredMatch, closed: Callable[[], bool]) -> list[dict[str, Any]] | None:
        """The entries of one match; None when closed meanwhile (or the process ended)."""
        try:
            self.conn.send(stored)
            while not self.conn.poll(POLL_SECONDS):
                if closed():
                    return None
                if not self.proc.is_alive():
                    raise RuntimeError(f"the analysis process ended (exit code {self.proc.exitcode})")
            ok, value = self.conn.recv()
        except (EOFError, OSError):
            if closed():
                return None
            raise
        if not ok:
            raise RuntimeError(f"analysis failed in the worker process: {value}")
        entries: list[dict[str, Any]] = value
        return entries

    def stop(self) -> None:
        """End the process (at once: it holds nothing worth waiting for) and wait a moment for it."""
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.proc.is_alive():
            with contextlib.suppress(OSError):
                self.proc.kill()
        self.proc.join(CLOSE_SECONDS)
        if self.proc.is_alive():
            log.warning("the analysis process did not stop within %s s; left to the system", CLOSE_SECONDS)


def _serve(conn: Connection) -> None:
    """The worker process: analyse each match received, send back (True, entries) or (False, error)."""
    _lower_priority()
    while True:
        try:
            stored = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[bool, Any] = (True, analyse_match(stored))
        except Exception as exc:
            reply = (False, f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return


def start_analysis_worker(
    service: Any,
    subscribe: Callable[[Callable[[Any], None]], None],
    *,
    owns: Callable[[int | None], bool] | None = None,
    catch_up: bool = True,
) -> AnalysisWorker:
    """The background analysis of `service`'s finished matches: subscribed now through `subscribe` (the
    root's bus); the recent matches that were never analysed are queued once the loop runs (`catch_up`).
    Close it with `await worker.close()`."""
    worker = AnalysisWorker(service.store)
    worker.attach(subscribe)
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
