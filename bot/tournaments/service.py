"""The tournament service: sign-up, rounds, results and withdrawals, on top of the host's match service.

No Discord here. It opens every match of a round through `MatchService.create_match`, and listens to
the host's events: when a tournament's match finishes, `on_host_event` reads the match's stored record
and the tournament moves on by itself (the next round is paired when every game of this one is over).
Everything lives in the database; `start()` catches up on what happened while no process ran. A round
is paired exactly once even from two processes: pairing claims it with a conditional UPDATE of the
tournament's round number, in the same transaction that writes the round's games. Each game's match is
opened once too: a process first claims the game (`match_id` from NULL to OPENING, with its name, time and
the highest match id then) and only the winner creates the match; a claim left by a stopped process is
taken over after `STALE_S`, and the match it may have created meanwhile is found and kept, not doubled.

Timed parts (`run_due`, driven by the `run()` task): the automatic start at `starts_at` (players who did
not check in are removed first when the tournament has a check-in, and so are members who left the server, as the
adapter's `LeftServer` hook names them), each game's start time (`round_every`)
and, with `no_show` set, the per-game check-in: a game's match opens when both players are here (and its
time has come); a player still absent `no_show` seconds after the game's start loses it by no-show (a
finished match with the reason `no_show`, as for a scheduled DM); if neither came, the match opens anyway
then and the clocks decide.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.host.match import HostError, HostEvent, PlayerRef, new_live
from bot.host.service import MatchService
from bot.store.db import Match, MatchPlayer, utcnow
from bot.tournaments.liveness import gone, process_name
from bot.tournaments.progress import check_field, next_round, rematches, round_finished
from bot.tournaments.refusals import RefusalCode
from bot.tournaments.refusals import TournamentRefused as TournamentRefused
from bot.tournaments.rounds import Bye, Format, Game, Pairing, PairingError, Result
from bot.tournaments.standings import Standing, standings
from bot.tournaments.tables import ENTRIES, GAMES, TOURNAMENTS
from bot.types import withdrawal_by

log = logging.getLogger(__name__)

SIGNUP = "signup"
RUNNING = "running"
PAUSED = "paused"
FINISHED = "finished"
CANCELLED = "cancelled"
OPENING = 0  # match_id while a process opens the game's match
STALE_S = 300.0
"""A game claimed this long ago by a process that never finished opening it is taken over."""
POLL_S = 3600.0
"""The timer also looks at the database this often (due times added by other processes)."""
SEEDINGS = ("joined", "rating")


@dataclass(frozen=True)
class Entry:
    """A player's entry: `id` is their number in pairings."""

    id: int
    player_id: str
    name: str
    withdrawn: bool
    checked_in: bool = False


@dataclass(frozen=True)
class Tournament:
    """A tournament as stored."""

    id: int
    name: str
    game: str
    format: Format
    rounds: int | None
    options: dict[str, Any]
    clock: dict[str, Any]
    rules: dict[str, Any]
    rated: bool
    prize: str | None
    bye_points: float
    max_players: int | None
    signup_closes_at: dt.datetime | None
    starts_at: dt.datetime | None
    status: str
    round: int
    seeds: list[int]
    guild_id: int | None
    channel_id: int | None
    checkin_s: int | None = None
    no_show_s: int | None = None
    round_every_s: int | None = None
    seeding: str = "joined"

    def checkin_opens(self) -> dt.datetime | None:
        """When the tournament's check-in opens (None: no check-in; anytime before a start with no time)."""
        if self.checkin_s is None or self.starts_at is None:
            return None
        return self.starts_at - dt.timedelta(seconds=self.checkin_s)


class GameTaken(Exception):
    """A game was claimed or ruled by another process while this one stored its no-show forfeit."""


@dataclass(frozen=True)
class StoredGame:
    """A pairing as stored, with the pure value the pairing code reads."""

    id: int
    round: int
    board: int
    pairing: Pairing
    match_id: int | None
    room_id: int | None = None
    starts_at: dt.datetime | None = None
    here: tuple[dt.datetime | None, dt.datetime | None] = (None, None)
    """When White and Black checked in for this game."""


class TournamentEventKind(StrEnum):
    """What a `TournamentEvent` reports (its `data` is listed beside each kind)."""

    CREATED = "created"  # name, game, format
    JOINED = "joined"  # player (id), name, entry, late
    LEFT = "left"  # player, name (before the start)
    WITHDRAWN = "withdrawn"  # player, name, by, round, games (the round's open games it forfeits: game, board,
    # room, match, opponent (id), opponent_name, waiting: still waiting for check-in) (after the start)
    CHECKED_IN = "checked_in"  # player, name
    GAME_CHECKED_IN = "game_checked_in"  # game, room, player, name
    STARTED = "started"  # by, players, rounds, removed (names of those who did not check in), left (names of
    # those taken out at the automatic start because they left the server)
    ROUND = "round"  # round, pairings, starts_at
    GAME_ROOM = "game_room"  # game, round, board, room, white, black (ids), names, starts_at, checkin, deadline
    NO_SHOW = "no_show"  # round, board, room, match, rated, winner, winner_name, absent, absent_name
    REMATCH = "rematch"  # round, pairings
    RESULT = "result"  # round, board, result, by (a host's decision)
    FINISHED = "finished"  # name, winner (entry), winner_name, prize, unpaired (round), detail
    PAUSED = "paused"  # by
    RESUMED = "resumed"  # by
    CANCELLED = "cancelled"  # by; refusal (a `Refusal`) when the automatic start was refused


