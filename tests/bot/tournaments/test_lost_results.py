"""A tournament's game result under failed and ambiguous commits (issue 38, point 5), on SQLite and
PostgreSQL: the result is recorded once by the timer's catch-up (not only at the next start), the next
round is paired once, one match per pairing, and the standings equal the results."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from bot.host.service import MatchService
from bot.tournaments.core import TournamentCore
from bot.tournaments.rounds import Game, Result
from bot.tournaments.service import TournamentService
from tests.bot.conftest import make_service
from tests.bot.tournaments import OPTIONS, finish_round, join
from tests.buses import following

pytestmark = pytest.mark.looptime


class LostResult(TournamentService):
    """The real service; the first stored game results (a batch of finished matches) fail, or commit and then
    report an error."""

    fault = "failed"
    faults = 1

    def __init__(self, host: MatchService) -> None:
        super().__init__(TournamentCore(host))
        real = self.core.record_results

        async def record_results(results: Sequence[tuple[int, Result]]) -> None:
            if self.faults:
                self.faults -= 1
                if self.fault == "ambiguous":
                    await real(results)
                raise OperationalError("COMMIT", {}, ConnectionError(f"injected: a {self.fault} commit"))
            await real(results)

        self.core.record_results = record_results  # type: ignore[method-assign]


@pytest.mark.parametrize("fault", ["failed", "ambiguous"])
async def test_a_lost_result_is_recorded_once_and_the_tournament_goes_on(migrated_db_url: str, fault: str) -> None:
    host = await make_service(migrated_db_url)
    service = LostResult(host)
    service.hear = following(host)
    service.fault = fault
    await service.start()
    try:
        tid = await service.create("Cup", "boxes", "swiss", rounds=2, options=OPTIONS)
        await join(service, tid, 4)
        await service.start_tournament(tid, by="host")
        await finish_round(service, tid, [Result.WHITE, Result.BLACK])
        await asyncio.sleep(5)  # the timer catches up what failed (looptime: no wall time)
        t = await service.get(tid)
        assert t.round == 2 and service.faults == 0
        await finish_round(service, tid, [Result.WHITE, Result.WHITE])
        await asyncio.sleep(5)
        t = await service.get(tid)
        assert t.status == "finished"
        games = [g for g in await service.games(tid) if isinstance(g.pairing, Game)]
        assert len(games) == 4 and all(g.pairing.result is not None for g in games)
        assert max(Counter(g.match_id for g in games).values()) == 1, "one match per pairing"
        assert len({g.match_id for g in games}) == 4
        points: Counter[Any] = Counter()
        for g in games:
            p = g.pairing
            assert isinstance(p, Game) and p.result is not None
            points[p.white] += {Result.WHITE: 1.0, Result.BLACK: 0.0, Result.DRAW: 0.5}[p.result]
            points[p.black] += {Result.WHITE: 0.0, Result.BLACK: 1.0, Result.DRAW: 0.5}[p.result]
        table = await service.standings(tid)
        assert {s.player: s.points for s in table} == dict(points), "standings equal results"
    finally:
        await service.close()
        await host.close()
        await host.store.close()
