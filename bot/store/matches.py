"""Durable match storage: the append-only event log and the resume snapshot, one transaction per action."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sqlalchemy import Text, bindparam, cast, insert, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.store.db import Heartbeat, Match, MatchEvent, MatchPlayer, make_engine, migrate, utcnow
from bot.store.leases import FENCE_SQL, Fencing, LeaseLost, ShardLease, fence
from bot.store.listing import LogEntry as LogEntry
from bot.store.listing import MatchListing, players_of, stored_match
from bot.store.listing import StoredMatch as StoredMatch
from bot.types import OVER_STATUSES, MatchStatus


class EntryKind(StrEnum):
    """Kinds of the match log's entries the core writes (house rules add their own: `Log(kind, ...)`)."""

    CREATED = "created"
    MOVE = "move"
    COMMIT = "commit"
    """A provisional move made final (the take-back rule)."""
    CHOICE = "choice"
    """The choice of who starts (the advantage rule)."""
    ILLEGAL = "illegal"
    RESIGN = "resign"
    FORFEIT = "forfeit"
    FINISHED = "finished"
    PAUSE = "pause"
    RESUME = "resume"
    ABORT = "abort"
    TIME = "time"
    CLOCK = "clock"
    CONFIRM = "confirm"
    SYNTAX = "syntax"
    TURN = "turn"
    """(`syntax`, `turn`: refused texts some older logs hold.)"""


@dataclass
class _Pending:
    match_id: int
    rows: list[dict[str, Any]]
    values: dict[str, Any]
    players: dict[int, tuple[str, str]] | None
    future: asyncio.Future[None]
    also: Callable[[AsyncConnection], Awaitable[None]] | None = None


_UPDATE_MATCH = (
    update(Match)
    .where(Match.id == bindparam("b_id"))
    .values(
        snapshot=bindparam("b_snapshot"),
        status=bindparam("b_status"),
        updated_at=bindparam("b_updated_at"),
        event_count=bindparam("b_event_count"),
        finished_at=bindparam("b_finished_at"),
        winner_seat=bindparam("b_winner_seat"),
        result_reason=bindparam("b_result_reason"),
    )
)


_SQLITE_INSERT = (
    "INSERT INTO match_events (match_id, seq, at, kind, seat, text, message_id, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_SQLITE_UPDATE = (
    "UPDATE matches SET snapshot = ?, status = ?, updated_at = ?, event_count = ?, finished_at = ?, "
    "winner_seat = ?, result_reason = ? WHERE id = ?"
)


def _sqlite_time(value: dt.datetime | None) -> str | None:
    """A UTC datetime in the text form SQLAlchemy's SQLite DateTime type reads back."""
    if value is None:
        return None
    v = value.astimezone(dt.UTC)
    return f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}.{v.microsecond:06d}"


@dataclass(frozen=True)
class NewEvent:
    """An event about to be appended."""

    kind: str
    seat: int | None = None
    text: str | None = None
    message_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


AlsoWrite = Callable[[AsyncConnection, int], Awaitable[None]]
"""More writes in the transaction that stores a new match: `(connection, new match id)`."""


