"""The timer: what falls due in the tournaments this process owns (automatic starts, each game's start time,
no-show rulings, claims left by a stopped process), and the catch-up after a restart."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging

from sqlalchemy import and_, or_, select, update

from bot.tournaments.core import TournamentCore
from bot.tournaments.model import CANCELLED, OPENING, PAUSED, RUNNING, SIGNUP, STALE_S, TournamentEventKind
from bot.tournaments.refusals import TournamentRefused
from bot.tournaments.rounds import Game
from bot.tournaments.tables import GAMES, TOURNAMENTS

log = logging.getLogger(__name__)


class Timer(TournamentCore):
    """The timer task and the catch-up."""

    async def start(self) -> None:
        """`listen()`, `catch_up()`, then the timer task (`run()`): for a process whose host service has started."""
        self.listen()
        await self.catch_up()
        self.run()

    def run(self) -> None:
        """Start the timer task: automatic starts, games' start times and no-show rulings, as they fall due."""
        self._closed = False
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._timer(), name="tournament-timer")

    async def close(self) -> None:
        """Stop the timer task (everything stays in the database)."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def wake(self) -> None:
        """Something may have fallen due sooner than the timer sleeps: look again now."""
        self._dirty = True
        if self._sleeping and self._task is not None and not self._closed:
            self._task.cancel()  # only ever while it sleeps, never in the middle of its work
            self._task = asyncio.create_task(self._timer(), name="tournament-timer")

    async def _timer(self) -> None:
        while not self._closed:
            self._dirty = False
            try:
                await self.settle_owed()
                nxt = await self.run_due()
            except Exception:
                log.exception("tournament timer failed")
                nxt = None
            if self._dirty:
                continue
            wait = self.poll_seconds
            if nxt is not None:
                # still due after acting: something failed (it was logged); try again in a second, not at once
                wait = min(wait, (nxt - self.wall()).total_seconds())
                wait = wait if wait > 0 else 1.0
            self._sleeping = True
            try:
                await asyncio.sleep(wait)
            finally:
                self._sleeping = False

    async def catch_up(self) -> None:
        """Every running tournament this process owns: results that arrived unheard, matches to open, rounds to pair."""
        async with self.engine.connect() as conn:
            ids = (
                await conn.execute(
                    select(TOURNAMENTS.c.id, TOURNAMENTS.c.guild_id).where(TOURNAMENTS.c.status == RUNNING)
                )
            ).all()
        now = self.wall()
        for tid, guild in ids:
            if self.host.owns_guild(guild):
                await self._give_back_waiting(int(tid), now)
                await self._catch_up(int(tid))

    async def _give_back_waiting(self, tid: int, now: dt.datetime) -> None:
        """After a restart, a game whose no-show deadline passed while no process ran gives its players the
        whole wait again from now (nobody is charged for the time the bot was away, as for a scheduled DM)."""
        t = await self.get(tid)
        if t.no_show_s is None:
            return
        late = now - dt.timedelta(seconds=t.no_show_s)
        async with self.engine.begin() as conn:
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

    async def _catch_up(self, tid: int) -> None:
        """Results of matches that ended while no process listened, then matches still to open, then advance."""
        for g in await self.games(tid):
            if isinstance(g.pairing, Game) and g.pairing.result is None and g.match_id:
                await self._record_match(g.match_id)
        await self._open_matches(tid)
        await self._advance(tid)

    async def run_due(self) -> dt.datetime | None:
        """Do what is due now (automatic starts, games to open, no-show rulings, claims left by a stopped
        process) in the tournaments this process owns; returns when the next thing falls due."""
        now = self.wall()
        upcoming: list[dt.datetime] = []
        async with self.engine.connect() as conn:
            starting = (
                await conn.execute(
                    select(TOURNAMENTS.c.id, TOURNAMENTS.c.guild_id, TOURNAMENTS.c.starts_at).where(
                        and_(TOURNAMENTS.c.status == SIGNUP, TOURNAMENTS.c.starts_at.is_not(None))
                    )
                )
            ).all()
        for tid, guild, at in starting:
            if not self.host.owns_guild(guild):
                continue
            if at <= now:
                await self._auto_start(int(tid))
            else:
                upcoming.append(at)
        for tid, _no_show, items in await self._waiting():
            if any(at is None or at <= now for at, _ in items):
                await self._open_matches(tid)
        now = self.wall()
        for _tid, no_show, items in await self._waiting():
            for at, opening_at in items:
                if opening_at is not None:
                    upcoming.append(opening_at + dt.timedelta(seconds=STALE_S))
                elif at is not None and at > now:
                    upcoming.append(at)
                elif at is not None and no_show is not None:
                    upcoming.append(max(now, at + dt.timedelta(seconds=no_show)))
        return min(upcoming, default=None)

    async def _waiting(self) -> list[tuple[int, int | None, list[tuple[dt.datetime | None, dt.datetime | None]]]]:
        """Running tournaments (of this process) with games whose match is not open: (id, no-show seconds,
        [(the game's start, the time a process claimed it)])."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
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
            ).all()
        out: dict[int, tuple[int | None, list[tuple[dt.datetime | None, dt.datetime | None]]]] = {}
        for r in rows:
            if not self.host.owns_guild(r.guild_id):
                continue
            claimed = r.opening_at if r.match_id == OPENING else None
            out.setdefault(int(r.id), (r.no_show_s, []))[1].append((r.starts_at, claimed))
        return [(tid, no_show, items) for tid, (no_show, items) in out.items()]

    async def _auto_start(self, tid: int) -> None:
        """The start time has come: start, without the entrants who left the server (a field too small is
        cancelled, said why)."""
        try:
            left: list[str] = []
            if self.left_server is not None:
                t = await self.get(tid)
                entries = [e for e in await self.entries(tid) if not e.withdrawn]
                left = [e.player_id for e in await self.left_server(t, entries)]
            await self.start_tournament(tid, by=None, left=left)
        except TournamentRefused as exc:
            t = await self.get(tid)
            if t.status == SIGNUP and await self._move_status(tid, SIGNUP, CANCELLED):
                await self._emit(tid, TournamentEventKind.CANCELLED, {"by": None, "refusal": exc.refusal})
