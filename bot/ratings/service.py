"""Ratings beside the host core: rates each finished rated match, keeps the tables, answers look-ups.

`Ratings.attach(service)` subscribes to the host service's events: when a match finishes, its stored
record is read back (`MatchStore.load`) and, when it is rated, both players' figures are updated in
one transaction together with the match's two `rating_changes` rows. Rating a match twice is a no-op,
so the announcer may ask for a match's changes (`settle`) whatever order the listeners run in.

Everything is derived from the stored matches in the order they ended (`finished_at`, then id):
`rebuild` recomputes every table from scratch and reports what differed. When a match is rated after
a later match of one of its players (two results committed in the same instant), that server's and
game's table is recomputed, so the stored figures always equal the rebuild's.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import gc
import logging
import math
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import String, and_, bindparam, delete, func, insert, or_, select, type_coerce, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.ratings.glicko import (
    PARAMS,
    Params,
    Rating,
    deviation_at,
    grown_deviation,
    is_provisional,
    rate_match,
    rate_pair,
)
from bot.ratings.models import NO_GUILD, PlayerRating, RatingChange
from bot.store.db import Match, MatchPlayer, UTCDateTime, utcnow
from bot.store.matches import MatchStore, StoredMatch

log = logging.getLogger(__name__)

PRACTICE_IDS = frozenset({"local:dmhost-bot"})
"""Player ids of the practice opponent in the terminal room (a match against it is never rated)."""

ADVANTAGE_MODES = ("lower-rated", "higher-rated")

RETRY_FIRST_S = 1.0
RETRY_MAX_S = 60.0
"""A rating that could not be stored is caught up after 1 s, then after twice as long each time."""


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
    return _rated(
        m.id, m.status, m.rated, m.guild_id, m.game, m.finished_at, m.winner_seat, m.channel_id, m.players, practice_ids
    )


def _rated(
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
    if status != "finished" or rated is False or finished_at is None or set(players) != {1, 2}:
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


@dataclass(frozen=True)
class Standing:
    """A player's place in a server's table for one game, as shown now (deviation grown with inactivity)."""

    guild: int | None
    game: str
    player_id: str
    name: str
    rating: float
    deviation: float
    provisional: bool
    games: int
    wins: int
    losses: int
    draws: int
    streak: int
    last_at: dt.datetime
    rank: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The `dmhost ratings --json` entry."""
        return {
            "player": self.name,
            "id": self.player_id,
            "game": self.game,
            "rating": round(self.rating, 1),
            "deviation": round(self.deviation, 1),
            "provisional": self.provisional,
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
        }


@dataclass(frozen=True)
class PlayerChange:
    """One player's rating change in one match."""

    seat: int
    player_id: str
    name: str
    before: float
    after: float
    provisional: bool

    @property
    def delta(self) -> float:
        """After minus before."""
        return self.after - self.before


@dataclass(frozen=True)
class MatchRating:
    """What a rated match did to both players."""

    match_id: int
    guild: int | None
    game: str
    changes: tuple[PlayerChange, ...]


@dataclass(frozen=True)
class Result:
    """One of a player's past rated matches."""

    match_id: int
    opponent_id: str
    opponent: str
    score: float
    rating_after: float
    delta: float
    at: dt.datetime
    channel_id: int | None


@dataclass(frozen=True)
class GameProfile:
    """A player's figures in one game of one server."""

    standing: Standing
    recent: list[Result]
    history: list[tuple[dt.datetime, float]]
    """(when, rating after) of every rated match, oldest first."""
    head_to_head: tuple[int, int, int] | None = None
    """Against the other member asked about: wins, losses, draws (None when nobody was asked about)."""


@dataclass
class RebuildReport:
    """What `rebuild` did."""

    matches: int
    changed: int
    by_table: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, int]:
        """`{"matches": N, "changed": K}`."""
        return {"matches": self.matches, "changed": self.changed}


