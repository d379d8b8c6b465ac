"""The tournament's values: a tournament, an entry and a game as stored, the events adapters announce, and the
hooks an adapter gives the service (pure values; the SQL that reads them is in `bot.tournaments.core`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.tournaments.rounds import Bye, Format, Game, Pairing, Result

SIGNUP = "signup"
RUNNING = "running"
PAUSED = "paused"
FINISHED = "finished"
CANCELLED = "cancelled"
OPENING = 0  # match_id while a process opens the game's match
STALE_S = 300.0
"""A game claimed this long ago by a process that never finished opening it is taken over."""
POLL_S = 60.0
"""The jobs runner also looks at the jobs table this often (jobs added by other processes)."""
SEEDINGS = ("joined", "rating")
MISSED_WITHDRAW = "withdraw"
"""`missed:withdraw`: lichess's rule for a missed game (see `Tournament.missed`)."""


@dataclass(frozen=True)
class Entry:
    """A player's entry: `id` is their number in pairings."""

    id: int
    player_id: str
    name: str
    withdrawn: bool
    checked_in: bool = False
    missed_round: int | None = None
    """Under `missed:withdraw`: the round whose game they missed, unconfirmed (withdrawn at the next pairing)."""


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
    missed: str | None = None
    """What a missed game does: None, the player plays on; `withdraw` (lichess's rule): they are withdrawn
    at the next pairing unless they confirm they play on (`/dm tournament stay`)."""

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
    STAYS = "stays"  # player, name, round (the missed round they confirmed playing on after)
    WITHDRAWN = "withdrawn"  # player, name, by, round, missed (under `missed:withdraw`: the round missed),
    # games (the round's open games it forfeits: game, board,
    # room, match, opponent (id), opponent_name, waiting: still waiting for check-in) (after the start)
    CHECKED_IN = "checked_in"  # player, name
    GAME_CHECKED_IN = "game_checked_in"  # game, room, player, name
    STARTED = "started"  # by, players, rounds, removed (names of those who did not check in), left (names of
    # those taken out at the automatic start because they left the server)
    ROUND = "round"  # round, pairings, starts_at
    ROUND_SOON = "round_soon"  # round, starts_at, before (seconds), players (ids of those whose game waits),
    # checkin (whether each game waits for both players' I'm here)
    GAME_ROOM = "game_room"  # game, round, board, room, white, black (ids), names, starts_at, checkin, deadline
    NO_SHOW = "no_show"  # round, board, room, match, rated, winner, winner_name, absent, absent_name, confirm,
    # tournament (id) (under `missed:withdraw`: the absent player is withdrawn at the next pairing unless they confirm)
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


def join_order(entries: Sequence[Entry]) -> Sequence[Entry]:
    return entries


def tournament_of(row: Any) -> Tournament:
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
        missed=row.missed,
    )


def game_of(row: Any) -> StoredGame:
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
