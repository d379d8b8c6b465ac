"""The state and storage every collaborator of the tournament service shares: the hooks a face or the
composition root sets, the reading of the tournament's own tables (`tournaments`, `tournament_entries`,
`tournament_games`; each collaborator writes the rows of its own step), the writes several of them make, the
tournament's lock and its events. The host's tables are never touched here: matches go through `MatchService`
and `MatchStore`.

`TournamentService` (`bot.tournaments.service`) is built from this core (which alone takes the host and the
options) and is a façade over objects each given this core and the other objects it calls, once, in its
constructor (lila's round module is the model): `timer` (what falls due and
when, as durable jobs), `recording` (a finished match into its game), `pairer` (the next round, the end),
`opening` (each game's room, match or no-show ruling), `advance` (what a result moves on), `registration`,
`running` and `results` (the public actions), `due` (doing what falls due, the catch-up, the jobs' handlers).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from sqlalchemy import and_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.host.events import HostEvent
from bot.host.service import MatchService
from bot.jobs import JobQueue
from bot.store.db import utcnow
from bot.tournaments.liveness import process_name
from bot.tournaments.model import (
    POLL_S,
    SIGNUP,
    Entry,
    LeftServer,
    RatingOrder,
    RoomOpener,
    SeedOrder,
    StoredGame,
    Tournament,
    TournamentEvent,
    TournamentEventKind,
    TournamentListener,
    game_of,
    join_order,
    tournament_of,
)
from bot.tournaments.refusals import RefusalCode, TournamentRefused
from bot.tournaments.rounds import Bye, Pairing, Result
from bot.tournaments.standings import Standing, standings
from bot.tournaments.tables import ENTRIES, GAMES, TOURNAMENTS

log = logging.getLogger(__name__)


class TournamentCore:
    """The shared state and storage of one process's tournament service (see the module's note)."""

    def __init__(
        self,
        host: MatchService,
        *,
        seed_order: SeedOrder | None = None,
        open_room: RoomOpener | None = None,
        wall: Callable[[], dt.datetime] | None = None,
        rating_order: RatingOrder | None = None,
        left_server: LeftServer | None = None,
        instance: str | None = None,
        poll_seconds: float = POLL_S,
        jobs: JobQueue | None = None,
    ) -> None:
        self.host = host
        self.engine: AsyncEngine = host.store.engine
        self.seed_order = seed_order or join_order
        self.rating_order = rating_order
        self.left_server = left_server
        self.open_room = open_room
        self.wall = wall or utcnow
        self.instance = instance or process_name()
        self.poll_seconds = poll_seconds
        self.publish: TournamentListener | None = None
        """Where its events go: the composition root's bus (`Bus.tell`); None: nobody hears them."""
        self._locks: dict[int, asyncio.Lock] = {}
        self.hear: Callable[[Callable[[Sequence[HostEvent]], Awaitable[None]]], None] | None = None
        """How it subscribes to the host's events (`Results.listen`): the root's bus at `Stage.FOLLOW`, set by the
        root (a test: `functools.partial(bus.subscribe, stage=Stage.FOLLOW)`); None: it hears nothing."""
        self.own_jobs = jobs is None
        """Without a shared jobs runner the service has one of its own (the terminal, the command lines, tests)."""
        self.jobs = jobs or JobQueue(self.engine, clock=self.wall, poll_s=poll_seconds)

    # -- reading -------------------------------------------------------------------
    async def get(self, tid: int) -> Tournament:
        """A tournament, or a refusal naming the id."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(TOURNAMENTS).where(TOURNAMENTS.c.id == tid))).first()
        if row is None:
            raise TournamentRefused(RefusalCode.NO_TOURNAMENT, tournament=tid)
        return tournament_of(row)

    async def tournaments(self, guild_id: int | None = None) -> list[Tournament]:
        """Tournaments (of a guild), newest first."""
        query = select(TOURNAMENTS).order_by(TOURNAMENTS.c.id.desc())
        if guild_id is not None:
            query = query.where(TOURNAMENTS.c.guild_id == guild_id)
        async with self.engine.connect() as conn:
            return [tournament_of(r) for r in (await conn.execute(query)).all()]

    async def entries(self, tid: int) -> list[Entry]:
        """Entries in the order they joined."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(select(ENTRIES).where(ENTRIES.c.tournament_id == tid).order_by(ENTRIES.c.id))
            ).all()
        return [
            Entry(
                int(r.id),
                r.player_id,
                r.name,
                r.withdrawn_at is not None,
                r.checked_in_at is not None,
                r.missed_round,
            )
            for r in rows
        ]

    async def games(self, tid: int) -> list[StoredGame]:
        """Every pairing so far, by round and board."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(GAMES).where(GAMES.c.tournament_id == tid).order_by(GAMES.c.round, GAMES.c.board)
                )
            ).all()
        return [game_of(r) for r in rows]

    async def rounds(self, tid: int) -> list[list[Pairing]]:
        """The pairings of every round (index 0 = round 1)."""
        out: list[list[Pairing]] = []
        for g in await self.games(tid):
            while len(out) < g.round:
                out.append([])
            out[g.round - 1].append(g.pairing)
        return out

    async def names(self, tid: int) -> dict[int, str]:
        """Entry number → display name."""
        return {e.id: e.name for e in await self.entries(tid)}

    async def standings(self, tid: int) -> list[Standing]:
        """The table now."""
        t = await self.get(tid)
        seeds = t.seeds or [e.id for e in await self.entries(tid)]
        return standings(seeds, await self.rounds(tid), t.format)

    async def waiting_in(self, room_id: int) -> list[StoredGame]:
        """Games whose room is this channel and whose match has not opened yet (they take check-ins)."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(GAMES).where(
                        and_(GAMES.c.room_id == room_id, GAMES.c.match_id.is_(None), GAMES.c.result.is_(None))
                    )
                )
            ).all()
        return [game_of(r) for r in rows if r.black is not None]

    async def decided_in(self, room_id: int) -> list[Tournament]:
        """Tournaments with a game in this room that has its result (decided before or after its match opened)."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(GAMES.c.tournament_id)
                    .where(and_(GAMES.c.room_id == room_id, GAMES.c.result.is_not(None)))
                    .distinct()
                )
            ).all()
        return [await self.get(int(tid)) for (tid,) in rows]

    async def signup_in(self, channel_id: int) -> list[Tournament]:
        """Tournaments taking sign-up (and check-in) in this channel."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(TOURNAMENTS).where(
                        and_(TOURNAMENTS.c.channel_id == channel_id, TOURNAMENTS.c.status == SIGNUP)
                    )
                )
            ).all()
        return [tournament_of(r) for r in rows]

    async def game(self, game_id: int) -> tuple[Tournament, StoredGame]:
        """A stored game and its tournament."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(GAMES).where(GAMES.c.id == game_id))).first()
        if row is None:
            raise TournamentRefused(RefusalCode.NO_GAME, game=game_id)
        return await self.get(int(row.tournament_id)), game_of(row)

    # -- writing -------------------------------------------------------------------
    async def set_result(self, game_id: int, result: Result, by: str | None, *, forfeit: bool = False) -> None:
        """A game's result, as decided (by a host, a withdrawal), over whatever it had."""
        async with self.engine.begin() as conn:
            await conn.execute(
                update(GAMES).where(GAMES.c.id == game_id).values(result=result.value, decided_by=by, forfeit=forfeit)
            )

    async def record_results(self, results: Sequence[tuple[int, Result]]) -> None:
        """Finished matches' results into their games, in one transaction; a game already decided (a host's
        decision, or the same result delivered before) is left as it is."""
        async with self.engine.begin() as conn:
            for game_id, result in results:
                await conn.execute(
                    update(GAMES)
                    .where(and_(GAMES.c.id == game_id, GAMES.c.result.is_(None)))
                    .values(result=result.value, decided_by=None, forfeit=False)
                )

    async def move_status(self, tid: int, old: str, new: str) -> bool:
        """The tournament's status from `old` to `new`; False: it was not `old` (any more)."""
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.status == old))
                .values(status=new, updated_at=self.wall())
            )
        return bool(done.rowcount == 1)

    async def append_seed(self, tid: int, eid: int) -> None:
        """A late entry joins the seeds, last."""
        async with self.engine.begin() as conn:
            seeds = (await conn.execute(select(TOURNAMENTS.c.seeds).where(TOURNAMENTS.c.id == tid))).scalar_one()
            await conn.execute(update(TOURNAMENTS).where(TOURNAMENTS.c.id == tid).values(seeds=[*seeds, eid]))

    @staticmethod
    async def insert(
        conn: AsyncConnection,
        tid: int,
        number: int,
        first_board: int,
        pairings: Sequence[Pairing],
        starts_at: dt.datetime,
    ) -> None:
        """A round's pairings (from board `first_board` on) as games, in the caller's transaction."""
        rows: list[dict[str, Any]] = []
        for board, p in enumerate(pairings, start=first_board):
            if isinstance(p, Bye):
                rows.append(
                    dict(
                        tournament_id=tid,
                        round=number,
                        board=board,
                        white=p.player,
                        black=None,
                        bye_points=p.points,
                        result=None,
                        forfeit=False,
                        starts_at=starts_at,
                    )
                )
            else:
                rows.append(
                    dict(
                        tournament_id=tid,
                        round=number,
                        board=board,
                        white=p.white,
                        black=p.black,
                        bye_points=None,
                        result=p.result.value if p.result else None,
                        forfeit=p.forfeit,
                        starts_at=starts_at,
                    )
                )
        if rows:
            await conn.execute(GAMES.insert(), rows)

    # -- plumbing ------------------------------------------------------------------
    def lock(self, tid: int) -> asyncio.Lock:
        """The tournament's lock in this process: one pairing (or advance) at a time."""
        return self._locks.setdefault(tid, asyncio.Lock())

    async def emit(self, tid: int, kind: TournamentEventKind, data: dict[str, Any]) -> None:
        """Tell the tournament's event to `publish` (a listener's failure is logged, never raised)."""
        ev = TournamentEvent(tid, kind, data)
        if self.publish is None:
            return
        try:
            result = self.publish(ev)
            if asyncio.iscoroutine(result):
                await result
        except Exception:
            log.exception("tournament event failed for %s", kind)
