"""The ratings' SQL: reading the rated matches, rating them into the stored tables, rebuilding the tables.

Every function works inside a connection or transaction its caller holds (`bot.ratings.service` holds
the lock and the transaction); the arithmetic is `bot.ratings.replay`'s. Times are read and written in
their stored form where that is much faster (SQLite's text), which `rebuild` relies on to compare
100,000 matches' rows quickly.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import logging
import math
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Sequence
from typing import Any

from sqlalchemy import Select, String, and_, bindparam, delete, exists, func, insert, or_, select, type_coerce, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.ratings.glicko import Params, Rating
from bot.ratings.models import NO_GUILD, PlayerRating, RatingChange
from bot.ratings.replay import ChangeRow, Figures, Key, RatedMatch, apply_match, rated_from, replay
from bot.ratings.views import RebuildReport
from bot.store.db import Match, MatchPlayer, UTCDateTime
from bot.types import MatchStatus

__all__ = [
    "change_rows",
    "collector_paused",
    "games_through",
    "load_rated",
    "rate_pending",
    "rebuild_tables",
    "recompute_scope",
]

log = logging.getLogger(__name__)


async def load_rated(
    conn: AsyncConnection,
    practice_ids: Iterable[str],
    key: int | None = None,
    game: str | None = None,
    *,
    pending: bool = False,
    ids: Collection[int] | None = None,
    players: Collection[str] | None = None,
) -> list[RatedMatch]:
    """Every rated match (of one server and game; only those not rated yet; only those of `ids`; only those
    `players` played in), in the order they ended."""
    if ids is not None and pending and key is None and game is None and players is None:
        # the after-commit batch of finished matches: a statement built once per dialect
        rows = (await conn.execute(_pending_of(conn), {"ids": list(ids)})).all()
        return _rated_rows(rows, practice_ids)
    query = _rated_query(conn)
    if key is not None:
        query = query.where(Match.guild_id.is_(None) if key == NO_GUILD else Match.guild_id == key)
    if game is not None:
        query = query.where(Match.game == game)
    if players is not None:
        query = query.where(Match.id.in_(select(MatchPlayer.match_id).where(MatchPlayer.player_id.in_(list(players)))))
    if ids is not None:
        query = query.where(Match.id.in_(list(ids)))
    if ids is not None or players is not None:
        # a few matches: each looked up by the change rows' key, not the whole table read
        if pending:
            query = query.where(~exists().where(RatingChange.match_id == Match.id))
    elif pending:
        query = query.where(Match.id.not_in(select(RatingChange.match_id)))
    return _rated_rows((await conn.execute(query)).all(), practice_ids)


def _rated_query(conn: AsyncConnection) -> Select[Any]:
    """The rated, finished matches with their players, in the order they ended (times as stored)."""
    return (
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
        .where(Match.status == MatchStatus.FINISHED, or_(Match.rated.is_(None), Match.rated.is_(True)))
        .order_by(Match.finished_at, Match.id, MatchPlayer.seat)
    )


_PENDING_OF: dict[str, Select[Any]] = {}


def _pending_of(conn: AsyncConnection) -> Select[Any]:
    """`_rated_query` of the matches `:ids` not rated yet, built once per dialect (it runs for every batch)."""
    query = _PENDING_OF.get(conn.dialect.name)
    if query is None:
        query = _rated_query(conn).where(
            Match.id.in_(bindparam("ids", expanding=True)), ~exists().where(RatingChange.match_id == Match.id)
        )
        _PENDING_OF[conn.dialect.name] = query
    return query


def _rated_rows(rows: Sequence[Any], practice_ids: Iterable[str]) -> list[RatedMatch]:
    """The matches of `_rated_query`'s rows (one row per player)."""
    out: list[RatedMatch] = []
    practice = frozenset(practice_ids)
    i, n = 0, len(rows)
    while i < n:
        r = rows[i]
        j = i + 1
        while j < n and rows[j][0] == r[0]:
            j += 1
        seats = {p[8]: (p[9], p[10]) for p in rows[i:j]}
        i = j
        m = rated_from(r[0], r[1], r[2], r[3], r[4], _aware(r[5]), r[6], r[7], seats, practice)
        if m is not None:
            out.append(m)
    return out


async def change_rows(conn: AsyncConnection, match_id: int) -> Sequence[Any]:
    """A match's `rating_changes` rows, by seat (none: not rated, or not yet)."""
    query = select(RatingChange).where(RatingChange.match_id == match_id).order_by(RatingChange.seat)
    return (await conn.execute(query)).all()


async def recompute_scope(
    conn: AsyncConnection, key: int, game: str, params: Params, practice_ids: Iterable[str]
) -> None:
    """Recompute one server's and game's table from its rated matches."""
    table, changes = replay(await load_rated(conn, practice_ids, key, game), params)
    await conn.execute(delete(RatingChange).where(RatingChange.guild_key == key, RatingChange.game == game))
    await conn.execute(delete(PlayerRating).where(PlayerRating.guild_key == key, PlayerRating.game == game))
    to_stored = _stored_time(conn)
    await _insert_rows(conn, PlayerRating, list(_player_tuples(table, to_stored).values()))
    await _insert_rows(conn, RatingChange, list(_change_tuples(changes, to_stored).values()))


async def rate_pending(
    conn: AsyncConnection, pending: Sequence[RatedMatch], params: Params, practice_ids: Iterable[str]
) -> set[tuple[int, str]]:
    """Rate `pending` (rated matches not rated yet, in the order they ended) into the stored tables: the
    players' rows are read once, updated in memory (`apply_match`) and written back, with the matches'
    change rows. A match that ended before a rated match of one of its players (two results committed in
    the same instant, or rated out of order) has its server's and game's table recomputed instead; those
    scopes are returned."""
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
            log.info("match %s ended before a rated match of its players: recomputing %s", m.id, m.game)
            recompute.add(scope)
            continue
        changes += apply_match(table, m, params)
    for scope in recompute:
        await recompute_scope(conn, *scope, params, practice_ids)
    fresh = {k: f for k, f in table.items() if k[:2] not in recompute}
    await _write_players(conn, {k: f for k, f in fresh.items() if k in known}, update_rows=True)
    await _write_players(conn, {k: f for k, f in fresh.items() if k not in known}, update_rows=False)
    rows_out = [_change_values(c) for c in changes if (c.guild_key, c.game) not in recompute]
    for start in range(0, len(rows_out), 5000):
        await conn.execute(insert(RatingChange), rows_out[start : start + 5000])
    return recompute


async def rebuild_tables(conn: AsyncConnection, params: Params, practice_ids: Iterable[str]) -> RebuildReport:
    """Recompute every table from the stored matches; rewrite them when anything differed."""
    matches = await load_rated(conn, practice_ids)
    table, changes = replay(matches, params)
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


async def games_through(conn: AsyncConnection, rows: Sequence[Any]) -> dict[str, int]:
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
async def collector_paused() -> AsyncIterator[None]:
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
