"""A tournament game's no-show forfeit under failed and ambiguous commits (issue 38, point 5), on SQLite and
PostgreSQL: the forfeit match and the game's result are stored together or not at all, so a retry never
stores a second match for the pairing, the game is ruled once, and the tournament goes on."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from bot.host.service import MatchService
from bot.schedule import loop_wall
from bot.store.db import Match
from bot.store.matches import MatchStore
from bot.tournaments.core import TournamentCore
from bot.tournaments.rounds import Game, Result
from bot.tournaments.service import TournamentEvent, TournamentService
from bot.types import MatchStatus
from tests.buses import following

pytestmark = pytest.mark.looptime

OPTIONS = {"rows": 2, "cols": 2}


class ForfeitFault(MatchStore):
    """The real store; the first match stored already over (a forfeit) fails, or commits then reports an error."""

    fault = "failed"
    faults = 1

    async def create_match(self, **kwargs: Any) -> int:
        if self.faults and kwargs.get("status") == MatchStatus.FINISHED:
            self.faults -= 1
            if self.fault == "ambiguous":
                await super().create_match(**kwargs)
            raise OperationalError("COMMIT", {}, ConnectionError(f"injected: a {self.fault} commit"))
        return await super().create_match(**kwargs)


@pytest.mark.parametrize("fault", ["failed", "ambiguous"])
async def test_a_no_show_forfeit_stores_one_match_for_its_pairing(migrated_db_url: str, fault: str) -> None:
    store = ForfeitFault(migrated_db_url)
    store.fault = fault
    host = MatchService(store, heartbeat_seconds=86400.0)
    await host.start()
    service = TournamentService(TournamentCore(host, wall=loop_wall()))
    service.hear = following(host)
    told: list[TournamentEvent] = []
    service.publish = told.append
    await service.start()
    try:
        tid = await service.create("Night", "boxes", "roundrobin", options=OPTIONS, no_show_s=300)
        for p in ("p1", "p2"):
            await service.join(tid, p, p.upper())
        await service.start_tournament(tid)
        (game,) = [g for g in await service.games(tid) if isinstance(g.pairing, Game)]
        await service.check_in_game(game.id, "p1")
        await asyncio.sleep(5 * 60 + 1)  # p2 never comes: the no-show ruling, whose commit goes wrong
        assert store.faults == 0
        await asyncio.sleep(10 * 60)  # time for any retry (looptime: no wall time)
        async with store.engine.connect() as conn:
            matches = (await conn.execute(select(func.count()).select_from(Match))).scalar_one()
        assert matches == 1, "one match for the pairing"
        (ruled,) = [g for g in await service.games(tid) if isinstance(g.pairing, Game)]
        assert isinstance(ruled.pairing, Game)
        assert (ruled.pairing.result, ruled.pairing.forfeit) == (Result.WHITE, True)
        assert ruled.match_id is not None and ruled.match_id > 0
        stored = await host.record(ruled.match_id)
        assert stored is not None and (stored.status, stored.result_reason, stored.winner_seat) == (
            "finished",
            "no_show",
            1,
        )
        assert [str(e.kind) for e in told].count("no_show") == 1, "ruled and told once"
        assert (await service.get(tid)).status == "finished"
    finally:
        await service.close()
        await host.close()
        await store.close()
