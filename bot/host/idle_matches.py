"""The service's idle correspondence matches (`bot.host.idle`): kept unloaded, built on look-up or when their
deadline job comes due (`bot.host.deadlines`); and the look-ups that build only what they need."""

from __future__ import annotations

import json
import logging

from bot.host.core import Committer, Hosting, Unconfirmed, loop_now
from bot.host.deadlines import KIND, deadline_of, job_key
from bot.host.idle import Idle
from bot.host.match import Live, dump
from bot.host.timers import Timers
from bot.jobs import Job, Later
from bot.jobs import store as jobs
from bot.types import OVER_STATUSES, MatchStatus

log = logging.getLogger(__name__)

ELSEWHERE_S = 1.0
"""A deadline job of a match another process hosts is left alone here for this long (longer after each try);
it stays due at its time for its host (`Later`)."""
ELSEWHERE_MAX_S = 60.0
KEYED_MAX = 1000
"""A service with its own runner (a terminal face, the shard host) hosting at most this many matches takes only
their deadline jobs: a job of a match hosted elsewhere is never claimed here, so it goes to its host at once."""


class IdleMatches:
    """Idle matches, built by `build` (the `Hosted` mapping calls it on look-up), their deadline jobs, and the
    look-ups over every hosted match."""

    def __init__(self, hosting: Hosting, commits: Committer, timers: Timers) -> None:
        self.hosting = hosting
        self.live = hosting.live
        self.store = hosting.store
        self.commits = commits
        self.timers = timers

    def keep(self, idle: Idle) -> None:
        """Keep a match idle until it is looked up or its deadline job comes due."""
        self.live.idle[idle.id] = idle

    def build(self, match_id: int) -> Live | None:
        """Build an idle match now (its clocks charged for the time it waited), arm its timers; its `resumed`
        event and log entry follow with its next action (`Hosting.announce`, `Committer.commit`). None if it
        cannot be built."""
        idle = self.live.idle.pop(match_id, None)
        if idle is None:
            return None
        at, wall = loop_now(), self.hosting.wall()
        try:
            live = idle.build(at, wall)
            live.committed = (dump(live, at, self.hosting.instance, wall), live.seq)
        except Exception:
            log.exception("match %s could not be resumed", match_id)
            return None
        live.unannounced = live.unlogged = True
        dict.__setitem__(self.live, live.id, live)
        self.timers.rearm(live)
        return live

    async def wake(self, match_id: int) -> Live | None:
        """A hosted match, built if it was idle, its `resumed` event published (None: not hosted here)."""
        live = self.live.get(match_id)
        if live is not None and live.unannounced:
            async with live.lock:
                await self.hosting.announce(live)
        return live

    # -- deadline jobs -----------------------------------------------------------------------
    def take_deadlines(self) -> None:
        """Rule correspondence deadlines from now on (once what was posted while no host ran is read)."""
        deadlines = self.hosting.deadlines
        keys = self._deadline_keys if deadlines.own else None
        deadlines.queue.register(KIND, self._deadline_job, together=True, keys=keys)  # one match each: at once
        if deadlines.own and not self.hosting.closed:
            deadlines.queue.start()

    def _deadline_keys(self) -> set[str] | None:
        """The deadline jobs this service's own runner takes: those of the matches it hosts (None: too many to
        name; then any, and one hosted elsewhere is given back, `Later`)."""
        ids = set(self.live.idle) | {live.id for live in self.live.awake()}
        return None if len(ids) > KEYED_MAX else {job_key(i) for i in ids}

    async def jobs_for_idle(self) -> None:
        """Give a deadline job to every idle match that has none (one stored before deadlines were jobs): read
        in one query of the pending keys; only such a match is built, once, to know its next deadline."""
        async with self.store.engine.connect() as conn:
            pending = await jobs.pending_keys(conn, f"{KIND}:")
        waiting = self.live.idle.values()
        missing = [i for i in waiting if i.status != MatchStatus.PAUSED and job_key(i.id) not in pending]
        at, wall = loop_now(), self.hosting.wall()
        writes = []
        for idle in missing:
            try:
                write = deadline_of(idle.build(at, wall), at, wall)
            except Exception:
                log.exception("match %s could not be read", idle.id)
                continue
            if write is not None:
                writes.append(write)
        if not writes:
            return
        async with self.store.engine.begin() as conn:
            for write in writes:
                await write(conn)
        for write in writes:
            self.hosting.deadlines.written(write)

    async def _deadline_job(self, job: Job) -> None:
        """A correspondence match's deadline job came due: wake the match and let its clock rule (a move in time
        moved the job; nothing due, nothing happens). The match's lease fences what it writes."""
        match_id = int(job.payload["match"])
        if match_id not in self.live:
            stored = await self.store.load(match_id)
            if stored is None or stored.status in OVER_STATUSES:
                return
            raise Later(min(ELSEWHERE_MAX_S, ELSEWHERE_S * max(1, job.attempts)))  # another process hosts it
        idle = self.live.idle.get(match_id)
        if idle is not None:  # read afresh: another process may have written it since this one started
            stored = await self.store.load(match_id)
            if stored is None or stored.status in OVER_STATUSES:
                self.live.idle.pop(match_id, None)
                return
            idle.snapshot, idle.event_count = json.dumps(stored.snapshot), stored.event_count
            idle.status = stored.status
        live = self.live.get(match_id)
        if live is None:
            return
        async with live.lock:
            if live.id not in self.live:
                return
            if not await self.commits.settled(live):
                raise Unconfirmed
            seq = live.seq
            await self.timers.fire_due(live)
            if live.id in self.live and live.seq == seq:  # nothing was due yet (clocks apart): the job stays
                write = deadline_of(live, loop_now(), self.hosting.wall())
                if write is not None:
                    async with self.store.engine.begin() as conn:
                        await write(conn)
                    self.hosting.deadlines.written(write)

    # -- look-ups that build only what they need (and the overview queries of issue 28) ------------
    def rooms(self) -> list[int]:
        """The rooms (channel ids) of every match hosted here, idle ones included, without building any."""
        ids = {lv.channel_id for lv in self.live.awake()} | {i.channel_id for i in self.live.idle.values()}
        return sorted(c for c in ids if c is not None)

    def player_matches(self, player_id: str, guild_id: int | None) -> list[Live]:
        """A player's matches hosted here in a guild (all guilds for None), oldest first: only those are built."""
        self.live.wake_all(lambda i: player_id in i.players and (guild_id is None or i.guild_id == guild_id))
        return [lv for lv in self.live_in_guild_awake(guild_id) if lv.seat_of(player_id) is not None]

    def live_in_guild_awake(self, guild_id: int | None) -> list[Live]:
        """The built matches of a guild (all for None), oldest first."""
        return sorted(
            (lv for lv in self.live.awake() if guild_id is None or lv.guild_id == guild_id), key=lambda lv: lv.id
        )

    def live_in_guild(self, guild_id: int | None) -> list[Live]:
        """The matches hosted right now in a guild (all of them for None: the terminal room), oldest first
        (idle ones built)."""
        self.live.wake_all(lambda i: guild_id is None or i.guild_id == guild_id)
        return self.live_in_guild_awake(guild_id)
