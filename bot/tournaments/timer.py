"""The tournament's times, on the durable jobs (`bot.jobs`): what falls due and when (the automatic start, a
game's start time, a no-show ruling, a claim left by a stopped process going stale), and each tournament's job,
`tournament:<id>`, due when its next thing falls due. The job's handler (`Due.run_job`, `bot.tournaments.due`)
does what is due and puts the job again for the tournament's next time (or drops it: nothing will fall due by
itself). Every change that brings a time nearer (a tournament created with a start time, a round paired, a
rematch) puts the job again (`changed`). Jobs are rows: what falls due while no process runs is done at the
next start, by whichever process runs the jobs of the tournament's server. The pings before a round's games
start are jobs too (`tournament_soon`), one per lead time.

A result (or a job) the database would not take is owed (`Owed`): the service's `Due` catches up, tried again
every second until it succeeds (and at every start)."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable

from sqlalchemy import and_, or_, select

from bot.jobs import Job
from bot.tournaments.core import TournamentCore
from bot.tournaments.model import OPENING, PAUSED, RUNNING, SIGNUP, STALE_S, TournamentEventKind
from bot.tournaments.opening import waits_for_both
from bot.tournaments.refusals import TournamentRefused
from bot.tournaments.rounds import Game
from bot.tournaments.tables import GAMES, TOURNAMENTS

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

Waiting = list[tuple[dt.datetime | None, dt.datetime | None]]
"""A tournament's games whose match is not open: (the game's start, the time a process claimed it)."""


def job_key(tid: int) -> str:
    """The key of a tournament's job."""
    return f"{JOB_KIND}:{tid}"


def soon_key(tid: int, number: int, before: int) -> str:
    """The key of the ping `before` seconds before round `number` of a tournament starts."""
    return f"{SOON_KIND}:{tid}:{number}:{before}"


class Owed:
    """Whether a result (or a job) could not be stored: whoever catches up is told when one is owed."""

    def __init__(self) -> None:
        self.owed = False
        """A finished match's result could not be stored (a failed or ambiguous commit): a catch-up records it."""
        self._told: list[Callable[[], None]] = []

    def when_owed(self, tell: Callable[[], None]) -> None:
        """`tell` is called each time something is owed (the catch-up's retry: `Due`)."""
        self._told.append(tell)

    def owe(self) -> None:
        """Something the database did not take: owed until a catch-up succeeds."""
        self.owed = True
        for tell in self._told:
            tell()