@dataclass(frozen=True)
class TournamentEvent:
    """Something adapters announce: a `TournamentEventKind` and the data its sentence needs (the words are in
    `bot.wording.tournaments`)."""

    tournament_id: int
    kind: TournamentEventKind
    data: dict[str, Any]


TournamentListener = Callable[[TournamentEvent], Awaitable[None] | None]
SeedOrder = Callable[[Sequence[Entry]], Sequence[Entry]]
"""Orders the entrants at the start (index 0 = top seed); the default keeps the order they joined in.
Rating-based seeding plugs in here."""
RoomOpener = Callable[[Tournament, Entry, Entry], Awaitable[int | None]]
"""Gives a game its room (a channel id) when it is paired; the default is the tournament's channel."""
RatingOrder = Callable[["Tournament", Sequence[Entry]], Awaitable[Sequence[Entry]]]
"""Orders the entrants by rating (index 0 = top seed), for a tournament seeded by rating; awaited at the start."""
LeftServer = Callable[["Tournament", Sequence[Entry]], Awaitable[Sequence[Entry]]]
"""Of the given entrants, those who are no longer members where the tournament is played (the adapter knows);
the automatic start takes them out, as a host must before starting by hand."""


def _join_order(entries: Sequence[Entry]) -> Sequence[Entry]:
    return entries


def _tournament(row: Any) -> Tournament:
    return Tournament(
        id=int(row.id),
        name=row.name,
        game=row.game,
        format=Format(row.format),
        rounds=row.rounds,
        options=dict(row.options or {}),
        clock=dict(row.clock or {}),
        rules=dict(row.rules or {}),
        rated=bool(row.rated),
        prize=row.prize,
        bye_points=float(row.bye_points),
        max_players=row.max_players,
        signup_closes_at=row.signup_closes_at,
        starts_at=row.starts_at,
        status=row.status,
        round=int(row.round),
        seeds=[int(s) for s in row.seeds or []],
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        checkin_s=row.checkin_s,
        no_show_s=row.no_show_s,
        round_every_s=row.round_every_s,
        seeding=row.seeding or "joined",
    )


def _game(row: Any) -> StoredGame:
    pairing: Pairing
    if row.black is None:
        pairing = Bye(int(row.white), float(row.bye_points if row.bye_points is not None else 1.0))
    else:
        result = Result(row.result) if row.result else None
        pairing = Game(int(row.white), int(row.black), result, bool(row.forfeit))
    match_id = int(row.match_id) if row.match_id is not None else None
    return StoredGame(
        int(row.id),
        int(row.round),
        int(row.board),
        pairing,
        match_id,
        row.room_id,
        row.starts_at,
        (row.here_white, row.here_black),
    )


