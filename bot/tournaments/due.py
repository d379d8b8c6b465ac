"""Doing what falls due in the tournaments this process owns: the tournament jobs' handler (`run_job`, for the
times the `Timer` keeps), the automatic start at `starts_at`, each game's start time, no-show rulings and claims
left by a stopped process; the catch-up after a restart; and the retry of a result the database did not take
(`Owed`), every second until it succeeds. A terminal command runs `run_due` once instead of the jobs."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging

from sqlalchemy import and_, select, update

from bot.jobs import Job
from bot.outage import Retry
from bot.tournaments.advance import Advancer
from bot.tournaments.core import TournamentCore
from bot.tournaments.model import CANCELLED, RUNNING, SIGNUP, TournamentEventKind
from bot.tournaments.refusals import TournamentRefused
from bot.tournaments.running import Running
from bot.tournaments.tables import GAMES, TOURNAMENTS
from bot.tournaments.timer import JOB_KIND, RETRY_S, SOON_KIND, Owed, Timer

log = logging.getLogger(__name__)

NOT_OURS_S = 30.0
"""A job of a server this process does not host (now) is put back this much later, for the process that does."""


class Due:
    """Doing what is due, per tournament or for all of this process's, as the jobs runner (or a command) asks."""

    def __init__(self, core: TournamentCore, timer: Timer, owed: Owed, running: Running, advancer: Advancer) -> None:
        self.core = core
        self.timer = timer
        self.owed = owed
        self.running = running
        self.advancer = advancer
        self._task: asyncio.Task[None] | None = None
        """The retry of an owed result, while one is owed."""
        self._closed = False
        owed.when_owed(self._retry)

    # -- the jobs ---------------------------------------------------------------------------
    def run(self) -> None:
        """Run the tournaments' jobs here from now on (and the runner, when it is this service's own)."""
        self._closed = False
        self.core.jobs.register(JOB_KIND, self.run_job)
        self.core.jobs.register(SOON_KIND, self.timer.round_soon)
        if self.core.own_jobs:
            self.core.jobs.start()

    async def close(self) -> None:
        """Stop running the tournaments' jobs here (they stay in the database) and any retry of an owed result."""
        self._closed = True
        self.core.jobs.unregister(JOB_KIND)
        self.core.jobs.unregister(SOON_KIND)
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.core.own_jobs:
            await self.core.jobs.close()

    async def run_job(self, job: Job) -> None:
        """The jobs runner's handler: do what is due in the job's tournament, then put its job for what is next."""
        tid = int(job.payload["tournament"])
        try:
            t = await self.core.get(tid)
        except TournamentRefused:
            return  # no such tournament (any more): nothing to do
        if not self.core.host.owns_guild(t.guild_id):
            await self.timer.put(tid, self.core.wall() + dt.timedelta(seconds=NOT_OURS_S))
            return
        await self.settle_owed()
        await self.run_tournament(tid)
        await self.timer.plan(tid, acted=True)

    # -- catching up ------------------------------------------------------------------------
    async def catch_up(self, *, give_back: bool = True) -> None:
        """Every running tournament this process owns: results that arrived unheard, matches to open, rounds to
        pair; then every tournament of this process with a time still to come gets its job (the jobs agree with
        the tournaments, even with those that started before there were jobs). `give_back`: a game whose no-show
        deadline passed while no process ran gives its players the whole wait again (a bot's restart); False for
        the terminal's commands, which run a tournament one at a time (no process is away between two of them: a
        deadline that passed meanwhile is ruled by the next one)."""
        async with self.core.engine.connect() as conn:
            ids = (
                await conn.execute(
                    select(TOURNAMENTS.c.id, TOURNAMENTS.c.guild_id).where(TOURNAMENTS.c.status == RUNNING)
                )
            ).all()
        now = self.core.wall()
        for tid, guild in ids:
            if self.core.host.owns_guild(guild):
                if give_back:
                    await self._give_back_waiting(int(tid), now)
                await self.advancer.catch_up(int(tid))
        for tid in await self.timer.pending():
            await self.timer.plan(tid)

    async def _give_back_waiting(self, tid: int, now: dt.datetime) -> None:
        """After a restart, a game whose no-show deadline passed while no process ran gives its players the
        whole wait again from now (nobody is charged for the time the bot was away, as for a scheduled DM)."""
        t = await self.core.get(tid)
        if t.no_show_s is None:
            return
        late = now - dt.timedelta(seconds=t.no_show_s)
        async with self.core.engine.begin() as conn:
            await conn.execute(
                update(GAMES)
                .where(
                    and_(
                        GAMES.c.tournament_id == tid,
                        GAMES.c.black.is_not(None),
                        GAMES.c.result.is_(None),
                        GAMES.c.match_id.is_(None),
                        GAMES.c.starts_at < late,
                    )
                )
                .values(starts_at=now)
            )

    async def settle_owed(self) -> None:
        """When a result could not be stored: catch up (every step is idempotent: a result stored by an
        ambiguous commit is found stored, a round already paired is not paired again)."""
        if self.owed.owed:
            self.owed.owed = False
            try:
                await self.catch_up()
            except Exception:
                self.owed.owed = True
                raise

    def _retry(self) -> None:
        """Something is owed: `settle_owed` is tried every second until it succeeds."""
        if not self._closed and (self._task is None or self._task.done()):
            self._task = asyncio.create_task(self._settle_loop(), name="tournament-owed")

    async def _settle_loop(self) -> None:
        retry = Retry(__name__, first=RETRY_S)  # owed results caught up; said once an outage
        pause = RETRY_S
        while self.owed.owed and not self._closed:
            await asyncio.sleep(pause)
            try:
                await self.settle_owed()
            except Exception as exc:
                pause = retry.failed(exc)
            else:
                retry.ok()
                pause = RETRY_S

    # -- what is due now --------------------------------------------------------------------
    async def run_due(self) -> dt.datetime | None:
        """Do what is due now (automatic starts, games to open, no-show rulings, claims left by a stopped
        process) in the tournaments this process owns; returns when the next thing falls due."""
        upcoming = [at for tid in await self.timer.pending() if (at := await self.run_tournament(tid)) is not None]
        return min(upcoming, default=None)

    async def run_tournament(self, tid: int) -> dt.datetime | None:
        """Do what is due now in one tournament; returns when its next thing falls due (a time already past:
        something failed, it was logged)."""
        now = self.core.wall()
        t = await self.core.get(tid)
        if t.status == SIGNUP and t.starts_at is not None and t.starts_at <= now:
            await self._auto_start(tid)
        items = (await self.timer.waiting(tid)).get(tid, ([], None))[0]
        if any(at is None or at <= now for at, _ in items):
            await self.advancer.open_matches(tid)
        return await self.timer.next_due(tid)

    async def _auto_start(self, tid: int) -> None:
        """The start time has come: start, without the entrants who left the server (a field too small is
        cancelled, said why)."""
        core = self.core
        try:
            left: list[str] = []
            if core.left_server is not None:
                t = await core.get(tid)
                entries = [e for e in await core.entries(tid) if not e.withdrawn]
                left = [e.player_id for e in await core.left_server(t, entries)]
            await self.running.start_tournament(tid, by=None, left=left)
        except TournamentRefused as exc:
            t = await core.get(tid)
            if t.status == SIGNUP and await core.move_status(tid, SIGNUP, CANCELLED):
                await core.emit(tid, TournamentEventKind.CANCELLED, {"by": None, "refusal": exc.refusal})