class MatchStore:
    """All database access of the host."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: AsyncEngine = make_engine(url)
        self._queue: list[_Pending] = []
        self._writer: asyncio.Task[None] | None = None
        self._fast_sqlite = make_url(url).get_backend_name() == "sqlite"
        self.fencing: Fencing | None = None
        """Set by the lease keeper: every write then checks the writer's epoch in the same transaction."""
        self._guilds: dict[int, int | None] = {}
        self._listing = MatchListing(self.engine)
        """The read-only queries that list matches (`bot.store.listing`)."""

    async def open(self) -> None:
        """Apply migrations (idempotent)."""
        await migrate(self.url)

    async def ping(self) -> None:
        """One `SELECT 1`: raises when the database does not answer (the probes' health check)."""
        async with self.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))

    async def close(self) -> None:
        """Finish pending writes, then dispose of the connection pool."""
        if self._writer is not None and not self._writer.done():
            await asyncio.gather(self._writer, return_exceptions=True)
        await self.engine.dispose()

    async def create_match(
        self,
        *,
        game: str,
        options: dict[str, Any],
        clock: dict[str, Any],
        status: MatchStatus,
        players: dict[int, tuple[str, str]],
        guild_id: int | None,
        channel_id: int | None,
        snapshot: dict[str, Any],
        events: Sequence[NewEvent],
        rated: bool = True,
        also: AlsoWrite | None = None,
        result: tuple[int | None, str] | None = None,
    ) -> int:
        """Insert a match, its players and first events; returns the new id. `also(conn, match_id)` writes
        more in the same transaction (a scheduled DM records its match: both commit, or neither); an
        exception from it rolls everything back. `result` (winner seat, reason): a match stored already over
        (a forfeit that was never played)."""
        now = utcnow()
        over: dict[str, Any] = {}
        if result is not None:
            over = {"winner_seat": result[0], "result_reason": result[1], "finished_at": now}
        async with self.engine.begin() as conn:
            await self._fence(conn, [guild_id])
            inserted = await conn.execute(
                insert(Match)
                .values(
                    game=game,
                    options=options,
                    clock=clock,
                    status=status,
                    guild_id=guild_id,
                    channel_id=channel_id,
                    created_at=now,
                    updated_at=now,
                    event_count=len(events),
                    snapshot=snapshot,
                    rated=rated,
                    **over,
                )
                .returning(Match.id)
            )
            match_id = int(inserted.scalar_one())
            await conn.execute(
                insert(MatchPlayer),
                [{"match_id": match_id, "seat": s, "player_id": p, "name": n} for s, (p, n) in players.items()],
            )
            if events:
                await conn.execute(insert(MatchEvent), _rows(match_id, 0, events, now))
            if also is not None:
                await also(conn, match_id)
        self._guilds[match_id] = guild_id
        return match_id

    async def _fence(self, conn: Any, guilds: list[int | None]) -> None:
        """Inside a write transaction: LeaseLost unless this process holds the current epoch of every shard."""
        if self.fencing is None:
            return
        epochs, unheld = self.fencing.needed(guilds)
        lost = unheld | await fence(conn, self.fencing.owner, epochs)
        if lost:
            self.fencing.drop(lost)
            raise LeaseLost(lost)

    async def fenced_off(self, guild_id: int | None) -> bool:
        """After a write failed: whether this process has lost the lease of the guild's shard meanwhile (read
        from the lease table; a loss found is dropped from the fencing, as a write's fence would). False when
        there is no fencing, or the table cannot be read now."""
        if self.fencing is None:
            return False
        epochs, unheld = self.fencing.needed([guild_id])
        if unheld:
            return True
        try:
            async with self.engine.connect() as conn:
                rows = (
                    await conn.execute(
                        select(ShardLease.shard, ShardLease.owner, ShardLease.epoch).where(
                            ShardLease.shard.in_(list(epochs))
                        )
                    )
                ).all()
        except Exception:
            return False
        held = {int(s) for s, o, e in rows if o == self.fencing.owner and int(e) == epochs[int(s)]}
        lost = set(epochs) - held
        if lost:
            self.fencing.drop(lost)
        return bool(lost)

    def _batch_guilds(self, batch: list[_Pending]) -> list[int | None]:
        return [self._guilds.get(p.match_id) for p in batch]

    async def write_batch(
        self,
        match_id: int,
        first_seq: int,
        events: Sequence[NewEvent],
        *,
        snapshot: dict[str, Any],
        status: MatchStatus,
        winner_seat: int | None = None,
        result_reason: str | None = None,
        players: dict[int, tuple[str, str]] | None = None,
        also: Callable[[AsyncConnection], Awaitable[None]] | None = None,
    ) -> None:
        """Append events and update the snapshot atomically; returns once it is committed. `also(conn)` writes
        more in the same transaction (a correspondence match's deadline job, `bot.host.deadlines`).

        Appends from many matches that arrive together are written in one transaction (group
        commit): each caller still waits for the commit that contains its own rows.
        """
        done = self._closing_loop_future()
        now = utcnow()
        finished = status in OVER_STATUSES
        self._queue.append(
            _Pending(
                match_id=match_id,
                rows=_rows(match_id, first_seq, events, now),
                values={
                    "b_id": match_id,
                    "b_snapshot": snapshot,
                    "b_status": status,
                    "b_updated_at": now,
                    "b_event_count": first_seq + len(events),
                    "b_finished_at": now if finished else None,
                    "b_winner_seat": winner_seat if finished else None,
                    "b_result_reason": result_reason if finished else None,
                },
                players=players,
                future=done,
                also=also,
            )
        )
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_batches())
        await done

    def _closing_loop_future(self) -> asyncio.Future[None]:
        return asyncio.get_running_loop().create_future()

    async def _write_batches(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                await self._write(batch)
            except Exception:
                if len(batch) == 1:
                    self._settle(batch[0], sys.exc_info()[1])
                    continue
                # One bad row must not fail the other matches' actions: write each match alone.
                for p in batch:
                    try:
                        await self._write([p])
                    except Exception as exc:
                        self._settle(p, exc)
                    else:
                        self._settle(p, None)
                continue
            except BaseException as exc:
                for p in batch:
                    self._settle(p, RuntimeError(str(exc)))
                raise
            for p in batch:
                self._settle(p, None)

    async def _write(self, batch: list[_Pending]) -> None:
        if self._fast_sqlite and not any(p.players or p.also for p in batch):
            await self._write_sqlite(batch)
        else:
            await self._write_generic(batch)

    @staticmethod
    def _settle(p: _Pending, exc: BaseException | None) -> None:
        if p.future.done():
            return
        if exc is None:
            p.future.set_result(None)
        else:
            p.future.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))

    async def _write_sqlite(self, batch: list[_Pending]) -> None:
        """The hot path on SQLite: two executemany calls and a commit on the driver connection
        (SQLAlchemy's statement layer would add several thread hops per batch)."""
        async with self.engine.connect() as conn:
            raw = await conn.get_raw_connection()
            driver = raw.driver_connection
            assert driver is not None, "the SQLite driver connection is open"
            try:
                if self.fencing is not None:  # first: the write lock is taken here, a takeover waits
                    epochs, lost = self.fencing.needed(self._batch_guilds(batch))
                    for shard, epoch in sorted(epochs.items()):
                        cursor = await driver.execute(FENCE_SQL, (shard, self.fencing.owner, epoch))
                        if cursor.rowcount != 1:
                            lost.add(shard)
                    if lost:
                        self.fencing.drop(lost)
                        raise LeaseLost(lost)
                rows = [
                    (
                        r["match_id"],
                        r["seq"],
                        _sqlite_time(r["at"]),
                        r["kind"],
                        r["seat"],
                        r["text"],
                        r["message_id"],
                        json.dumps(r["data"]),
                    )
                    for p in batch
                    for r in p.rows
                ]
                if rows:
                    await driver.executemany(_SQLITE_INSERT, rows)
                await driver.executemany(
                    _SQLITE_UPDATE,
                    [
                        (
                            json.dumps(v["b_snapshot"]),
                            v["b_status"],
                            _sqlite_time(v["b_updated_at"]),
                            v["b_event_count"],
                            _sqlite_time(v["b_finished_at"]),
                            v["b_winner_seat"],
                            v["b_result_reason"],
                            v["b_id"],
                        )
                        for v in (p.values for p in batch)
                    ],
                )
                await driver.commit()
            except BaseException:
                await driver.rollback()
                raise

    async def _write_generic(self, batch: list[_Pending]) -> None:
        """Any database, through SQLAlchemy: events, snapshots and seat changes in one transaction."""
        async with self.engine.begin() as conn:
            await self._fence(conn, self._batch_guilds(batch))  # first: its row lock holds a takeover back
            rows = [r for p in batch for r in p.rows]
            if rows:
                await conn.execute(insert(MatchEvent), rows)
            await conn.execute(_UPDATE_MATCH, [p.values for p in batch])
            for p in batch:
                for seat, (pid, name) in (p.players or {}).items():
                    await conn.execute(
                        update(MatchPlayer)
                        .where(MatchPlayer.match_id == p.match_id, MatchPlayer.seat == seat)
                        .values(player_id=pid, name=name)
                    )
                if p.also is not None:
                    await p.also(conn)

    async def event_count(self, match_id: int) -> int | None:
        """How many events of a match are stored (None: no such match); read straight from the database."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(Match.event_count).where(Match.id == match_id))).first()
        return None if row is None else int(row[0])

    async def latest_id(self) -> int:
        """The highest match id stored so far (0: none yet); a match created later has a higher id."""
        return await self._listing.latest_id()

    async def first_between(self, players: Sequence[str], guild_id: int | None, after: int) -> int | None:
        """The first match created after match `after` with these players in seats 1 and 2, in this server
        (None: in direct messages), if any."""
        return await self._listing.first_between(players, guild_id, after)

    async def latest_in_channel(self, channel_id: int, player_id: str | None = None) -> int | None:
        """The newest match of a room (channel id), running or over; `player_id`: the newest that player
        played there. None: no match there."""
        return await self._listing.latest_in_channel(channel_id, player_id)

    async def history(self, player_id: str, limit: int = 20) -> list[StoredMatch]:
        """A player's most recent matches, newest first."""
        return await self._listing.history(player_id, limit)

    async def listed(self, ids: Sequence[int]) -> list[StoredMatch]:
        """These matches with their players but without their snapshot, in id order (`MatchListing.listed`)."""
        return await self._listing.listed(ids)

    async def heartbeat(self, instance: str, loop_time: float, at: dt.datetime | None = None) -> None:
        """Record that this process is alive at loop time `loop_time` (wall time `at`, UTC; default now)."""
        wall = at or utcnow()
        async with self.engine.begin() as conn:
            updated = await conn.execute(
                update(Heartbeat).where(Heartbeat.instance == instance).values(loop_time=loop_time, at=wall)
            )
            if updated.rowcount == 0:
                await conn.execute(insert(Heartbeat).values(instance=instance, loop_time=loop_time, at=wall))

    async def last_heartbeat(self, instance: str) -> float | None:
        """The last loop time a process recorded, if any."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(Heartbeat.loop_time).where(Heartbeat.instance == instance))).first()
        return None if row is None else float(row[0])

    async def last_alive(self, instance: str) -> tuple[float, dt.datetime] | None:
        """The last loop time a process recorded, and the wall time (UTC) it recorded it at."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(select(Heartbeat.loop_time, Heartbeat.at).where(Heartbeat.instance == instance))
            ).first()
        return None if row is None else (float(row[0]), row[1])

    async def unfinished(self) -> list[StoredMatch]:
        """Every match that is not over, with players."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(Match).where(Match.status.not_in([str(s) for s in OVER_STATUSES])).order_by(Match.id)
                )
            ).all()
            ids = [r.id for r in rows]
            players = await players_of(conn, ids)
        self._guilds.update({r.id: r.guild_id for r in rows})
        return [stored_match(r, players.get(r.id, {})) for r in rows]

    async def unfinished_texts(self) -> list[tuple[StoredMatch, str]]:
        """As `unfinished`, each with its snapshot as stored (JSON text) and *not decoded* (`snapshot` is left
        empty): what a start-up with many idle matches reads (`bot.host.idle` keeps the text, decodes it later)."""
        cols = [c for c in Match.__table__.c if c.name != "snapshot"]
        text = cast(Match.__table__.c.snapshot, Text).label("snapshot_text")
        where = Match.status.not_in([str(s) for s in OVER_STATUSES])
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(*cols, text).where(where).order_by(Match.id))).all()
            players = await players_of(conn, [r.id for r in rows])
        self._guilds.update({r.id: r.guild_id for r in rows})
        return [(stored_match(r, players.get(r.id, {}), {}), r.snapshot_text) for r in rows]

    async def load(self, match_id: int, *, with_events: bool = False) -> StoredMatch | None:
        """One match, optionally with its full log in order."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(Match).where(Match.id == match_id))).first()
            if row is None:
                return None
            players = await players_of(conn, [match_id])
            stored = stored_match(row, players.get(match_id, {}))
            self._guilds[match_id] = stored.guild_id
            if with_events:
                evs = (
                    await conn.execute(
                        select(MatchEvent).where(MatchEvent.match_id == match_id).order_by(MatchEvent.seq)
                    )
                ).all()
                stored.events = [
                    LogEntry(e.seq, e.at, e.kind, e.seat, e.text, e.message_id, dict(e.data or {})) for e in evs
                ]
        return stored


def safe(value: Any) -> Any:
    """What players type, made storable in every database: characters that cannot be encoded (lone
    surrogates such as `"A1\\udcff"`) and NUL become U+FFFD; dicts and lists are cleaned throughout."""
    if isinstance(value, str):
        if value.isascii() and "\x00" not in value:
            return value
        return "".join("\ufffd" if ch == "\x00" or "\ud800" <= ch <= "\udfff" else ch for ch in value)
    if isinstance(value, dict):
        return {safe(k): safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [safe(v) for v in value]
    return value


def _rows(match_id: int, first_seq: int, events: Sequence[NewEvent], now: dt.datetime) -> list[dict[str, Any]]:
    return [
        {
            "match_id": match_id,
            "seq": first_seq + i,
            "at": now,
            "kind": e.kind,
            "seat": e.seat,
            "text": safe(e.text),
            "message_id": safe(e.message_id),
            "data": safe(e.data),
        }
        for i, e in enumerate(events)
    ]