class Ratings:
    """The ratings of every server and game, in the host's database."""

    def __init__(
        self,
        store: MatchStore,
        params: Params = PARAMS,
        *,
        practice_ids: Iterable[str] = PRACTICE_IDS,
        clock: Any = utcnow,
    ) -> None:
        self.store = store
        self.engine = store.engine
        self.params = params
        self.practice_ids = frozenset(practice_ids)
        self.clock = clock
        """Aware UTC now, for the deviation shown (it grows with the time since a player's last match)."""
        self._lock = asyncio.Lock()
        self._retry: asyncio.Task[None] | None = None

    # -- the subscriber --------------------------------------------------------------
    def attach(self, service: Any) -> None:
        """Rate every match the service finishes (`service.subscribe`)."""
        service.subscribe(self.on_event)

    async def on_event(self, ev: Any) -> None:
        """A host event: a finished match is rated. A rating that cannot be stored (the database failed,
        or its commit's outcome is unknown) is owed, not lost: the finished match row is the record of
        what is owed (a rated, finished match without `rating_changes` rows), and `catch_up` rates it,
        in a retry started here and at every start of every face."""
        if getattr(ev, "kind", None) != "finished":
            return
        try:
            await self.settle(int(ev.match_id))
        except Exception:
            log.exception("rating match %s failed; it is rated by the next catch-up", ev.match_id)
            self._owe()

    def _owe(self) -> None:
        if self._retry is None or self._retry.done():
            self._retry = asyncio.get_running_loop().create_task(self._catch_up_later())

    async def _catch_up_later(self) -> None:
        """Catch up until it succeeds: after 1 s, then twice as long each time, at most a minute."""
        pause = RETRY_FIRST_S
        while True:
            await asyncio.sleep(pause)
            try:
                await self.catch_up()
                return
            except Exception:
                log.exception("catching the ratings up failed; trying again in %.0f s", pause)
                pause = min(pause * 2, RETRY_MAX_S)

    async def close(self) -> None:
        """Stop a pending retry (what it owed is caught up at the next start)."""
        if self._retry is not None:
            self._retry.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retry
            self._retry = None

    async def settle(self, match_id: int) -> MatchRating | None:
        """Rate a finished match once (later calls return the same figures); None when it is not rated."""
        async with self._lock:
            stored = await self.store.load(match_id)
            m = None if stored is None else rated_match(stored, self.practice_ids)
            if m is None:
                return None
            async with self.engine.begin() as conn:
                done = (
                    await conn.execute(
                        select(RatingChange).where(RatingChange.match_id == match_id).order_by(RatingChange.seat)
                    )
                ).all()
                if done:
                    return self._match_rating(m, done, await _games_through(conn, done))
                changes = await self._rate_one(conn, m)
                games = None if changes is None else await _games_through(conn, changes)
            if changes is None or games is None:
                return await self.of_match(match_id)
            return self._match_rating(m, changes, games)

    def _match_rating(self, m: RatedMatch, rows: Sequence[Any], games: dict[str, int]) -> MatchRating:
        names = dict(m.players)
        return MatchRating(
            m.id,
            guild_of(m.guild_key),
            m.game,
            tuple(
                PlayerChange(
                    r.seat,
                    r.player_id,
                    names.get(r.player_id, r.player_id),
                    r.rating_before,
                    r.rating_after,
                    is_provisional(r.deviation_after, games.get(r.player_id, 0), self.params),
                )
                for r in rows
            ),
        )

    async def _rate_one(self, conn: AsyncConnection, m: RatedMatch) -> list[ChangeRow] | None:
        """Rate `m` into the stored table; None when its server's and game's table had to be recomputed."""
        ids = [pid for pid, _ in m.players]
        rows = (
            await conn.execute(
                select(PlayerRating).where(
                    PlayerRating.guild_key == m.guild_key, PlayerRating.game == m.game, PlayerRating.player_id.in_(ids)
                )
            )
        ).all()
        if any((r.last_at, r.last_match) > (m.at, m.id) for r in rows):
            log.info("match %s ended before a rated match of its players: recomputing %s", m.id, m.game)
            await self._recompute_scope(conn, m.guild_key, m.game)
            return None
        table = {(m.guild_key, m.game, r.player_id): _figures(r) for r in rows}
        known = set(table)
        changes = apply_match(table, m, self.params)
        for key, figures in table.items():
            values = _row_values(key, figures)
            if key in known:
                await conn.execute(
                    update(PlayerRating)
                    .where(
                        PlayerRating.guild_key == key[0], PlayerRating.game == key[1], PlayerRating.player_id == key[2]
                    )
                    .values(values)
                )
            else:
                await conn.execute(insert(PlayerRating).values(values))
        await conn.execute(insert(RatingChange), [_change_values(c) for c in changes])
        return changes

    async def _recompute_scope(self, conn: AsyncConnection, key: int, game: str) -> None:
        table, changes = replay(await self._load_rated(conn, key, game), self.params)
        await conn.execute(delete(RatingChange).where(RatingChange.guild_key == key, RatingChange.game == game))
        await conn.execute(delete(PlayerRating).where(PlayerRating.guild_key == key, PlayerRating.game == game))
        to_stored = _stored_time(conn)
        await _insert_rows(conn, PlayerRating, list(_player_tuples(table, to_stored).values()))
        await _insert_rows(conn, RatingChange, list(_change_tuples(changes, to_stored).values()))

    async def catch_up(self, owns: Callable[[int | None], bool] | None = None) -> int:
        """Rate, in the order they ended, every rated match that is not rated yet (matches that ended while
        no subscriber listened, e.g. just before a crash), of the servers `owns` accepts (a process of a
        sharded bot: its own); returns how many were rated. One transaction: the players' rows are read
        once, updated in memory exactly as `settle` would, and written back."""
        async with self._lock, self.engine.begin() as conn, _collector_paused():
            pending = [
                m for m in await self._load_rated(conn, pending=True) if owns is None or owns(guild_of(m.guild_key))
            ]
            if not pending:
                return 0
            wanted = {pid for m in pending for pid, _ in m.players}
            scopes = {(m.guild_key, m.game) for m in pending}
            rows = (await conn.execute(select(PlayerRating).where(PlayerRating.player_id.in_(wanted)))).all()
            table = {(r.guild_key, r.game, r.player_id): _figures(r) for r in rows if (r.guild_key, r.game) in scopes}
            known = set(table)
            recompute: set[tuple[int, str]] = set()
            changes: list[ChangeRow] = []
            for m in pending:
                scope = (m.guild_key, m.game)
                if scope in recompute:
                    continue
                keys = [(m.guild_key, m.game, pid) for pid, _ in m.players]
                if any(k in table and (table[k].rating.at, table[k].last_match) > (m.at, m.id) for k in keys):
                    recompute.add(scope)  # ended before a rated match of its players: recomputed below
                    continue
                changes += apply_match(table, m, self.params)
            for scope in recompute:
                await self._recompute_scope(conn, *scope)
            fresh = {k: f for k, f in table.items() if k[:2] not in recompute}
            await _write_players(conn, {k: f for k, f in fresh.items() if k in known}, update_rows=True)
            await _write_players(conn, {k: f for k, f in fresh.items() if k not in known}, update_rows=False)
            rows_out = [_change_values(c) for c in changes if (c.guild_key, c.game) not in recompute]
            for start in range(0, len(rows_out), 5000):
                await conn.execute(insert(RatingChange), rows_out[start : start + 5000])
        return len(pending)

    async def _load_rated(
        self, conn: AsyncConnection, key: int | None = None, game: str | None = None, *, pending: bool = False
    ) -> list[RatedMatch]:
        """Every rated match (of one server and game; only those not rated yet), in the order they ended."""
        query = (
            select(
                Match.id,
                Match.status,
                Match.rated,
                Match.guild_id,
                Match.game,
                _when(conn, Match.finished_at),
                Match.winner_seat,
                Match.channel_id,
                MatchPlayer.seat,
                MatchPlayer.player_id,
                MatchPlayer.name,
            )
            .join(MatchPlayer, MatchPlayer.match_id == Match.id)
            .where(Match.status == "finished", or_(Match.rated.is_(None), Match.rated.is_(True)))
            .order_by(Match.finished_at, Match.id, MatchPlayer.seat)
        )
        if key is not None:
            query = query.where(Match.guild_id.is_(None) if key == NO_GUILD else Match.guild_id == key)
        if game is not None:
            query = query.where(Match.game == game)
        if pending:
            query = query.where(Match.id.not_in(select(RatingChange.match_id)))
        rows = (await conn.execute(query)).all()
        out: list[RatedMatch] = []
        practice = self.practice_ids
        i, n = 0, len(rows)
        while i < n:
            r = rows[i]
            j = i + 1
            while j < n and rows[j][0] == r[0]:
                j += 1
            players = {p[8]: (p[9], p[10]) for p in rows[i:j]}
            i = j
            m = _rated(r[0], r[1], r[2], r[3], r[4], _aware(r[5]), r[6], r[7], players, practice)
            if m is not None:
                out.append(m)
        return out

    # -- rebuilding ------------------------------------------------------------------
    async def rebuild(self) -> RebuildReport:
        """Recompute every table from the stored matches; rewrite them when anything differed."""
        async with self._lock, self.engine.begin() as conn, _collector_paused():
            matches = await self._load_rated(conn)
            table, changes = replay(matches, self.params)
            to_stored = _stored_time(conn)
            players = _player_tuples(table, to_stored)
            rows = _change_tuples(changes, to_stored)
            changed_players = _differences(players, await _stored_rows(conn, PlayerRating, 3))
            changed_changes = _differences(rows, await _stored_rows(conn, RatingChange, 2))
            report = RebuildReport(
                len(matches),
                changed_players + changed_changes,
                {"player_ratings": changed_players, "rating_changes": changed_changes},
            )
            if report.changed:
                await conn.execute(delete(RatingChange))
                await conn.execute(delete(PlayerRating))
                await _insert_rows(conn, PlayerRating, list(players.values()))
                await _insert_rows(conn, RatingChange, list(rows.values()))
        return report

    async def mark_casual(self, player_id: str) -> int:
        """Mark the unmarked matches of a player as casual (the Discord practice opponent, whose id only the
        bot knows); when any were rated, the tables are rebuilt. Returns how many matches were marked."""
        async with self.engine.begin() as conn:
            ids = select(MatchPlayer.match_id).where(MatchPlayer.player_id == player_id)
            marked = (
                await conn.execute(update(Match).where(Match.rated.is_(None), Match.id.in_(ids)).values(rated=False))
            ).rowcount
        if marked:
            await self.rebuild()
        return int(marked or 0)

    # -- reading ---------------------------------------------------------------------
    async def of_match(self, match_id: int) -> MatchRating | None:
        """A rated match's changes (None when it was not rated, or not yet)."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(RatingChange).where(RatingChange.match_id == match_id).order_by(RatingChange.seat)
                )
            ).all()
            if not rows:
                return None
            names = dict(
                (
                    await conn.execute(
                        select(MatchPlayer.player_id, MatchPlayer.name).where(MatchPlayer.match_id == match_id)
                    )
                ).all()
            )
            games = await _games_through(conn, rows)
        return MatchRating(
            match_id,
            guild_of(rows[0].guild_key),
            rows[0].game,
            tuple(
                PlayerChange(
                    r.seat,
                    r.player_id,
                    names.get(r.player_id, r.player_id),
                    r.rating_before,
                    r.rating_after,
                    is_provisional(r.deviation_after, games.get(r.player_id, 0), self.params),
                )
                for r in rows
            ),
        )

    def _standing(self, r: Any, rank: int | None = None) -> Standing:
        now = self.clock()
        deviation = deviation_at(Rating(r.rating, r.deviation, r.volatility, r.last_at), now, self.params)
        return Standing(
            guild_of(r.guild_key),
            r.game,
            r.player_id,
            r.name,
            r.rating,
            deviation,
            is_provisional(deviation, r.games, self.params),
            r.games,
            r.wins,
            r.losses,
            r.draws,
            r.streak,
            r.last_at,
            rank,
        )

    async def leaderboard(self, guild: int | None, game: str, limit: int = 20, offset: int = 0) -> list[Standing]:
        """The best `limit` players of a server's table for a game, best first (ranked)."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(PlayerRating)
                    .where(PlayerRating.guild_key == guild_key(guild), PlayerRating.game == game)
                    .order_by(PlayerRating.rating.desc(), PlayerRating.player_id)
                    .limit(limit)
                    .offset(offset)
                )
            ).all()
        return [self._standing(r, offset + i + 1) for i, r in enumerate(rows)]

    async def count(self, guild: int | None, game: str) -> int:
        """How many players a server's table for a game has."""
        async with self.engine.connect() as conn:
            n = (
                await conn.execute(
                    select(func.count())
                    .select_from(PlayerRating)
                    .where(PlayerRating.guild_key == guild_key(guild), PlayerRating.game == game)
                )
            ).scalar_one()
        return int(n)

    async def table(self, guild: int | None, game: str | None = None) -> list[Standing]:
        """A server's whole table (one game, or every game by game id), best first."""
        query = select(PlayerRating).where(PlayerRating.guild_key == guild_key(guild))
        if game is not None:
            query = query.where(PlayerRating.game == game)
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    query.order_by(PlayerRating.game, PlayerRating.rating.desc(), PlayerRating.player_id)
                )
            ).all()
        out: list[Standing] = []
        for r in rows:
            rank = 1 if not out or out[-1].game != r.game else (out[-1].rank or 0) + 1
            out.append(self._standing(r, rank))
        return out

    async def standing(self, guild: int | None, game: str, player_id: str) -> Standing | None:
        """One player's row with their rank (None: no rated match in this server and game)."""
        key = guild_key(guild)
        async with self.engine.connect() as conn:
            r = (
                await conn.execute(
                    select(PlayerRating).where(
                        PlayerRating.guild_key == key, PlayerRating.game == game, PlayerRating.player_id == player_id
                    )
                )
            ).first()
            if r is None:
                return None
            above = (
                await conn.execute(
                    select(func.count())
                    .select_from(PlayerRating)
                    .where(
                        PlayerRating.guild_key == key,
                        PlayerRating.game == game,
                        or_(
                            PlayerRating.rating > r.rating,
                            and_(PlayerRating.rating == r.rating, PlayerRating.player_id < player_id),
                        ),
                    )
                )
            ).scalar_one()
        return self._standing(r, int(above) + 1)

    async def games_of(self, guild: int | None, player_id: str) -> list[str]:
        """The games a player has a rating in, in this server."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(PlayerRating.game)
                    .where(PlayerRating.guild_key == guild_key(guild), PlayerRating.player_id == player_id)
                    .order_by(PlayerRating.game)
                )
            ).all()
        return [r[0] for r in rows]

    async def profile(
        self, guild: int | None, player_id: str, *, versus: str | None = None, game: str | None = None, recent: int = 10
    ) -> list[GameProfile]:
        """Per game: the standing, the last `recent` results, the rating history, and the record against
        `versus` when given."""
        key = guild_key(guild)
        out = []
        for g in [game] if game is not None else await self.games_of(guild, player_id):
            standing = await self.standing(guild, g, player_id)
            if standing is None:
                continue
            async with self.engine.connect() as conn:
                rows = (
                    await conn.execute(
                        select(RatingChange, Match.channel_id)
                        .join(Match, Match.id == RatingChange.match_id)
                        .where(
                            RatingChange.guild_key == key, RatingChange.game == g, RatingChange.player_id == player_id
                        )
                        .order_by(RatingChange.at, RatingChange.match_id)
                    )
                ).all()
                opponent_ids = {r.opponent_id for r in rows[-recent:]}
                names = dict(
                    (
                        await conn.execute(
                            select(PlayerRating.player_id, PlayerRating.name).where(
                                PlayerRating.guild_key == key,
                                PlayerRating.game == g,
                                PlayerRating.player_id.in_(opponent_ids),
                            )
                        )
                    ).all()
                )
            results = [
                Result(
                    r.match_id,
                    r.opponent_id,
                    names.get(r.opponent_id, r.opponent_id),
                    r.score,
                    r.rating_after,
                    r.rating_after - r.rating_before,
                    r.at,
                    r.channel_id,
                )
                for r in reversed(rows[-recent:])
            ]
            h2h = None
            if versus is not None:
                mine = [r.score for r in rows if r.opponent_id == versus]
                h2h = (mine.count(1.0), mine.count(0.0), mine.count(0.5))
            out.append(GameProfile(standing, results, [(r.at, r.rating_after) for r in rows], h2h))
        return out

    # -- for hosts: seeding and advantage ---------------------------------------------
    async def ratings_of(self, guild: int | None, game: str, players: Sequence[str]) -> dict[str, float]:
        """Current ratings of some players (an unrated player: the start rating)."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(PlayerRating.player_id, PlayerRating.rating).where(
                        PlayerRating.guild_key == guild_key(guild),
                        PlayerRating.game == game,
                        PlayerRating.player_id.in_(list(players)),
                    )
                )
            ).all()
        known = {r.player_id: float(r.rating) for r in rows}
        return {p: known.get(p, self.params.start_rating) for p in players}

    async def seed_order(self, guild: int | None, game: str, players: Sequence[str]) -> list[str]:
        """`players` ordered for seeding: highest rating first; equal ratings (the unrated) keep the given order."""
        ratings = await self.ratings_of(guild, game, players)
        return sorted(dict.fromkeys(players), key=lambda p: -ratings[p])

    async def advantage_seat(self, guild: int | None, game: str, players: Sequence[str], mode: str) -> int:
        """The seat (1 or 2) that gets the advantage: the `lower-rated` or `higher-rated` of the two players;
        equal ratings give it to seat 1."""
        if mode not in ADVANTAGE_MODES:
            raise ValueError(f"advantage is {' or '.join(ADVANTAGE_MODES)}, not {mode!r}")
        if len(players) != 2:
            raise ValueError("the advantage is decided between two players")
        ratings = await self.ratings_of(guild, game, players)
        one, two = ratings[players[0]], ratings[players[1]]
        if one == two:
            return 1
        return (1 if one < two else 2) if mode == "lower-rated" else (1 if one > two else 2)


