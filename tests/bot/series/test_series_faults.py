"""A series' score under failed and ambiguous commits (issue 38, point 5), on SQLite and PostgreSQL: the
score of a game is stored once, the next game is opened once, and nothing sticks — whether the same
process retries or a new process takes over after the lost answer."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from bot.series import SeriesService
from tests.bot.conftest import Recorder, make_service
from tests.bot.series.test_series_core import PLAYERS, play_one_box
from tests.buses import following


class LostScore(SeriesService):
    """The real series service; the first write of a score fails (`failed`) or commits and then reports
    an error (`ambiguous`)."""

    fault = "failed"
    faults = 1

    async def _save(self, series_id: int, **values: Any) -> Any:
        if "results" in values and self.faults:
            self.faults -= 1
            if self.fault == "ambiguous":
                await super()._save(series_id, **values)
            raise OperationalError("COMMIT", {}, ConnectionError(f"injected: a {self.fault} commit"))
        return await super()._save(series_id, **values)


@pytest.mark.looptime
@pytest.mark.parametrize("fault", ["failed", "ambiguous"])
async def test_a_lost_score_is_stored_once_and_the_next_game_opens_once(migrated_db_url: str, fault: str) -> None:
    service = await make_service(migrated_db_url, Recorder(), heartbeat_seconds=3600)
    series = LostScore(service, hear=following(service))
    series.fault = fault
    try:
        made, first = await series.create("boxes", PLAYERS, 3, options={"rows": 1, "cols": 1})
        await play_one_box(service, first)
        await series.drain()  # the retry (1 s later, on the looptime clock) finishes the step
        (game2,) = service.live.values()
        now = await series.get(made.id)
        assert now is not None and now.results == (2,) and now.matches == (first, game2.id)
        assert now.status == "running"
    finally:
        await series.close()
        await service.close()
        await service.store.close()


@pytest.mark.looptime
async def test_a_score_stored_just_before_a_crash_opens_the_next_game_at_the_next_start(migrated_db_url: str) -> None:
    s1 = await make_service(migrated_db_url, Recorder(), heartbeat_seconds=3600)
    series1 = LostScore(s1, hear=following(s1))
    series1.fault = "ambiguous"
    made, first = await series1.create("boxes", PLAYERS, 3, options={"rows": 1, "cols": 1})
    await play_one_box(s1, first)
    await asyncio.sleep(0.5)  # the first attempt stores the score and hears an error; the retry waits 1 s
    await series1.close()  # the process stops before its retry: the score is stored, no next game
    await s1.close()
    await s1.store.close()
    stored = None
    s2 = await make_service(migrated_db_url, Recorder(), heartbeat_seconds=3600)
    series2 = SeriesService(s2, hear=following(s2))
    try:
        stored = await series2.get(made.id)
        assert stored is not None and stored.results == (2,) and stored.matches == (first,)
        await series2.start()
        await series2.drain()
        (game2,) = s2.live.values()
        now = await series2.get(made.id)
        assert now is not None and now.results == (2,) and now.matches == (first, game2.id)
        await series2.start()  # a second look opens nothing more
        await series2.drain()
        assert len(s2.live) == 1
    finally:
        await series2.close()
        await s2.close()
        await s2.store.close()
