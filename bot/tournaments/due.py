"""What falls due in the tournaments this process owns, and the catch-up after a restart: the automatic start
at `starts_at`, each game's start time, no-show rulings and claims left by a stopped process. The timer
(`bot.tournaments.timer`) runs `run_tournament` when a tournament's next time comes; a terminal command
runs `run_due` once."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import and_, or_, select, update

from bot.tournaments.core import TournamentCore
from bot.tournaments.model import CANCELLED, OPENING, PAUSED, RUNNING, SIGNUP, STALE_S, TournamentEventKind
from bot.tournaments.refusals import TournamentRefused
from bot.tournaments.rounds import Game
from bot.tournaments.tables import GAMES, TOURNAMENTS

Waiting = list[tuple[dt.datetime | None, dt.datetime | None]]
"""A tournament's games whose match is not open: (the game's start, the time a process claimed it)."""


class Due(TournamentCore):
    """Doing what is due, per tournament or for all of this process's, and when each falls due next."""

    async def catch_up(self, *, give_back: bool = True) -> None:
        """Every running tournament this process owns: results that arrived unheard, matches to open, rounds to
        pair. `give_back`: a game whose no-show deadline passed while no process ran gives its players the whole
        wait again (a bot's restart); False for the terminal's commands, which run a tournament one at a time
        (no process is away between two of them: a deadline that passed meanwhile is ruled by the next one)."""
        async with self.engine.connect() as conn:
            ids = (
                await conn.execute(
                    select(TOURNAMENTS.c.id, TOURNAMENTS.c.guild_id).where(TOURNAMENTS.c.status == RUNNING)
                )
            ).all()
        now = self.wall()
        for tid, guild in ids:
            if self.host.owns_guild(guild):
                if give_back:
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
        upcoming = [at for tid in await self.pending() if (at := await self.run_tournament(tid)) is not None]
        return min(upcoming, default=None)

    async def pending(self) -> list[int]:
        """The tournaments of this process with something still to fall due: an automatic start, or games
        whose match is not open."""
        async with self.engine.connect() as conn:
            starting = (
                await conn.execute(
                    select(TOURNAMENTS.c.id, TOURNAMENTS.c.guild_id).where(
                        and_(TOURNAMENTS.c.status == SIGNUP, TOURNAMENTS.c.starts_at.is_not(None))
                    )
                )
            ).all()
        ids = [int(tid) for tid, guild in starting if self.host.owns_guild(guild)]
        return ids + sorted(await self._waiting())

    async def run_tournament(self, tid: int) -> dt.datetime | None:
        """Do what is due now in one tournament; returns when its next thing falls due (a time already past:
        something failed, it was logged)."""
        now = self.wall()
        t = await self.get(tid)
        if t.status == SIGNUP and t.starts_at is not None and t.starts_at <= now:
            await self._auto_start(tid)
        items = (await self._waiting(tid)).get(tid, ([], None))[0]
        if any(at is None or at <= now for at, _ in items):
            await self._open_matches(tid)
        return await self.next_due(tid)

    async def next_due(self, tid: int) -> dt.datetime | None:
        """When something next falls due in a tournament (None: nothing will by itself)."""
        t = await self.get(tid)
        if t.status == SIGNUP:
            return t.starts_at
        now = self.wall()
        upcoming: list[dt.datetime] = []
        items, no_show = (await self._waiting(tid)).get(tid, ([], None))
        for at, opening_at in items:
            if opening_at is not None:
                upcoming.append(opening_at + dt.timedelta(seconds=STALE_S))
            elif at is not None and at > now:
                upcoming.append(at)
            elif at is not None and no_show is not None:
                upcoming.append(max(now, at + dt.timedelta(seconds=no_show)))
        return min(upcoming, default=None)

    async def _waiting(self, tid: int | None = None) -> dict[int, tuple[Waiting, int | None]]:
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
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        out: dict[int, tuple[Waiting, int | None]] = {}
        for r in rows:
            if not self.host.owns_guild(r.guild_id):
                continue
            claimed = r.opening_at if r.match_id == OPENING else None
            out.setdefault(int(r.id), ([], r.no_show_s))[0].append((r.starts_at, claimed))
        return out

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
