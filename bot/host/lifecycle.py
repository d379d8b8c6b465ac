"""The service's life: start-up (resuming what this process owns), the catch-up after an outage
(`rule_overdue`), the heartbeat, and closing."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
from collections.abc import Callable

from bot.host.core import Committer, Hosting, loop_now
from bot.host.deadlines import KIND
from bot.host.effects import started_event
from bot.host.events import EventKind
from bot.host.idle import Idle, lazy
from bot.host.idle_matches import IdleMatches
from bot.host.match import Live, resumed
from bot.host.timers import Timers
from bot.outage import Retry
from bot.store.matches import NewEvent, StoredMatch

log = logging.getLogger(__name__)

PRUNE_EVERY_S = 6 * 3600.0
"""How often a host deletes old heartbeats and done jobs (the first time at its first heartbeat)."""

RESUME_BATCH = 500
"""Matches resumed together at start: their `resumed` entries go to the database in one write."""


class Startup:
    """Start, resume, catch up, beat, close."""

    def __init__(self, hosting: Hosting, commits: Committer, timers: Timers, idle: IdleMatches) -> None:
        self.hosting = hosting
        self.store = hosting.store
        self.commits = commits
        self.timers = timers
        self.idle = idle
        self._heartbeat_task: asyncio.Task[None] | None = None

    async def start(self, select: Callable[[StoredMatch], bool] | None = None) -> list[int]:
        """Migrate, then resume every unfinished match this process owns (and `select` picks); correspondence
        deadlines are ruled from here on, or (an adapter that reads what was posted meanwhile cleared
        `caught_up`) from `rule_overdue` on."""
        await self.store.open()
        resumed = await self.resume_owned(select)
        self._heartbeat_task = asyncio.create_task(self._heartbeat_loop())
        if self.hosting.caught_up.is_set():
            self.idle.take_deadlines()
        return resumed

    async def resume_owned(self, select: Callable[[StoredMatch], bool] | None = None) -> list[int]:
        """Resume every unfinished match this process owns and does not host yet (at start, or on taking over).

        A correspondence match stays idle (`bot.host.idle`; its snapshot is not decoded): it is built when it is
        looked up or its deadline job comes due. The others in batches: each batch's `resumed` entries are written
        together (the store folds concurrent appends into one transaction), then its matches are announced and
        their clocks armed, in id order."""
        hosting = self.hosting
        resumed: list[int] = []
        todo = []
        for stored, text in await self.store.unfinished_texts():
            if stored.id in hosting.live or not hosting.owns_guild(stored.guild_id) or (select and not select(stored)):
                continue
            try:
                if not lazy(stored, text):
                    stored.snapshot = json.loads(text)
                    todo.append(stored)
                    continue
                idle = Idle.of(stored, text)
            except Exception:
                log.exception("match %s could not be read", stored.id)
                continue
            self.idle.keep(idle)  # overdue or not: its job wakes it once what was posted meanwhile is read
            resumed.append(stored.id)
        if hosting.live.idle:
            await self.idle.jobs_for_idle()
        alive: dict[str, tuple[float, dt.datetime] | None] = {}
        for start in range(0, len(todo), RESUME_BATCH):
            prepared: list[Live] = []
            for stored in todo[start : start + RESUME_BATCH]:
                try:
                    prepared.append(await self._resumed(stored, alive))
                except Exception:
                    log.exception("match %s could not be resumed", stored.id)
            written = await asyncio.gather(*(self._commit_resumed(live) for live in prepared), return_exceptions=True)
            for live, error in zip(prepared, written, strict=True):
                if isinstance(error, BaseException):
                    if isinstance(error, asyncio.CancelledError):
                        raise error
                    log.error("match %s could not be resumed: %s", live.id, error)
                    continue
                hosting.live[live.id] = live  # only once the database knows it runs here again
                await hosting.publish(started_event(live, EventKind.RESUMED))
                self.timers.rearm(live)
                resumed.append(live.id)
        return sorted(resumed)

    async def _resumed(self, stored: StoredMatch, alive: dict[str, tuple[float, dt.datetime] | None]) -> Live:
        """A stored match made live again (not yet written, announced or armed); `alive` caches when each
        earlier process was last seen."""
        instance = stored.snapshot.get("instance")
        last = None
        if instance and instance != self.hosting.instance:
            if instance not in alive:
                alive[instance] = await self.store.last_alive(instance)
            last = alive[instance]
        return resumed(stored, loop_now(), self.hosting.wall(), last)

    async def _commit_resumed(self, live: Live) -> None:
        await self.commits.commit(live, [NewEvent("resumed", data={"downtime_uncharged": live.outage is not None})])

    async def rule_overdue(self) -> None:
        """Rule now on every deadline that passed while no host ran (once the adapter has read what was
        posted meanwhile): reminders and losses on time of correspondence matches, by their jobs (run here, once
        across processes), then the built matches' own timers that fell due."""
        hosting = self.hosting
        hosting.caught_up.set()
        self.idle.take_deadlines()
        await hosting.deadlines.queue.run_due([KIND])
        for live in hosting.live.awake():
            async with live.lock:
                if live.id in hosting.live and await self.commits.settled(live):
                    await self.timers.fire_due(live)

    async def close(self) -> None:
        """Stop timers and the heartbeat (matches stay resumable in the database); the consequences of
        finished matches still queued are applied first."""
        hosting = self.hosting
        await hosting.outlet.close()
        hosting.closed = True
        if hosting.deadlines.own:
            await hosting.deadlines.queue.close()
        else:
            hosting.deadlines.queue.unregister(KIND)
        tasks = [t for t in [*(lv.task for lv in hosting.live.awake()), self._heartbeat_task] if t is not None]
        for task in tasks:
            task.cancel()
        tasks += list(hosting.leaving)  # let go while acting: they end by themselves
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self.store.heartbeat(hosting.instance, loop_now(), hosting.wall())
        hosting.live.clear()

    async def _prune(self) -> None:
        """Old rows go: heartbeats of processes long gone, jobs done long ago (`KEEP_DAYS`)."""
        from bot.jobs.store import prune_done
        from bot.store.health import KEEP_DAYS, prune_heartbeats

        before = self.hosting.wall() - dt.timedelta(days=KEEP_DAYS)
        beats = await prune_heartbeats(self.store.engine, before)
        async with self.store.engine.begin() as conn:
            jobs = await prune_done(conn, before)
        if beats or jobs:
            log.info("deleted %d old heartbeat(s) and %d job(s) done before %s", beats, jobs, before.date())

    async def _heartbeat_loop(self) -> None:
        retry = Retry("the heartbeat")  # an outage is one warning and one line when it ends (bot.outage)
        pruned_at: float | None = None
        hosting = self.hosting
        while True:
            try:
                await self.store.heartbeat(hosting.instance, loop_now(), hosting.wall())
                if pruned_at is None or loop_now() - pruned_at >= PRUNE_EVERY_S:
                    pruned_at = loop_now()
                    await self._prune()
            except Exception as exc:
                await asyncio.sleep(max(0.0, retry.failed(exc) - hosting.heartbeat_seconds))
            else:
                retry.ok()
                log.debug("heartbeat written", extra={"instance": hosting.instance})
            await asyncio.sleep(hosting.heartbeat_seconds)