class Timer:
    """When things fall due in the tournaments this process owns, and their jobs."""

    def __init__(self, core: TournamentCore, owed: Owed) -> None:
        self.core = core
        self.owed = owed
        self._planning: dict[int, asyncio.Lock] = {}

    # -- when -------------------------------------------------------------------------------
    async def pending(self) -> list[int]:
        """The tournaments of this process with something still to fall due: an automatic start, or games
        whose match is not open."""
        async with self.core.engine.connect() as conn:
            starting = (
                await conn.execute(
                    select(TOURNAMENTS.c.id, TOURNAMENTS.c.guild_id).where(
                        and_(TOURNAMENTS.c.status == SIGNUP, TOURNAMENTS.c.starts_at.is_not(None))
                    )
                )
            ).all()
        ids = [int(tid) for tid, guild in starting if self.core.host.owns_guild(guild)]
        return ids + sorted(await self.waiting())

    async def next_due(self, tid: int) -> dt.datetime | None:
        """When something next falls due in a tournament (None: nothing will by itself)."""
        t = await self.core.get(tid)
        if t.status == SIGNUP:
            return t.starts_at
        now = self.core.wall()
        upcoming: list[dt.datetime] = []
        items, no_show = (await self.waiting(tid)).get(tid, ([], None))
        for at, opening_at in items:
            if opening_at is not None:
                upcoming.append(opening_at + dt.timedelta(seconds=STALE_S))
            elif at is not None and at > now:
                upcoming.append(at)
            elif at is not None and no_show is not None:
                upcoming.append(max(now, at + dt.timedelta(seconds=no_show)))
        return min(upcoming, default=None)

    async def waiting(self, tid: int | None = None) -> dict[int, tuple[Waiting, int | None]]:
        """Running tournaments (of this process; or only `tid`) with games whose match is not open: id → (those
        games, the no-show seconds)."""
        query = (
            select(
                TOURNAMENTS.c.id,
                TOURNAMENTS.c.guild_id,
                TOURNAMENTS.c.no_show_s,
                GAMES.c.starts_at,
                GAMES.c.match_id,
                GAMES.c.opening_at,
            )
            .join(GAMES, GAMES.c.tournament_id == TOURNAMENTS.c.id)
            .where(
                and_(
                    TOURNAMENTS.c.status.in_((RUNNING, PAUSED)),
                    GAMES.c.black.is_not(None),
                    GAMES.c.result.is_(None),
                    or_(GAMES.c.match_id.is_(None), GAMES.c.match_id == OPENING),
                )
            )
        )
        if tid is not None:
            query = query.where(TOURNAMENTS.c.id == tid)
        async with self.core.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        out: dict[int, tuple[Waiting, int | None]] = {}
        for r in rows:
            if not self.core.host.owns_guild(r.guild_id):
                continue
            claimed = r.opening_at if r.match_id == OPENING else None
            out.setdefault(int(r.id), ([], r.no_show_s))[0].append((r.starts_at, claimed))
        return out

    # -- the jobs ---------------------------------------------------------------------------
    async def changed(self, tid: int, *, soon: bool = False) -> None:
        """Something of `tid` may fall due sooner than its job says (`soon`: look at it now): the job is put again."""
        try:
            if soon:
                await self.put(tid, self.core.wall())
            else:
                await self.plan(tid)
        except Exception:
            log.exception("tournament %s: its job could not be stored; caught up when the database answers", tid)
            self.owed.owe()

    async def plan(self, tid: int, *, acted: bool = False) -> None:
        """Put the tournament's job for its next time, read now (`acted`: its job just ran, so a time already
        past means something failed: tried again `RETRY_S` later, not at once)."""
        async with self._planning.setdefault(tid, asyncio.Lock()):  # this process's latest look is the one stored
            at = await self.next_due(tid)
            if at is not None and acted:
                at = max(at, self.core.wall() + dt.timedelta(seconds=RETRY_S))
            await self.put(tid, at, locked=True)

    async def put(self, tid: int, at: dt.datetime | None, *, locked: bool = False) -> None:
        """The tournament's job, due `at` (None: dropped)."""
        if not locked:
            async with self._planning.setdefault(tid, asyncio.Lock()):
                await self.put(tid, at, locked=True)
            return
        if at is None:
            await self.core.jobs.cancel(job_key(tid))
            return
        t = await self.core.get(tid)
        await self.core.jobs.add(JOB_KIND, job_key(tid), at, {"tournament": tid}, scope=t.guild_id)

    async def round_reminders(self, tid: int, number: int, starts: dt.datetime) -> None:
        """The pings before a round's games start: 24 h, 1 h and 10 min before, those that fit between its
        pairings (now) and its start. Each is a durable job, run once even across a restart."""
        now = self.core.wall()
        fitting = [b for b in SOON_BEFORE if starts - dt.timedelta(seconds=b) >= now + dt.timedelta(seconds=SOON_GAP_S)]
        if not fitting:
            return
        t = await self.core.get(tid)
        try:
            for before in fitting:
                payload = {"tournament": tid, "round": number, "starts": starts.isoformat(), "before": before}
                due = starts - dt.timedelta(seconds=before)
                await self.core.jobs.add(SOON_KIND, soon_key(tid, number, before), due, payload, scope=t.guild_id)
        except Exception:
            log.exception("tournament %s: the pings before round %s could not be stored", tid, number)

    async def round_soon(self, job: Job) -> None:
        """A ping's moment: the players of the round whose game still waits are told when it starts (nothing
        when the round moved on, the tournament is over, or its start moved)."""
        tid, number = int(job.payload["tournament"]), int(job.payload["round"])
        try:
            t = await self.core.get(tid)
        except TournamentRefused:
            return
        if t.status not in (RUNNING, PAUSED) or t.round != number:
            return
        entries = {e.id: e for e in await self.core.entries(tid)}
        players: list[str] = []
        for g in await self.core.games(tid):
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
        await self.core.emit(tid, TournamentEventKind.ROUND_SOON, data)