_VALUE_COLUMNS = (
    "name",
    "rating",
    "deviation",
    "volatility",
    "games",
    "wins",
    "losses",
    "draws",
    "streak",
    "last_at",
    "last_match",
)


async def _games_through(conn: AsyncConnection, rows: Sequence[Any]) -> dict[str, int]:
    """Each player's rated games in the match's server and game up to and including that match (for its
    change rows: whether the rating was still provisional after it)."""
    games: dict[str, int] = {}
    for r in rows:
        games[r.player_id] = int(
            (
                await conn.execute(
                    select(func.count())
                    .select_from(RatingChange)
                    .where(
                        RatingChange.guild_key == r.guild_key,
                        RatingChange.game == r.game,
                        RatingChange.player_id == r.player_id,
                        or_(RatingChange.at < r.at, and_(RatingChange.at == r.at, RatingChange.match_id <= r.match_id)),
                    )
                )
            ).scalar_one()
        )
    return games


@contextlib.asynccontextmanager
async def _collector_paused() -> AsyncIterator[None]:
    """No cyclic garbage collection while a table is recomputed: it makes hundreds of thousands of small
    tuples (no cycles), and full collections walking them all would take longer than the work itself."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _when(conn: AsyncConnection, column: Any) -> Any:
    """A time column as stored: on SQLite its text, which `_aware` reads far faster than the generic type."""
    return type_coerce(column, String).label(column.key) if conn.dialect.name == "sqlite" else column


def _aware(value: Any) -> Any:
    """An aware UTC datetime from what `_when` selected."""
    if isinstance(value, str):
        return dt.datetime.fromisoformat(value).replace(tzinfo=dt.UTC)
    return value


def _stored_time(conn: AsyncConnection) -> Callable[[dt.datetime], Any]:
    """How a time column holds an aware UTC time, as `_when` reads it: on SQLite the text SQLAlchemy writes
    (naive UTC with microseconds), elsewhere the datetime itself."""
    if conn.dialect.name != "sqlite":
        return lambda when: when
    return lambda when: when.astimezone(dt.UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


async def _stored_rows(conn: AsyncConnection, model: Any, key_length: int) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Every row of a rating table as a tuple in column order, by its first `key_length` values (times as
    `_stored_time` gives them: on SQLite their text, never parsed)."""
    query = select(*(_when(conn, c) if isinstance(c.type, UTCDateTime) else c for c in model.__table__.columns))
    return {tuple(row[:key_length]): tuple(row) for row in (await conn.execute(query)).all()}


