"""The pure part of the ratings: which matches are rated, and the Glicko-2 replay of rated matches into
tables (no database, no clock, no garbage-collector switching: `bot.ratings.store` reads and writes
the tables, `bot.ratings.service` is the subscriber).

`apply_match` rates one match into a table held in memory; `replay` rates a whole history, with the very
same arithmetic, into empty tables.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from bot.ratings.glicko import PARAMS, Params, Rating, grown_deviation, rate_match, rate_pair
from bot.types import MatchStatus

if TYPE_CHECKING:
    from bot.store.matches import StoredMatch

__all__ = [
    "NO_GUILD",
    "PRACTICE_IDS",
    "ChangeRow",
    "Figures",
    "Key",
    "RatedMatch",
    "apply_match",
    "guild_key",
    "guild_of",
    "rated_from",
    "rated_match",
    "replay",
]

NO_GUILD = 0
"""The tables' server key of the terminal room (no server)."""

PRACTICE_IDS = frozenset({"local:dmhost-bot"})
"""Player ids of the practice opponent in the terminal room (a match against it is never rated)."""


def guild_key(guild_id: int | None) -> int:
    """The tables' key of a server (0: no server, the terminal room)."""
    return NO_GUILD if guild_id is None else int(guild_id)


def guild_of(key: int) -> int | None:
    """Inverse of `guild_key`."""
    return None if key == NO_GUILD else key


class RatedMatch(NamedTuple):
    """What rating a match needs: where, which game, when it ended, who played, how it went."""

    id: int
    guild_key: int
    game: str
    at: dt.datetime
    players: tuple[tuple[str, str], tuple[str, str]]
    """Seat 1 and seat 2: (player id, name)."""
    score: float
    """Seat 1's score: 1 won, 0.5 draw, 0 lost."""
    channel_id: int | None = None


def rated_match(m: StoredMatch, practice_ids: Iterable[str] = PRACTICE_IDS) -> RatedMatch | None:
    """The match as rating sees it, or None when it is not rated: rated means finished (not aborted) with
    a result, between two different players, neither the practice opponent, and not marked casual. A host's
    award and a forfeit are results like any other; a result without a winner is a draw."""
    return rated_from(
        m.id, m.status, m.rated, m.guild_id, m.game, m.finished_at, m.winner_seat, m.channel_id, m.players, practice_ids
    )


def rated_from(
    match_id: int,
    status: str,
    rated: bool | None,
    guild_id: int | None,
    game: str,
    finished_at: dt.datetime | None,
    winner_seat: int | None,
    channel_id: int | None,
    players: dict[int, tuple[str, str]],
    practice_ids: Iterable[str],
) -> RatedMatch | None:
    """`rated_match` from a match's stored columns (its players by seat: (id, name))."""
    if status != MatchStatus.FINISHED or rated is False or finished_at is None or set(players) != {1, 2}:
        return None
    one, two = players[1], players[2]
    if one[0] == two[0] or one[0] in practice_ids or two[0] in practice_ids:
        return None
    score = 1.0 if winner_seat == 1 else 0.0 if winner_seat == 2 else 0.5
    return RatedMatch(match_id, guild_key(guild_id), game, finished_at, (one, two), score, channel_id)


class Figures(NamedTuple):
    """A player's row in a table."""

    name: str
    rating: Rating
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    streak: int = 0
    last_match: int = 0


class ChangeRow(NamedTuple):
    """One player's side of a rated match."""

    match_id: int
    seat: int
    guild_key: int
    game: str
    player_id: str
    opponent_id: str
    score: float
    rating_before: float
    deviation_before: float
    rating_after: float
    deviation_after: float
    volatility_after: float
    at: dt.datetime


Key = tuple[int, str, str]
"""(guild key, game, player id)."""


