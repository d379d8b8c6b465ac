"""The stored analyses as the coaching service reads them (`bot.coaching.AnalysisSource`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from bot.records.analysis_store import MatchAnalysis
from bot.records.replay import Frame, replay_match
from bot.store.matches import MatchStore, StoredMatch
from games.base import AnyRuleset


class StoredAnalyses:
    """Reads `match_analyses` and replays matches for the coaching service."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store

    async def entries(self, match_ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
        """The stored entries of those of `match_ids` that have an analysis."""
        if not match_ids:
            return {}
        query = select(MatchAnalysis.match_id, MatchAnalysis.entries).where(MatchAnalysis.match_id.in_(list(match_ids)))
        async with self.store.engine.connect() as conn:
            return {int(mid): list(entries) for mid, entries in (await conn.execute(query)).all()}

    async def analysed_ids(self) -> list[int]:
        """Every match with a stored analysis."""
        async with self.store.engine.connect() as conn:
            return [int(r[0]) for r in (await conn.execute(select(MatchAnalysis.match_id))).all()]

    def replay(self, match: StoredMatch) -> tuple[AnyRuleset, list[Frame]]:
        """The ruleset and the positions of a match (`bot.records.replay`)."""
        return replay_match(match)