def _player_tuples(
    table: dict[Key, Figures], to_stored: Callable[[dt.datetime], Any]
) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """The players' rows of `player_ratings`, in column order, times as stored."""
    out = {}
    for key, f in table.items():
        values = _row_values(key, f)
        values["last_at"] = to_stored(values["last_at"])
        out[key] = tuple(values.values())
    return out


def _change_tuples(
    changes: list[ChangeRow], to_stored: Callable[[dt.datetime], Any]
) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """The rows of `rating_changes` (a `ChangeRow` is in column order), times as stored; the two rows of
    a match share their time, converted once."""
    out = {}
    last: dt.datetime | None = None
    stored: Any = None
    for c in changes:
        if c.at is not last:
            last, stored = c.at, to_stored(c.at)
        out[c.match_id, c.seat] = (*c[:-1], stored)
    return out


async def _insert_rows(conn: AsyncConnection, model: Any, rows: list[tuple[Any, ...]]) -> None:
    """Insert rows given in column order (times as `_stored_time` gives them). On SQLite straight through
    the driver's `executemany`, several times faster than binding 200,000 parameter sets through
    SQLAlchemy's types; elsewhere through SQLAlchemy."""
    names = [c.key for c in model.__table__.columns]
    if conn.dialect.name == "sqlite":
        columns = ", ".join(f'"{name}"' for name in names)
        sql = f'INSERT INTO "{model.__tablename__}" ({columns}) VALUES ({", ".join("?" * len(names))})'
        for start in range(0, len(rows), 50_000):
            await conn.exec_driver_sql(sql, rows[start : start + 50_000])
        return
    for start in range(0, len(rows), 5000):
        await conn.execute(insert(model), [dict(zip(names, row, strict=True)) for row in rows[start : start + 5000]])


