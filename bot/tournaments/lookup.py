"""Where a match stands in a tournament, read from the tournament's own tables for those outside this package
(the review pages, the lease a resumed match is hosted under): `TournamentService.place_of` and `match_ids`."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.tournaments.tables import GAMES, TOURNAMENTS


@dataclass(frozen=True)
class MatchPlace:
    """A tournament game's match: its tournament (id and name), round and board."""

    tournament_id: int
    name: str
    round: int
    board: int


async def place_of(engine: AsyncEngine, match_id: int) -> MatchPlace | None:
    """The tournament game a match was opened for (None: not a tournament's match)."""
    async with engine.connect() as conn:
        row = (
            await conn.execute(
                select(GAMES.c.tournament_id, GAMES.c.round, GAMES.c.board, TOURNAMENTS.c.name)
                .join(TOURNAMENTS, TOURNAMENTS.c.id == GAMES.c.tournament_id)
                .where(GAMES.c.match_id == match_id)
                .limit(1)
            )
        ).first()
    return None if row is None else MatchPlace(int(row.tournament_id), str(row.name), int(row.round), int(row.board))
