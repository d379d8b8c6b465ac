"""The tournament's timer, on the durable jobs (`bot.jobs`): each tournament with something still to fall due
has one job, `tournament:<id>`, due when its next thing falls due (the automatic start, a game's start time,
a no-show ruling, a claim left by a stopped process going stale). The job runs `run_tournament`, which does
what is due, and is then put again for the tournament's next time (or dropped: nothing will fall due by
itself). Every change that brings a time nearer (a tournament created with a start time, a round paired, a
rematch) puts the job again. Jobs are rows: what falls due while no process runs is done at the next start,
by whichever process runs the jobs of the tournament's server.

A result the database would not take (a failed or ambiguous commit) is owed: `settle_owed` catches up, tried
again every second until it succeeds (and at every start)."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging

from bot.jobs import Job
from bot.outage import Retry
from bot.tournaments.due import Due
from bot.tournaments.model import PAUSED, RUNNING, TournamentEventKind
from bot.tournaments.opening import waits_for_both
from bot.tournaments.refusals import TournamentRefused
from bot.tournaments.rounds import Game

log = logging.getLogger(__name__)

JOB_KIND = "tournament"
SOON_KIND = "tournament_soon"
"""The kind of a ping before a round's games start (one job per tournament, round and lead time)."""
SOON_BEFORE = (86400, 3600, 600)
"""How long before a round's games start its players are pinged (as a scheduled DM's: 24 h, 1 h, 10 min)."""
SOON_GAP_S = 300
"""A ping that would come less than this after the round's own pairings (which say when it starts) is left out."""
RETRY_S = 1.0
"""Something still due after its job acted (it failed, and was logged) is tried again this much later."""
NOT_OURS_S = 30.0
"""A job of a server this process does not host (now) is put back this much later, for the process that does."""


def job_key(tid: int) -> str:
    """The key of a tournament's job."""
    return f"{JOB_KIND}:{tid}"


def soon_key(tid: int, number: int, before: int) -> str:
    """The key of the ping `before` seconds before round `number` of a tournament starts."""
    return f"{SOON_KIND}:{tid}:{number}:{before}"