def _figures(r: Any) -> Figures:
    return Figures(
        r.name,
        Rating(r.rating, r.deviation, r.volatility, r.last_at),
        r.games,
        r.wins,
        r.losses,
        r.draws,
        r.streak,
        r.last_match,
    )


def _row_values(key: Key, f: Figures) -> dict[str, Any]:
    assert f.rating.at is not None, "a player in a table has played"
    return {
        "guild_key": key[0],
        "game": key[1],
        "player_id": key[2],
        "name": f.name,
        "rating": f.rating.rating,
        "deviation": f.rating.deviation,
        "volatility": f.rating.volatility,
        "games": f.games,
        "wins": f.wins,
        "losses": f.losses,
        "draws": f.draws,
        "streak": f.streak,
        "last_at": f.rating.at,
        "last_match": f.last_match,
    }


def _change_values(c: ChangeRow) -> dict[str, Any]:
    return {
        "match_id": c.match_id,
        "seat": c.seat,
        "guild_key": c.guild_key,
        "game": c.game,
        "player_id": c.player_id,
        "opponent_id": c.opponent_id,
        "score": c.score,
        "rating_before": c.rating_before,
        "deviation_before": c.deviation_before,
        "rating_after": c.rating_after,
        "deviation_after": c.deviation_after,
        "volatility_after": c.volatility_after,
        "at": c.at,
    }


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-9)
    return bool(a == b)


