"""What every part of the tournament service shares: its state, the reading of the tournament's own tables
(`tournaments`, `tournament_entries`, `tournament_games`; each part writes the rows of its own step), the
writes several parts make, its events, and the hooks by which the parts call each other. The host's tables
are never touched here: matches go through `MatchService` and `MatchStore`.

`TournamentService` (`bot.tournaments.service`) is made of the parts beside this module: `registration`
(create, join, check in, leave), `running` (start, pairing, the host's hand), `results` (the host's finished
matches, adjudication, the end), `opening` (each game's room, match or no-show ruling, through the host's
API), `due` (what falls due: automatic starts, games' start times, no-show rulings) and `timer` (those
times as durable jobs, `bot.jobs`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from abc import ABC, abstractmethod
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
from bot.tournaments.rounds import Bye, Pairing, PairingError, Result
from bot.tournaments.standings import Standing, standings
from bot.tournaments.tables import ENTRIES, GAMES, TOURNAMENTS

log = logging.getLogger(__name__)


class TournamentCore(ABC):
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
        self._opening: dict[int, asyncio.Lock] = {}
        self.hear: Callable[[Callable[[Sequence[HostEvent]], Awaitable[None]]], None] | None = None
        """How it subscribes to the host's events (`listen`): the root's bus at `Stage.FOLLOW`, set by the root
        (a test: `functools.partial(bus.subscribe, stage=Stage.FOLLOW)`); None: it hears nothing."""
        self._listening = False
        self._own_jobs = jobs is None
        """Without a shared jobs runner the service has one of its own (the terminal, the command lines, tests)."""
        self.jobs = jobs or JobQueue(self.engine, clock=self.wall, poll_s=poll_seconds)
        self._planning: dict[int, asyncio.Lock] = {}
        self._task: asyncio.Task[None] | None = None
        """The retry of an owed result, while one is owed."""
        self._closed = False
        self.owed = False
        """A finished match's result could not be stored (a failed or ambiguous commit): `settle_owed` records it."""

    # -- the parts' hooks (each is defined by one part; the others call it) -------------------
    @abstractmethod
    def listen(self) -> None:
        """Subscribe to the host's events (`results`)."""

    @abstractmethod
    async def settle_owed(self) -> None:
        """Record a result that could not be stored (`results`)."""

    @abstractmethod
    async def catch_up(self, *, give_back: bool = True) -> None:
        """Every running tournament this process owns, caught up (`timer`; `give_back`: see `Due.catch_up`)."""

    @abstractmethod
    async def _due_changed(self, tid: int, *, soon: bool = False) -> None:
        """Something of `tid` may fall due sooner than the timer knows (`soon`: look at it again now) (`timer`)."""

    @abstractmethod
    async def _round_reminders(self, tid: int, number: int, starts: dt.datetime) -> None:
        """Plan the pings before a round's games start (`timer`)."""

    @abstractmethod
    def _owe(self) -> None:
        """A result the database did not take: `settle_owed` is tried again until it succeeds (`timer`)."""

    @abstractmethod
    async def _catch_up(self, tid: int) -> None:
        """Unheard results, matches to open, rounds to pair, for one tournament (`timer`)."""

    @abstractmethod
    async def start_tournament(self, tid: int, by: str | None = None, *, left: Sequence[str] = ()) -> None:
        """Close sign-up, seed, pair round 1 and open its matches (`running`)."""

    @abstractmethod
    async def _pair_locked(self, tid: int) -> int:
        """Pair the next round under the tournament's lock (`running`)."""

    @abstractmethod
    async def _record_match(self, match_id: int) -> int | None:
        """Read a finished match into its game (`results`)."""

    @abstractmethod
    async def _advance(self, tid: int) -> None:
        """After a result: a rematch, the next round or the end (`results`)."""

    @abstractmethod
    async def _finish(self, t: Tournament, unpaired: PairingError | None = None) -> None:
        """The end (`results`)."""

    @abstractmethod
    async def _open_matches(self, tid: int) -> None:
        """Open (or rule) every game of the round that is due (`opening`)."""

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
    async def _set_result(self, game_id: int, result: Result, by: str | None, *, forfeit: bool = False) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                update(GAMES).where(GAMES.c.id == game_id).values(result=result.value, decided_by=by, forfeit=forfeit)
            )

    async def _record_results(self, results: Sequence[tuple[int, Result]]) -> None:
        """Finished matches' results into their games, in one transaction; a game already decided (a host's
        decision, or the same result delivered before) is left as it is."""
        async with self.engine.begin() as conn:
            for game_id, result in results:
                await conn.execute(
                    update(GAMES)
                    .where(and_(GAMES.c.id == game_id, GAMES.c.result.is_(None)))
                    .values(result=result.value, decided_by=None, forfeit=False)
                )

    async def _move_status(self, tid: int, old: str, new: str) -> bool:
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.status == old))
                .values(status=new, updated_at=self.wall())
            )
        return bool(done.rowcount == 1)

    async def _append_seed(self, tid: int, eid: int) -> None:
        async with self.engine.begin() as conn:
            seeds = (await conn.execute(select(TOURNAMENTS.c.seeds).where(TOURNAMENTS.c.id == tid))).scalar_one()
            await conn.execute(update(TOURNAMENTS).where(TOURNAMENTS.c.id == tid).values(seeds=[*seeds, eid]))

    @staticmethod
    async def _insert(
        conn: AsyncConnection,
        tid: int,
        number: int,
        first_board: int,
        pairings: Sequence[Pairing],
        starts_at: dt.datetime,
    ) -> None:
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
    def _lock(self, tid: int) -> asyncio.Lock:
        return self._locks.setdefault(tid, asyncio.Lock())

    async def _emit(self, tid: int, kind: TournamentEventKind, data: dict[str, Any]) -> None:
        ev = TournamentEvent(tid, kind, data)
        if self.publish is None:
            return
        try:
            result = self.publish(ev)
            if asyncio.iscoroutine(result):
                await result
        except Exception:
            log.exception("tournament event failed for %s", kind)
