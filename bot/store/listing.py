"""The stored match as read back (`StoredMatch`, `LogEntry`), and the read-only queries that list matches.

`MatchListing` is an object a `MatchStore` (`bot.store.matches`) holds, given its engine; the store's own
methods of the same names hand these queries to it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.store.db import Match, MatchPlayer
from bot.types import MatchStatus


@dataclass(frozen=True)
class LogEntry:
    """One stored event of a match."""

    seq: int
    at: dt.datetime
    kind: str
    seat: int | None
    text: str | None
    message_id: str | None
    data: dict[str, Any]


@dataclass
class StoredMatch:
    """A match row with its players (and, when asked for, its log)."""

    id: int
    game: str
    options: dict[str, Any]
    clock: dict[str, Any]
    status: MatchStatus
    guild_id: int | None
    channel_id: int | None
    created_at: dt.datetime
    finished_at: dt.datetime | None
    winner_seat: int | None
    result_reason: str | None
    event_count: int
    snapshot: dict[str, Any]
    players: dict[int, tuple[str, str]]
    events: list[LogEntry] = field(default_factory=list)
    rated: bool = True
    """False for a casual match (`rated:false`, practice); matches stored before ratings existed are rated."""


class MatchListing:
    """Which matches there are: the newest id, a room's or a player's latest, a list of rows without snapshots."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def latest_id(self) -> int:
        """The highest match id stored so far (0: none yet); a match created later has a higher id."""
        async with self.engine.connect() as conn:
            top = (await conn.execute(select(func.max(Match.id)))).scalar()
        return int(top or 0)

    async def first_between(self, players: Sequence[str], guild_id: int | None, after: int) -> int | None:
        """The first match created after match `after` with these players in seats 1 and 2, in this server
        (None: in direct messages), if any."""
        one, two = MatchPlayer.__table__.alias("one"), MatchPlayer.__table__.alias("two")
        query = (
            select(Match.id)
            .join(one, and_(one.c.match_id == Match.id, one.c.seat == 1, one.c.player_id == players[0]))
            .join(two, and_(two.c.match_id == Match.id, two.c.seat == 2, two.c.player_id == players[1]))
            .where(Match.id > after, Match.guild_id.is_(None) if guild_id is None else Match.guild_id == guild_id)
            .order_by(Match.id)
            .limit(1)
        )
        async with self.engine.connect() as conn:
            found = (await conn.execute(query)).scalar()
        return None if found is None else int(found)

    async def latest_in_channel(self, channel_id: int, player_id: str | None = None) -> int | None:
        """The newest match of a room (channel id), running or over; `player_id`: the newest that player
        played there. None: no match there."""
        query = select(Match.id).where(Match.channel_id == channel_id)
        if player_id is not None:
            seated = select(MatchPlayer.match_id).where(MatchPlayer.player_id == player_id)
            query = query.where(Match.id.in_(seated))
        async with self.engine.connect() as conn:
            found = (await conn.execute(query.order_by(Match.id.desc()).limit(1))).scalar()
        return None if found is None else int(found)

    async def history(self, player_id: str, limit: int = 20) -> list[StoredMatch]:
        """A player's most recent matches, newest first."""
        async with self.engine.connect() as conn:
            ids = [
                r[0]
                for r in (
                    await conn.execute(
                        select(MatchPlayer.match_id)
                        .where(MatchPlayer.player_id == player_id)
                        .order_by(MatchPlayer.match_id.desc())
                        .limit(limit)
                    )
                ).all()
            ]
            if not ids:
                return []
            rows = (await conn.execute(select(Match).where(Match.id.in_(ids)).order_by(Match.id.desc()))).all()
            players = await players_of(conn, ids)
        return [stored_match(r, players.get(r.id, {})) for r in rows]

    async def listed(self, ids: Sequence[int]) -> list[StoredMatch]:
        """These matches with their players but without their snapshot (`snapshot` is empty), in id order, in two
        queries however many: what a list of matches shows (the server page)."""
        if not ids:
            return []
        cols = [c for c in Match.__table__.c if c.name != "snapshot"]
        rows: list[Any] = []
        async with self.engine.connect() as conn:
            for start in range(0, len(ids), 500):
                chunk = list(ids[start : start + 500])
                rows += (await conn.execute(select(*cols).where(Match.id.in_(chunk)))).all()
            players = await players_of(conn, [r.id for r in rows])
        return [stored_match(r, players.get(r.id, {}), {}) for r in sorted(rows, key=lambda r: r.id)]


async def players_of(conn: Any, ids: list[int]) -> dict[int, dict[int, tuple[str, str]]]:
    """The players of these matches by seat, (player id, name), in one query per 500 matches."""
    out: dict[int, dict[int, tuple[str, str]]] = {}
    if not ids:
        return out
    for chunk_start in range(0, len(ids), 500):
        chunk = ids[chunk_start : chunk_start + 500]
        rows = (await conn.execute(select(MatchPlayer).where(MatchPlayer.match_id.in_(chunk)))).all()
        for p in rows:
            out.setdefault(p.match_id, {})[p.seat] = (p.player_id, p.name)
    return out


def stored_match(row: Any, players: dict[int, tuple[str, str]], snapshot: dict[str, Any] | None = None) -> StoredMatch:
    """A match row as a `StoredMatch` (`snapshot`: instead of the row's, e.g. `{}` when it was not read)."""
    return StoredMatch(
        id=row.id,
        game=row.game,
        options=dict(row.options),
        clock=dict(row.clock),
        status=MatchStatus(row.status),
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        created_at=row.created_at,
        finished_at=row.finished_at,
        winner_seat=row.winner_seat,
        result_reason=row.result_reason,
        event_count=row.event_count,
        snapshot=dict(row.snapshot) if snapshot is None else snapshot,
        players=players,
        rated=row.rated is not False,
    )