def _differences(computed: dict[Any, tuple[Any, ...]], stored: dict[Any, tuple[Any, ...]]) -> int:
    """Rows that are missing, extra, or hold other figures (rows as tuples in the table's column order)."""
    changed = len(stored.keys() - computed.keys())
    for key, values in computed.items():
        row = stored.get(key)
        if row is None:
            changed += 1
        elif row != values and any(not _same(a, b) for a, b in zip(values, row, strict=True)):
            changed += 1
    return changed


_UPDATE_PLAYER = (
    update(PlayerRating)
    .where(
        PlayerRating.guild_key == bindparam("k_guild_key"),
        PlayerRating.game == bindparam("k_game"),
        PlayerRating.player_id == bindparam("k_player_id"),
    )
    .values({name: bindparam(f"v_{name}") for name in _VALUE_COLUMNS})
)


async def _write_players(conn: AsyncConnection, table: dict[Key, Figures], *, update_rows: bool) -> None:
    """Insert new players' rows, or update known ones, in batches."""
    values = [_row_values(k, f) for k, f in table.items()]
    for start in range(0, len(values), 5000):
        chunk = values[start : start + 5000]
        if not chunk:
            break
        if update_rows:
            params = [
                {
                    **{f"k_{k}": v[k] for k in ("guild_key", "game", "player_id")},
                    **{f"v_{n}": v[n] for n in _VALUE_COLUMNS},
                }
                for v in chunk
            ]
            await conn.execute(_UPDATE_PLAYER, params)
        else:
            await conn.execute(insert(PlayerRating), chunk)


__all__ = [
    "ADVANTAGE_MODES",
    "PRACTICE_IDS",
    "GameProfile",
    "MatchRating",
    "PlayerChange",
    "RatedMatch",
    "Ratings",
    "RebuildReport",
    "Result",
    "Standing",
    "apply_match",
    "guild_key",
    "rated_match",
    "replay",
]