class TournamentService:
    """Runs tournaments on one host service; one instance per process (beside the host service)."""

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
    ) -> None:
        self.host = host
        self.engine: AsyncEngine = host.store.engine
        self.seed_order = seed_order or _join_order
        self.rating_order = rating_order
        self.left_server = left_server
        self.open_room = open_room
        self.wall = wall or utcnow
        self.instance = instance or process_name()
        self.poll_seconds = poll_seconds
        self._listeners: list[TournamentListener] = []
        self._locks: dict[int, asyncio.Lock] = {}
        self._opening: dict[int, asyncio.Lock] = {}
        self._listening = False
        self._task: asyncio.Task[None] | None = None
        self._sleeping = False
        self._dirty = False
        self._closed = False
        self.owed = False
        """A finished match's result could not be stored (a failed or ambiguous commit): `settle_owed` records it."""

    # -- lifecycle -----------------------------------------------------------------
    def subscribe(self, listener: TournamentListener) -> None:
        """Receive every tournament event."""
        self._listeners.append(listener)

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

    def listen(self) -> None:
        """Subscribe to the host's events (before the host resumes matches, so no result is missed)."""
        if not self._listening:
            self.host.subscribe(self.on_host_event)
            self._listening = True

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

    # -- reading -------------------------------------------------------------------
    async def get(self, tid: int) -> Tournament:
        """A tournament, or a refusal naming the id."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(TOURNAMENTS).where(TOURNAMENTS.c.id == tid))).first()
        if row is None:
            raise TournamentRefused(RefusalCode.NO_TOURNAMENT, tournament=tid)
        return _tournament(row)

    async def tournaments(self, guild_id: int | None = None) -> list[Tournament]:
        """Tournaments (of a guild), newest first."""
        query = select(TOURNAMENTS).order_by(TOURNAMENTS.c.id.desc())
        if guild_id is not None:
            query = query.where(TOURNAMENTS.c.guild_id == guild_id)
        async with self.engine.connect() as conn:
            return [_tournament(r) for r in (await conn.execute(query)).all()]

    async def entries(self, tid: int) -> list[Entry]:
        """Entries in the order they joined."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(select(ENTRIES).where(ENTRIES.c.tournament_id == tid).order_by(ENTRIES.c.id))
            ).all()
        return [
            Entry(int(r.id), r.player_id, r.name, r.withdrawn_at is not None, r.checked_in_at is not None) for r in rows
        ]

    async def games(self, tid: int) -> list[StoredGame]:
        """Every pairing so far, by round and board."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(GAMES).where(GAMES.c.tournament_id == tid).order_by(GAMES.c.round, GAMES.c.board)
                )
            ).all()
        return [_game(r) for r in rows]

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

    # -- sign-up -------------------------------------------------------------------
    async def create(
        self,
        name: str,
        game: str,
        fmt: Format | str,
        *,
        rounds: int | None = None,
        options: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        rated: bool = False,
        prize: str | None = None,
        bye_points: float = 1.0,
        max_players: int | None = None,
        signup_closes_at: dt.datetime | None = None,
        starts_at: dt.datetime | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        by: str | None = None,
        checkin_s: int | None = None,
        no_show_s: int | None = None,
        round_every_s: int | None = None,
        seeding: str = "joined",
    ) -> int:
        """Open a tournament for sign-up; the match options, clock and rules are checked as `/dm start` checks them.

        `starts_at`: it starts by itself then. `checkin_s`: players check in during that many seconds before
        `starts_at` (or any time before a start by hand); those who did not are removed at the start.
        `no_show_s`: each game's players check in too, and one still absent that long after the game's start
        loses it by no-show. `round_every_s`: round N starts `(N-1) × round_every_s` after the start (or when the
        round before ends, if later). `seeding`: `joined` (sign-up order) or `rating`."""
        name = name.strip()
        now = self.wall()
        if starts_at is not None and starts_at <= now:
            raise TournamentRefused(RefusalCode.START_PAST)
        for setting, value in (("checkin", checkin_s), ("no_show", no_show_s), ("round_every", round_every_s)):
            if value is not None and not 60 <= value <= 7 * 86400:
                raise TournamentRefused(RefusalCode.BAD_TIME, setting=setting)
        if seeding not in SEEDINGS:
            raise TournamentRefused(RefusalCode.BAD_SEEDING, value=seeding, choices=list(SEEDINGS))
        if not 1 <= len(name) <= 100:
            raise TournamentRefused(RefusalCode.BAD_NAME, low=1, high=100)
        try:
            fmt = Format(fmt)
        except ValueError:
            raise TournamentRefused(RefusalCode.BAD_FORMAT, value=fmt, choices=[f.value for f in Format]) from None
        if rounds is not None and (fmt is not Format.SWISS or rounds < 1):
            raise TournamentRefused(RefusalCode.BAD_ROUNDS)
        if bye_points not in (0.5, 1.0):
            raise TournamentRefused(RefusalCode.BAD_BYE)
        if max_players is not None and max_players < 2:
            raise TournamentRefused(RefusalCode.TOO_SMALL, least=2)
        for when in (signup_closes_at, starts_at):
            if when is not None and when.tzinfo is None:
                raise TournamentRefused(RefusalCode.NAIVE_TIME)
        try:
            live = new_live(game, [PlayerRef("1", "1"), PlayerRef("2", "2")], options, clock, rules, 1, None)
        except HostError as exc:
            raise TournamentRefused(exc.refusal) from None
        async with self.engine.begin() as conn:
            tid = (
                await conn.execute(
                    TOURNAMENTS.insert().values(
                        guild_id=guild_id,
                        channel_id=channel_id,
                        name=name,
                        game=live.ruleset.id,
                        format=fmt.value,
                        rounds=rounds,
                        options=dict(options or {}),
                        clock=dict(clock or {}),
                        rules=dict(rules or {}),
                        rated=rated,
                        prize=prize,
                        bye_points=bye_points,
                        max_players=max_players,
                        signup_closes_at=signup_closes_at,
                        starts_at=starts_at,
                        status=SIGNUP,
                        round=0,
                        seeds=[],
                        created_by=by,
                        created_at=now,
                        updated_at=now,
                        checkin_s=checkin_s,
                        no_show_s=no_show_s,
                        round_every_s=round_every_s,
                        seeding=seeding,
                    )
                )
            ).inserted_primary_key[0]  # type: ignore[index]
        await self._emit(
            int(tid), TournamentEventKind.CREATED, {"name": name, "game": live.ruleset.id, "format": fmt.value}
        )
        if starts_at is not None:
            self.wake()
        return int(tid)

    # -- check-in ------------------------------------------------------------------
    async def check_in(self, tid: int, player_id: str) -> Entry:
        """A player says "I'm here" for the tournament (before the start, in its check-in window)."""
        t = await self.get(tid)
        if t.checkin_s is None:
            raise TournamentRefused(RefusalCode.NO_CHECKIN, name=t.name)
        if t.status != SIGNUP:
            raise TournamentRefused(RefusalCode.CHECKIN_OVER, name=t.name)
        opens = t.checkin_opens()
        if opens is not None and self.wall() < opens:
            raise TournamentRefused(RefusalCode.CHECKIN_EARLY, name=t.name, opens=opens)
        entry = next((e for e in await self.entries(tid) if e.player_id == player_id and not e.withdrawn), None)
        if entry is None:
            raise TournamentRefused(RefusalCode.NOT_JOINED, name=t.name)
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(ENTRIES)
                .where(and_(ENTRIES.c.id == entry.id, ENTRIES.c.checked_in_at.is_(None)))
                .values(checked_in_at=self.wall())
            )
        if done.rowcount != 1:
            raise TournamentRefused(RefusalCode.ALREADY_HERE, name=t.name)
        await self._emit(tid, TournamentEventKind.CHECKED_IN, {"player": player_id, "name": entry.name})
        return Entry(entry.id, entry.player_id, entry.name, False, True)

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
        return [_game(r) for r in rows if r.black is not None]

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
        return [_tournament(r) for r in rows]

    async def game(self, game_id: int) -> tuple[Tournament, StoredGame]:
        """A stored game and its tournament."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(GAMES).where(GAMES.c.id == game_id))).first()
        if row is None:
            raise TournamentRefused(RefusalCode.NO_GAME, game=game_id)
        return await self.get(int(row.tournament_id)), _game(row)

    async def check_in_game(self, game_id: int, player_id: str) -> StoredGame:
        """A player says "I'm here" for a game of a round; its match opens at once when both are here and its
        start time has come."""
        t, g = await self.game(game_id)
        p = g.pairing
        entries = {e.id: e for e in await self.entries(t.id)}
        if not isinstance(p, Game):
            raise TournamentRefused(RefusalCode.BYE_NO_CHECKIN, game=g.id)
        seat = next((i for i, e in enumerate((p.white, p.black)) if entries[e].player_id == player_id), None)
        if seat is None:
            raise TournamentRefused(RefusalCode.NOT_IN_GAME, game=g.id)
        if t.status not in (RUNNING, PAUSED) or p.result is not None or g.match_id is not None:
            raise TournamentRefused(RefusalCode.GAME_NOT_WAITING, game=g.id)
        column = GAMES.c.here_white if seat == 0 else GAMES.c.here_black
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(GAMES)
                .where(and_(GAMES.c.id == g.id, column.is_(None), GAMES.c.match_id.is_(None)))
                .values({column.name: self.wall()})
            )
        if done.rowcount != 1:
            raise TournamentRefused(RefusalCode.GAME_ALREADY_HERE, game=g.id)
        name = entries[p.white if seat == 0 else p.black].name
        await self._emit(
            t.id,
            TournamentEventKind.GAME_CHECKED_IN,
            {"game": g.id, "room": g.room_id, "player": player_id, "name": name},
        )
        await self._open_matches(t.id)
        _, g = await self.game(game_id)
        return g

    def _late_entry_open(self, t: Tournament) -> bool:
        return t.format is Format.SWISS and t.status in (RUNNING, PAUSED) and t.round < (t.rounds or 0)

    async def join(self, tid: int, player_id: str, name: str) -> int:
        """Enter a player (late entry: a Swiss with rounds still to pair); returns their entry number."""
        t = await self.get(tid)
        if t.status != SIGNUP and not self._late_entry_open(t):
            raise TournamentRefused(RefusalCode.SIGNUP_CLOSED, name=t.name)
        if t.status == SIGNUP and t.signup_closes_at is not None and self.wall() >= t.signup_closes_at:
            raise TournamentRefused(RefusalCode.SIGNUP_CLOSED_AT, name=t.name, at=t.signup_closes_at)
        entries = await self.entries(tid)
        if any(e.player_id == player_id for e in entries):
            raise TournamentRefused(RefusalCode.ALREADY_JOINED, player=name, name=t.name)
        if t.max_players is not None and sum(not e.withdrawn for e in entries) >= t.max_players:
            raise TournamentRefused(RefusalCode.FULL, name=t.name, most=t.max_players)
        try:
            async with self.engine.begin() as conn:
                eid = int(
                    (
                        await conn.execute(
                            ENTRIES.insert().values(
                                tournament_id=tid, player_id=player_id, name=name[:100], joined_at=self.wall()
                            )
                        )
                    ).inserted_primary_key[0]  # type: ignore[index]
                )
        except IntegrityError:
            raise TournamentRefused(RefusalCode.ALREADY_JOINED, player=name, name=t.name) from None
        if t.status != SIGNUP:
            await self._append_seed(tid, eid)
        await self._emit(
            tid,
            TournamentEventKind.JOINED,
            {"player": player_id, "name": name, "entry": eid, "late": t.status != SIGNUP},
        )
        return eid

    async def _append_seed(self, tid: int, eid: int) -> None:
        async with self.engine.begin() as conn:
            seeds = (await conn.execute(select(TOURNAMENTS.c.seeds).where(TOURNAMENTS.c.id == tid))).scalar_one()
            await conn.execute(update(TOURNAMENTS).where(TOURNAMENTS.c.id == tid).values(seeds=[*seeds, eid]))

    async def leave(self, tid: int, player_id: str, by: str | None = None) -> None:
        """Before the start: take the entry back. After it: withdraw, forfeiting what remains."""
        t = await self.get(tid)
        entry = next((e for e in await self.entries(tid) if e.player_id == player_id), None)
        if entry is None or entry.withdrawn:
            raise TournamentRefused(RefusalCode.NOT_ENTERED, name=t.name)
        if t.status in (FINISHED, CANCELLED):
            raise TournamentRefused(RefusalCode.OVER_NO_WITHDRAW, name=t.name)
        if t.status == SIGNUP:
            async with self.engine.begin() as conn:
                await conn.execute(ENTRIES.delete().where(ENTRIES.c.id == entry.id))
            await self._emit(tid, TournamentEventKind.LEFT, {"player": player_id, "name": entry.name})
            return
        async with self.engine.begin() as conn:
            await conn.execute(update(ENTRIES).where(ENTRIES.c.id == entry.id).values(withdrawn_at=self.wall()))
        entries = {e.id: e for e in await self.entries(tid)}
        closed: list[dict[str, Any]] = []
        for g in await self.games(tid):
            p = g.pairing
            if (
                g.round != t.round
                or not isinstance(p, Game)
                or p.result is not None
                or entry.id not in (p.white, p.black)
            ):
                continue
            winner = Result.BLACK if p.white == entry.id else Result.WHITE
            other = entries[p.black if p.white == entry.id else p.white]
            closed.append(
                {
                    "game": g.id,
                    "board": g.board,
                    "room": g.room_id,
                    "match": g.match_id,
                    "opponent": other.player_id,
                    "opponent_name": other.name,
                    "waiting": g.match_id is None,
                }
            )
        await self._emit(
            tid,
            TournamentEventKind.WITHDRAWN,
            {"player": player_id, "name": entry.name, "by": by, "round": t.round, "games": closed},
        )
        for c in closed:
            g = next(x for x in await self.games(tid) if x.id == c["game"])
            p = g.pairing
            assert isinstance(p, Game)
            winner = Result.BLACK if p.white == entry.id else Result.WHITE
            if g.match_id and g.match_id in self.host.live:
                await self.host.award(g.match_id, 2 if winner is Result.BLACK else 1, withdrawal_by(player_id))
                async with self.engine.begin() as conn:  # recorded by the finished event; a forfeit all the same
                    await conn.execute(update(GAMES).where(GAMES.c.id == g.id).values(forfeit=True))
            elif p.result is None:
                await self._set_result(g.id, winner, withdrawal_by(player_id), forfeit=True)
        await self._advance(tid)

    # -- running -------------------------------------------------------------------
    async def start_tournament(self, tid: int, by: str | None = None, *, left: Sequence[str] = ()) -> None:
        """Close sign-up, seed the field, pair round 1 and open its matches. `left`: player ids of entrants who
        left the server, taken out at the start (the automatic start; a host takes them out by hand first)."""
        t = await self.get(tid)
        if t.status == RUNNING and t.round == 0:  # a start cut short before its first round was stored: resume
            await self.pair_next_round(tid)
            return
        if t.status != SIGNUP:
            raise TournamentRefused(RefusalCode.ALREADY_STARTED, name=t.name)
        entries = [e for e in await self.entries(tid) if not e.withdrawn]
        gone = [e for e in entries if e.player_id in left]
        entries = [e for e in entries if e not in gone]
        absent = [e for e in entries if not e.checked_in] if t.checkin_s is not None else []
        entries = [e for e in entries if e not in absent]
        try:
            rounds = check_field(t.format, len(entries), t.rounds)
        except ValueError:
            need = (t.rounds or 1) + 1 if t.format is Format.SWISS else 2
            raise TournamentRefused(RefusalCode.TOO_FEW, name=t.name, need=max(need, 2), joined=len(entries)) from None
        if t.seeding == "rating" and self.rating_order is not None:
            ordered = list(await self.rating_order(t, entries))
        else:
            ordered = list(self.seed_order(entries))
        seeds = [e.id for e in ordered]
        if sorted(seeds) != sorted(e.id for e in entries):
            raise TournamentRefused(RefusalCode.BAD_SEED_ORDER)
        now = self.wall()
        try:  # round 1 is stored with the start, in its transaction: no kill can leave a start without it
            first = next_round(t.format, seeds, seeds, [], rounds, t.bye_points)
        except PairingError:
            first = None  # paired (or refused) after the start, as any later round
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.status == SIGNUP))
                .values(
                    status=RUNNING,
                    seeds=seeds,
                    rounds=rounds,
                    round=1 if first else 0,
                    updated_at=now,
                    starts_at=t.starts_at if t.starts_at is not None and t.starts_at <= now else now,
                )
            )
            if done.rowcount == 1 and (absent or gone):
                await conn.execute(
                    update(ENTRIES).where(ENTRIES.c.id.in_([e.id for e in [*gone, *absent]])).values(withdrawn_at=now)
                )
            if done.rowcount == 1 and first:
                await self._insert(conn, tid, 1, 1, first, now)
        if done.rowcount != 1:
            raise TournamentRefused(RefusalCode.ALREADY_STARTED, name=t.name)
        await self._emit(
            tid,
            TournamentEventKind.STARTED,
            {
                "by": by,
                "players": len(seeds),
                "rounds": rounds,
                "removed": [e.name for e in absent],
                "left": [e.name for e in gone],
            },
        )
        if not first:
            await self.pair_next_round(tid)
            return
        await self._emit(tid, TournamentEventKind.ROUND, {"round": 1, "pairings": first, "starts_at": now})
        self.wake()
        await self._open_matches(tid)

    async def pair_next_round(self, tid: int) -> int:
        """Pair the next round now (refused while games of this round are unfinished); returns its number."""
        async with self._lock(tid):
            number = await self._pair_locked(tid)
        await self._open_matches(tid)
        return number

    async def _pair_locked(self, tid: int) -> int:
        t = await self.get(tid)
        if t.status != RUNNING:
            raise TournamentRefused(RefusalCode.NOT_RUNNING, name=t.name, status=t.status)
        history = await self.rounds(tid)
        history = history[: t.round]
        if t.round and not round_finished(t.format, history[-1]):
            unfinished = sum(isinstance(p, Game) and p.result is None for p in history[-1])
            raise TournamentRefused(RefusalCode.ROUND_UNFINISHED, round=t.round, games=unfinished)
        entries = await self.entries(tid)
        active = [s for s in t.seeds if not any(e.id == s and e.withdrawn for e in entries)]
        try:
            pairings = next_round(t.format, t.seeds, active, history, t.rounds or 0, t.bye_points)
        except PairingError as exc:
            await self._finish(t, unpaired=exc)
            return t.round
        if pairings is None:
            await self._finish(t)
            return t.round
        number = t.round + 1
        async with self.engine.begin() as conn:
            claimed = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.round == t.round, TOURNAMENTS.c.status == RUNNING))
                .values(round=number, updated_at=self.wall())
            )
            if claimed.rowcount != 1:
                raise TournamentRefused(RefusalCode.ALREADY_PAIRED, round=number, name=t.name)
            starts = self._round_start(t, number)
            await self._insert(conn, tid, number, 1, pairings, starts)
        await self._emit(tid, TournamentEventKind.ROUND, {"round": number, "pairings": pairings, "starts_at": starts})
        self.wake()  # the timer learns the round's start and no-show times
        return number

    def _round_start(self, t: Tournament, number: int) -> dt.datetime:
        """When a round's games start: now, or its scheduled time (`round_every`) if that is later."""
        now = self.wall()
        if t.round_every_s is None or t.starts_at is None:
            return now
        return max(now, t.starts_at + dt.timedelta(seconds=t.round_every_s * (number - 1)))

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

    async def _open_matches(self, tid: int) -> None:
        """Every game of the round still without a match: its room first; then its match, once its time has
        come and (with a per-game check-in) both players are here; or its no-show ruling once the wait is over.
        Each game is claimed first, so only one process opens (or rules) it."""
        async with self._opening.setdefault(tid, asyncio.Lock()):  # one pass at a time here: one room a game
            decided = await self._open_locked(tid)
        if decided:
            await self._advance(tid)

    async def _open_locked(self, tid: int) -> bool:
        t = await self.get(tid)
        if t.status not in (RUNNING, PAUSED):
            return False
        entries = {e.id: e for e in await self.entries(tid)}
        decided = False
        for g in await self.games(tid):
            p = g.pairing
            if not isinstance(p, Game) or p.result is not None or g.match_id not in (None, OPENING):
                continue
            if g.match_id is None and g.room_id is None and self.open_room is not None:
                g = await self._give_room(t, g, p, entries)
            decided |= await self._settle_game(t, g, p, entries)
        return decided

    async def _give_room(self, t: Tournament, g: StoredGame, p: Game, entries: Mapping[int, Entry]) -> StoredGame:
        """A game's room, from the adapter, stored once (it takes the players' check-in before the match)."""
        assert self.open_room is not None
        room = await self.open_room(t, entries[p.white], entries[p.black])
        if room is None:
            return g
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(GAMES).where(and_(GAMES.c.id == g.id, GAMES.c.room_id.is_(None))).values(room_id=room)
            )
        if done.rowcount != 1:
            return (await self.game(g.id))[1]
        g = replace(g, room_id=room)
        deadline = None
        if t.no_show_s is not None and g.starts_at is not None:
            deadline = g.starts_at + dt.timedelta(seconds=t.no_show_s)
        await self._emit(
            t.id,
            TournamentEventKind.GAME_ROOM,
            {
                "game": g.id,
                "round": g.round,
                "board": g.board,
                "room": room,
                "white": entries[p.white].player_id,
                "black": entries[p.black].player_id,
                "names": [entries[p.white].name, entries[p.black].name],
                "starts_at": g.starts_at,
                "checkin": t.no_show_s is not None,
                "deadline": deadline,
            },
        )
        return g

    async def _settle_game(self, t: Tournament, g: StoredGame, p: Game, entries: Mapping[int, Entry]) -> bool:
        """Open the game's match, or rule a no-show, if it is due; True when the game got a result."""
        now = self.wall()
        starts = g.starts_at or now
        if starts > now:
            return False
        if t.no_show_s is None or all(h is not None for h in g.here):
            no_show = False
        elif now >= starts + dt.timedelta(seconds=t.no_show_s):
            no_show = any(h is not None for h in g.here)  # neither came: the match opens and the clocks decide
        else:
            return False
        after = await self._claim(g.id, now)
        if after is None:
            return False
        white, black = entries[p.white], entries[p.black]
        players = [PlayerRef(white.player_id, white.name), PlayerRef(black.player_id, black.name)]
        channel = g.room_id or t.channel_id
        found = await self._created_since(t, players, after) if g.match_id == OPENING else None
        if found is not None:  # a stopped process created it after its claim, and stopped before noting it
            async with self.engine.begin() as conn:
                await conn.execute(update(GAMES).where(GAMES.c.id == g.id).values(match_id=found))
            await self._record_match(found)
            return True
        winner = 1 if g.here[0] is not None else 2
        result = Result.WHITE if winner == 1 else Result.BLACK

        async def rule_game(conn: AsyncConnection, match_id: int) -> None:
            """In the transaction that stores the forfeit: the game's result, on this process's claim only."""
            ruled = await conn.execute(
                update(GAMES)
                .where(and_(GAMES.c.id == g.id, GAMES.c.match_id == OPENING, GAMES.c.opening_by == self.instance))
                .values(match_id=match_id, result=result.value, forfeit=True, decided_by="no_show")
            )
            if ruled.rowcount != 1:
                raise GameTaken(g.id)  # rolls the forfeit back: nothing stored

        try:
            if no_show:
                mid = await self.host.record_forfeit(
                    t.game,
                    players,
                    winner,
                    "no_show",
                    options=t.options,
                    clock=t.clock,
                    rules=t.rules,
                    guild_id=t.guild_id,
                    channel_id=channel,
                    by=f"tournament:{t.id}",
                    rated=t.rated,
                    also=rule_game,  # the forfeit match and the game's result: both stored, or neither
                )
            else:
                mid = await self.host.create_match(
                    t.game,
                    players,
                    options=t.options,
                    clock=t.clock,
                    rules=t.rules,
                    first=1,
                    guild_id=t.guild_id,
                    channel_id=channel,
                    by=f"tournament:{t.id}",
                    rated=t.rated,  # a tournament's games feed the ratings only when it is rated (bot.ratings)
                )
        except HostError:
            log.exception("tournament %s: the match of round %s board %s could not open", t.id, g.round, g.board)
            try:
                stood = await self._ruled_here(g.id) if no_show else None
            except Exception:  # the database cannot say now: the claim goes stale and the game is looked at again
                log.exception("tournament %s: reading back game %s failed", t.id, g.id)
                return False
            if stood is not None:
                mid = stood  # the forfeit was stored after all (its commit was only reported lost)
            else:
                async with self.engine.begin() as conn:  # still our claim, nothing stored: give it back
                    await conn.execute(
                        update(GAMES)
                        .where(
                            and_(GAMES.c.id == g.id, GAMES.c.match_id == OPENING, GAMES.c.opening_by == self.instance)
                        )
                        .values(match_id=None, opening_after=None)
                    )
                return False
        if not no_show:
            async with self.engine.begin() as conn:
                await conn.execute(update(GAMES).where(GAMES.c.id == g.id).values(match_id=mid))
            return False
        absent = black if winner == 1 else white
        await self._emit(
            t.id,
            TournamentEventKind.NO_SHOW,
            {
                "round": g.round,
                "board": g.board,
                "room": channel,
                "match": mid,
                "rated": t.rated,
                "winner": (white if winner == 1 else black).player_id,
                "winner_name": (white if winner == 1 else black).name,
                "absent": absent.player_id,
                "absent_name": absent.name,
            },
        )
        return True

    async def _ruled_here(self, game_id: int) -> int | None:
        """The forfeit match of a game this process ruled a no-show on its own claim, if it is stored."""
        async with self.engine.connect() as conn:
            found = (
                await conn.execute(
                    select(GAMES.c.match_id).where(
                        and_(
                            GAMES.c.id == game_id,
                            GAMES.c.result.is_not(None),
                            GAMES.c.decided_by == "no_show",
                            GAMES.c.opening_by == self.instance,
                            GAMES.c.match_id > 0,
                        )
                    )
                )
            ).scalar()
        return None if found is None else int(found)

    async def _claim(self, game_id: int, now: dt.datetime) -> int | None:
        """Claim a game to open its match: the highest match id before the first claim (None: not ours)."""
        stale = now - dt.timedelta(seconds=STALE_S)
        async with self.engine.begin() as conn:
            holder = (await conn.execute(select(GAMES.c.opening_by).where(GAMES.c.id == game_id))).scalar()
            if gone(holder):  # its process was killed on this machine: no need to wait for the stale time
                stale = now + dt.timedelta(seconds=1)
            top = (await conn.execute(select(func.max(Match.id)))).scalar()
            done = await conn.execute(
                update(GAMES)
                .where(
                    and_(
                        GAMES.c.id == game_id,
                        GAMES.c.result.is_(None),
                        or_(
                            GAMES.c.match_id.is_(None),
                            and_(GAMES.c.match_id == OPENING, GAMES.c.opening_at < stale),
                        ),
                    )
                )
                .values(
                    match_id=OPENING,
                    opening_by=self.instance,
                    opening_at=now,
                    opening_after=func.coalesce(GAMES.c.opening_after, int(top or 0)),
                )
            )
            if done.rowcount != 1:
                return None
            after = (await conn.execute(select(GAMES.c.opening_after).where(GAMES.c.id == game_id))).scalar()
        return int(after or 0)

    async def _created_since(self, t: Tournament, players: Sequence[PlayerRef], after: int) -> int | None:
        """The match of these two players (in their seats) in this server created after match `after`, if any."""
        one, two = MatchPlayer.__table__.alias("one"), MatchPlayer.__table__.alias("two")
        query = (
            select(Match.id)
            .join(one, and_(one.c.match_id == Match.id, one.c.seat == 1, one.c.player_id == players[0].id))
            .join(two, and_(two.c.match_id == Match.id, two.c.seat == 2, two.c.player_id == players[1].id))
            .where(Match.id > after)
            .order_by(Match.id)
            .limit(1)
        )
        query = query.where(Match.guild_id.is_(None) if t.guild_id is None else Match.guild_id == t.guild_id)
        async with self.engine.connect() as conn:
            found = (await conn.execute(query)).scalar()
        return None if found is None else int(found)

    # -- the timer -------------------------------------------------------------------
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

    # -- results -------------------------------------------------------------------
    async def on_host_event(self, event: HostEvent) -> None:
        """The host's event stream: a finished match of a tournament records its result and moves it on."""
        if event.kind != "finished":
            return
        try:
            tid = await self._record_match(event.match_id)
            if tid is not None:
                await self._advance(tid)
        except Exception:
            log.exception("recording match %s in its tournament failed; the timer catches it up", event.match_id)
            self.owed = True
            self.wake()

    async def settle_owed(self) -> None:
        """When a result could not be stored: catch up (every step is idempotent: a result stored by an
        ambiguous commit is found stored, a round already paired is not paired again)."""
        if self.owed:
            self.owed = False
            try:
                await self.catch_up()
            except Exception:
                self.owed = True
                raise

    async def _record_match(self, match_id: int) -> int | None:
        """Read a finished match's stored record into its tournament game; the tournament's id (None: not ours)."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(GAMES).where(GAMES.c.match_id == match_id))).first()
        if row is None or row.result is not None:
            return None if row is None else int(row.tournament_id)
        stored = await self.host.record(match_id)
        if stored is None or stored.status != "finished":
            return int(row.tournament_id)
        seat = stored.winner_seat
        result = Result.WHITE if seat == 1 else Result.BLACK if seat == 2 else Result.DRAW
        await self._set_result(int(row.id), result, None)
        return int(row.tournament_id)

    async def _set_result(self, game_id: int, result: Result, by: str | None, *, forfeit: bool = False) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                update(GAMES).where(GAMES.c.id == game_id).values(result=result.value, decided_by=by, forfeit=forfeit)
            )

    async def adjudicate(self, tid: int, board: int, result: Result | str, by: str, round_: int | None = None) -> None:
        """The host decides a game: a running match ends with that result; a finished one is overridden."""
        t = await self.get(tid)
        try:
            result = Result(result)
        except ValueError:
            raise TournamentRefused(
                RefusalCode.BAD_RESULT, value=str(result), choices=[r.value for r in Result]
            ) from None
        number = round_ or t.round
        games = [g for g in await self.games(tid) if g.round == number and isinstance(g.pairing, Game)]
        if not games:
            raise TournamentRefused(RefusalCode.NO_GAMES, round=number, name=t.name)
        same_board = [g for g in games if g.board == board]
        if not same_board:
            raise TournamentRefused(RefusalCode.NO_BOARD, round=number, boards=[g.board for g in games], board=board)
        g = same_board[0]
        if g.match_id and g.match_id in self.host.live:
            seat = {Result.WHITE: 1, Result.BLACK: 2, Result.DRAW: None}[result]
            await self.host.award(g.match_id, seat, by)  # the finished event records it and moves on
            return
        await self._set_result(g.id, result, by)
        await self._emit(
            tid, TournamentEventKind.RESULT, {"round": number, "board": board, "result": result.value, "by": by}
        )
        await self._advance(tid)

    async def _advance(self, tid: int) -> None:
        """After a result: an elimination tie gets its rematch; a finished round makes the next one (or the end)."""
        async with self._lock(tid):
            t = await self.get(tid)
            if t.status == RUNNING and t.round == 0:  # started, first round never stored: pair it now
                with contextlib.suppress(TournamentRefused):
                    await self._pair_locked(tid)
                t = await self.get(tid)
            if t.status != RUNNING or t.round == 0:
                return
            history = (await self.rounds(tid))[: t.round]
            last = history[-1]
            again = rematches(t.format, history)
            if again:  # a drawn elimination game is replayed at once, colours swapped
                try:
                    async with self.engine.begin() as conn:
                        await self._insert(conn, tid, t.round, len(last) + 1, again, self.wall())
                except IntegrityError:
                    return  # another process added them
                await self._emit(tid, TournamentEventKind.REMATCH, {"round": t.round, "pairings": again})
                self.wake()
            elif round_finished(t.format, last):
                try:
                    await self._pair_locked(tid)
                except TournamentRefused:
                    return  # paired by another process meanwhile
        opening = self._opening.get(tid)
        if opening is not None and opening.locked():
            # A pass over the games runs now (this result may be its own no-show forfeit, heard while it
            # stores it): waiting for it here would wait for ever; the timer makes the next pass.
            self.wake()
            return
        await self._open_matches(tid)

    async def _finish(self, t: Tournament, unpaired: PairingError | None = None) -> None:
        """The end: the winner is the table's first; `unpaired`: why the next round could not be paired, if it
        ended early (its `detail` is the pairing core's own reason, as an engine's reason for an illegal move)."""
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == t.id, TOURNAMENTS.c.status == RUNNING))
                .values(status=FINISHED, updated_at=self.wall())
            )
        if done.rowcount != 1:
            return
        table = await self.standings(t.id)
        names = await self.names(t.id)
        winner = table[0].player if table else None
        await self._emit(
            t.id,
            TournamentEventKind.FINISHED,
            {
                "name": t.name,
                "winner": winner,
                "winner_name": names.get(winner or 0),
                "prize": t.prize,
                "unpaired": None if unpaired is None else t.round + 1,
                "detail": None if unpaired is None else str(unpaired),
            },
        )

    # -- the host's hand -----------------------------------------------------------
    async def pause(self, tid: int, by: str) -> None:
        """Stop pairing new rounds (matches already open go on)."""
        t = await self.get(tid)
        if not await self._move_status(tid, RUNNING, PAUSED):
            raise TournamentRefused(RefusalCode.NOT_RUNNING, name=t.name, status=t.status)
        await self._emit(tid, TournamentEventKind.PAUSED, {"by": by})

    async def resume(self, tid: int, by: str) -> None:
        """Pair again (at once, if the round ended meanwhile)."""
        t = await self.get(tid)
        if not await self._move_status(tid, PAUSED, RUNNING):
            raise TournamentRefused(RefusalCode.NOT_PAUSED, name=t.name, status=t.status)
        await self._emit(tid, TournamentEventKind.RESUMED, {"by": by})
        await self._catch_up(tid)

    async def cancel(self, tid: int, by: str) -> None:
        """End the tournament without a winner; its running matches are aborted."""
        t = await self.get(tid)
        if t.status in (FINISHED, CANCELLED):
            raise TournamentRefused(RefusalCode.ALREADY_OVER, name=t.name)
        if not await self._move_status(tid, t.status, CANCELLED):
            raise TournamentRefused(RefusalCode.CHANGED, name=t.name)
        for g in await self.games(tid):
            if g.match_id and g.match_id in self.host.live:
                await self.host.abort(g.match_id, by)
        await self._emit(tid, TournamentEventKind.CANCELLED, {"by": by})

    async def _move_status(self, tid: int, old: str, new: str) -> bool:
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.status == old))
                .values(status=new, updated_at=self.wall())
            )
        return bool(done.rowcount == 1)

    # -- plumbing ------------------------------------------------------------------
    def _lock(self, tid: int) -> asyncio.Lock:
        return self._locks.setdefault(tid, asyncio.Lock())

    async def _emit(self, tid: int, kind: TournamentEventKind, data: dict[str, Any]) -> None:
        ev = TournamentEvent(tid, kind, data)
        for listener in list(self._listeners):
            try:
                result = listener(ev)
                if asyncio.iscoroutine(result):
                    await result
            except Exception:
                log.exception("tournament listener failed for %s", kind)
