"""Fair play on simulated players, through the real host service and the stored analyses: the `easy` and
`medium` practice levels as players are never flagged in 100 games each; a player who copies the solver's
moves is flagged within 10 games."""

from __future__ import annotations

import pytest

from bot.compose import build_coaching
from tests.bot.coaching.players import play
from tests.bot.conftest import make_service

BOXES = {"rows": 3, "cols": 3}
ANN = ("local:ann", "ann", "easy")
BEN = ("local:ben", "ben", "medium")
SOL = ("local:sol", "sol", "solver")


def _flagged(rows: list[dict[str, object]]) -> set[str]:
    return {str(r["player"]) for r in rows if r["flag"]}


@pytest.mark.slow
async def test_practice_levels_are_never_flagged_and_a_solver_user_is(migrated_sqlite_url: str) -> None:
    service = await make_service(migrated_sqlite_url)
    try:
        coaching = build_coaching(service.store)
        for game in range(100):
            seats = [ANN, BEN] if game % 2 == 0 else [BEN, ANN]
            await play(service, "boxes", BOXES, list(seats), seed=game)
            assert _flagged(await coaching.fairplay("boxes")) == set(), game
        rates = {r["player"]: r for r in await coaching.fairplay("boxes")}
        assert rates["ann"]["matches"] == rates["ben"]["matches"] == 100
        assert rates["ann"]["engine_rate"] < rates["ben"]["engine_rate"] < 1.0
        flagged_at = None
        for game in range(10):
            seats = [SOL, BEN] if game % 2 == 0 else [BEN, SOL]
            await play(service, "boxes", BOXES, list(seats), seed=1000 + game)
            flagged = _flagged(await coaching.fairplay("boxes"))
            assert flagged <= {"sol"}
            if "sol" in flagged:
                flagged_at = game + 1
                break
        assert flagged_at is not None and flagged_at <= 10
        sol = next(r for r in await coaching.fairplay("boxes") if r["player"] == "sol")
        assert sol["engine_rate"] == 1.0 and sol["moves"] >= 40 and sol["expected_rate"] < 0.9
    finally:
        await service.close()
        await service.store.close()