def apply_match(table: dict[Key, Figures], m: RatedMatch, params: Params = PARAMS) -> list[ChangeRow]:
    """Rate one match into `table` (players not in it start unrated); the two change rows."""
    keys = [(m.guild_key, m.game, pid) for pid, _ in m.players]
    before = [table.get(k) or Figures(name, Rating.new(params)) for k, (_, name) in zip(keys, m.players, strict=True)]
    after = rate_match(before[0].rating, before[1].rating, m.score, m.at, params)
    rows = []
    for i in range(2):
        score = m.score if i == 0 else 1.0 - m.score
        f = before[i]
        won, lost = score == 1.0, score == 0.0
        streak = (max(f.streak, 0) + 1) if won else (min(f.streak, 0) - 1) if lost else 0
        new = after[i]
        table[keys[i]] = Figures(
            m.players[i][1],
            new.rating,
            f.games + 1,
            f.wins + won,
            f.losses + lost,
            f.draws + (not won and not lost),
            streak,
            m.id,
        )
        rows.append(
            ChangeRow(
                m.id,
                i + 1,
                m.guild_key,
                m.game,
                m.players[i][0],
                m.players[1 - i][0],
                score,
                f.rating.rating,
                new.deviation_before,
                new.rating.rating,
                new.rating.deviation,
                new.rating.volatility,
                m.at,
            )
        )
    return rows


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MICROSECOND = dt.timedelta(microseconds=1)


def replay(matches: Iterable[RatedMatch], params: Params = PARAMS) -> tuple[dict[Key, Figures], list[ChangeRow]]:
    """Rate `matches` (in the order they ended) into empty tables: the tables and every change row, the
    very figures `apply_match` makes one match at a time (the same arithmetic: `grown_deviation` and
    `rate_pair`), without its per-match tuples: each player's state is one list, times are integer
    microseconds (their differences are exactly `timedelta.total_seconds()`)."""
    state: dict[Key, list[Any]] = {}
    changes: list[ChangeRow] = []
    add = changes.append
    start = (params.start_rating, params.start_deviation, params.start_volatility)
    for m in matches:
        at = m.at
        us = (at - _EPOCH) // _MICROSECOND
        (id_a, name_a), (id_b, name_b) = m.players
        key_a, key_b = (m.guild_key, m.game, id_a), (m.guild_key, m.game, id_b)
        a = state.get(key_a)
        if a is None:
            a = state[key_a] = [name_a, *start, None, 0, 0, 0, 0, 0, 0, None]
        b = state.get(key_b)
        if b is None:
            b = state[key_b] = [name_b, *start, None, 0, 0, 0, 0, 0, 0, None]
        dev_a = grown_deviation(a[2], a[3], None if a[4] is None else (us - a[4]) / 1_000_000, params)
        dev_b = grown_deviation(b[2], b[3], None if b[4] is None else (us - b[4]) / 1_000_000, params)
        score = m.score
        new_a, new_b = rate_pair(a[1], dev_a, a[3], b[1], dev_b, b[3], score, params)
        add(ChangeRow(m.id, 1, m.guild_key, m.game, id_a, id_b, score, a[1], dev_a, *new_a, at))
        add(ChangeRow(m.id, 2, m.guild_key, m.game, id_b, id_a, 1.0 - score, b[1], dev_b, *new_b, at))
        a[:6] = (name_a, *new_a, us, a[5] + 1)
        b[:6] = (name_b, *new_b, us, b[5] + 1)
        if score not in (1.0, 0.0):
            a[8] += 1
            b[8] += 1
            a[9] = b[9] = 0
        else:
            winner, loser = (a, b) if score == 1.0 else (b, a)
            winner[6] += 1
            winner[9] = max(winner[9], 0) + 1
            loser[7] += 1
            loser[9] = min(loser[9], 0) - 1
        a[10] = b[10] = m.id
        a[11] = b[11] = at
    table = {k: Figures(s[0], Rating(s[1], s[2], s[3], s[11]), *s[5:11]) for k, s in state.items()}
    return table, changes
