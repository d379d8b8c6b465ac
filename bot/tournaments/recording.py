"""A finished match's result into its tournament game, read from the host's stored record (the subscriber's
batch, the catch-up after a restart, a match a stopped process opened and never noted)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from sqlalchemy import Row, bindparam, select

from bot.tournaments.core import TournamentCore
from bot.tournaments.rounds import Result
from bot.tournaments.tables import GAMES
from bot.types import MatchStatus

LOOKUP_CHUNK: Final = 500
"""Finished matches looked up in their tournaments' games per query."""
_GAMES_OF: Final = select(GAMES).where(GAMES.c.match_id.in_(bindparam("ids", expanding=True)))
"""Built once: most finished matches are no tournament's, and this look-up runs for every batch of them."""


class Recorder:
    """Finished matches' results into their games (idempotent: a game already decided keeps its result)."""

    def __init__(self, core: TournamentCore) -> None:
        self.core = core

    async def record_match(self, match_id: int) -> int | None:
        """Read a finished match's stored record into its tournament game; the tournament's id (None: not ours)."""
        tids = await self.record_matches([match_id])
        return tids[0] if tids else None

    async def record_matches(self, match_ids: Sequence[int]) -> list[int]:
        """Read finished matches' stored records into their tournament games, in one transaction (one look-up
        for all of them: most finished matches are no tournament's); the tournaments concerned, in order."""
        wanted = list(dict.fromkeys(match_ids))
        rows: list[Row[Any]] = []
        async with self.core.engine.connect() as conn:
            for start in range(0, len(wanted), LOOKUP_CHUNK):
                chunk = wanted[start : start + LOOKUP_CHUNK]
                rows += (await conn.execute(_GAMES_OF, {"ids": chunk})).all()
        if not rows:
            return []
        results: list[tuple[int, Result]] = []
        for row in rows:
            if row.result is not None:
                continue
            stored = await self.core.host.store.load(int(row.match_id))
            if stored is None or stored.status != MatchStatus.FINISHED:
                continue
            seat = stored.winner_seat
            results.append((int(row.id), Result.WHITE if seat == 1 else Result.BLACK if seat == 2 else Result.DRAW))
        if results:
            await self.core.record_results(results)
        order = {m: i for i, m in enumerate(wanted)}
        rows.sort(key=lambda r: order[int(r.match_id)])
        return list(dict.fromkeys(int(r.tournament_id) for r in rows))