class Timer(Due):
    """A tournament's times as durable jobs, run by the jobs runner."""

    async def start(self) -> None:
        """`listen()`, `catch_up()`, then the jobs (`run()`): for a process whose host service has started."""
        self.listen()
        await self.catch_up()
        self.run()

    def run(self) -> None:
        """Run the tournaments' jobs here from now on (and the runner, when it is this service's own)."""
        self._closed = False
        self.jobs.register(JOB_KIND, self._run_job)
        self.jobs.register(SOON_KIND, self._round_soon)
        if self._own_jobs:
            self.jobs.start()

    async def close(self) -> None:
        """Stop running the tournaments' jobs here (they stay in the database) and any retry of an owed result."""
        self._closed = True
        self.jobs.unregister(JOB_KIND)
        self.jobs.unregister(SOON_KIND)
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._own_jobs:
            await self.jobs.close()

    async def catch_up(self, *, give_back: bool = True) -> None:
        """As `Due.catch_up`, then every tournament of this process with a time still to come gets its job (the
        jobs agree with the tournaments, even with those that started before there were jobs)."""
        await super().catch_up(give_back=give_back)
        for tid in await self.pending():
            await self._plan(tid)

    async def _due_changed(self, tid: int, *, soon: bool = False) -> None:
        """Something of `tid` may fall due sooner than its job says (`soon`: look at it now): the job is put again."""
        try:
            if soon:
                await self._put(tid, self.wall())
            else:
                await self._plan(tid)
        except Exception:
            log.exception("tournament %s: its job could not be stored; caught up when the database answers", tid)
            self._owe()

    async def _plan(self, tid: int, *, acted: bool = False) -> None:
        """Put the tournament's job for its next time, read now (`acted`: its job just ran, so a time already
        past means something failed: tried again `RETRY_S` later, not at once)."""
        async with self._planning.setdefault(tid, asyncio.Lock()):  # this process's latest look is the one stored
            at = await self.next_due(tid)
            if at is not None and acted:
                at = max(at, self.wall() + dt.timedelta(seconds=RETRY_S))
            await self._put(tid, at, locked=True)

    async def _put(self, tid: int, at: dt.datetime | None, *, locked: bool = False) -> None:
        """The tournament's job, due `at` (None: dropped)."""
        if not locked:
            async with self._planning.setdefault(tid, asyncio.Lock()):
                await self._put(tid, at, locked=True)
            return
        if at is None:
            await self.jobs.cancel(job_key(tid))
            return
        t = await self.get(tid)
        await self.jobs.add(JOB_KIND, job_key(tid), at, {"tournament": tid}, scope=t.guild_id)

    async def _run_job(self, job: Job) -> None:
        """The jobs runner's handler: do what is due in the job's tournament, then put its job for what is next."""
        tid = int(job.payload["tournament"])
        try:
            t = await self.get(tid)
        except TournamentRefused:
            return  # no such tournament (any more): nothing to do
        if not self.host.owns_guild(t.guild_id):
            await self._put(tid, self.wall() + dt.timedelta(seconds=NOT_OURS_S))
            return
        await self.settle_owed()
        await self.run_tournament(tid)
        await self._plan(tid, acted=True)

    async def _round_reminders(self, tid: int, number: int, starts: dt.datetime) -> None:
        """The pings before a round's games start: 24 h, 1 h and 10 min before, those that fit between its
        pairings (now) and its start. Each is a durable job, run once even across a restart."""
        now = self.wall()
        fitting = [b for b in SOON_BEFORE if starts - dt.timedelta(seconds=b) >= now + dt.timedelta(seconds=SOON_GAP_S)]
        if not fitting:
            return
        t = await self.get(tid)
        try:
            for before in fitting:
                payload = {"tournament": tid, "round": number, "starts": starts.isoformat(), "before": before}
                due = starts - dt.timedelta(seconds=before)
                await self.jobs.add(SOON_KIND, soon_key(tid, number, before), due, payload, scope=t.guild_id)
        except Exception:
            log.exception("tournament %s: the pings before round %s could not be stored", tid, number)

    async def _round_soon(self, job: Job) -> None:
        """A ping's moment: the players of the round whose game still waits are told when it starts (nothing
        when the round moved on, the tournament is over, or its start moved)."""
        tid, number = int(job.payload["tournament"]), int(job.payload["round"])
        try:
            t = await self.get(tid)
        except TournamentRefused:
            return
        if t.status not in (RUNNING, PAUSED) or t.round != number:
            return
        entries = {e.id: e for e in await self.entries(tid)}
        players: list[str] = []
        for g in await self.games(tid):
            p = g.pairing
            if g.round != number or not isinstance(p, Game) or p.result is not None or g.match_id is not None:
                continue
            players += [entries[p.white].player_id, entries[p.black].player_id]
        if not players:
            return
        starts = dt.datetime.fromisoformat(str(job.payload["starts"]))
        data = {
            "round": number,
            "starts_at": starts,
            "before": int(job.payload["before"]),
            "players": players,
            "checkin": t.no_show_s is not None or waits_for_both(t, number),
        }
        await self._emit(tid, TournamentEventKind.ROUND_SOON, data)

    def _owe(self) -> None:
        """A result (or a job) the database did not take: `settle_owed` is tried every second until it succeeds."""
        self.owed = True
        if not self._closed and (self._task is None or self._task.done()):
            self._task = asyncio.create_task(self._settle_loop(), name="tournament-owed")

    async def _settle_loop(self) -> None:
        retry = Retry(__name__, first=RETRY_S)  # owed results caught up; said once an outage
        pause = RETRY_S
        while self.owed and not self._closed:
            await asyncio.sleep(pause)
            try:
                await self.settle_owed()
            except Exception as exc:
                pause = retry.failed(exc)
            else:
                retry.ok()
                pause = RETRY_S
