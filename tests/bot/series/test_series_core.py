"""The series core on SQLite and PostgreSQL: games in turn with the first move alternating, draws worth ½,
the series stored and carried on by a new process."""

from __future__ import annotations

import pytest

from bot.host.service import MatchService, PlayerRef
from bot.series import DRAW, SeriesNews, SeriesService
from bot.series.core import Series
from tests.bot.conftest import Recorder, make_service
from tests.buses import following

ONE_BOX = ["A1-B1", "A1-A2", "B1-B2", "A2-B2"]
PLAYERS = [PlayerRef("a", "alice"), PlayerRef("b", "bob")]


async def play_one_box(service: MatchService, match_id: int) -> None:
    """The seat that moves second takes the only box."""
    live = service.live[match_id]
    for i, move in enumerate(ONE_BOX):
        result = await service.submit(match_id, live.players[1 + i % 2].id, move)
        assert result.status == "accepted", result


def news_log(series: SeriesService) -> list[SeriesNews]:
    heard: list[SeriesNews] = []
    series.publish = heard.append
    return heard


@pytest.mark.looptime
async def test_best_of_3_alternates_and_stops_once_decided(migrated_db_url: str) -> None:
    service = await make_service(migrated_db_url, Recorder(), heartbeat_seconds=3600)
    series = SeriesService(service, hear=following(service))
    heard = news_log(series)
    try:
        made, first = await series.create("boxes", PLAYERS, 3, options={"rows": 1, "cols": 1}, channel_id=7)
        assert made.matches == (first,) and series.of_match(first) is not None
        starters = []
        for _ in range(3):
            (live,) = service.live.values()
            starters.append(live.players[1].name)
            await play_one_box(service, live.id)
            await series.drain()
        assert starters == ["alice", "bob", "alice"]
        assert service.live == {}
        assert [n.kind for n in heard] == ["next", "next", "over"]
        done = heard[-1].series
        assert done.status == "finished" and done.results == (2, 1, 2) and done.winner == 2 and done.points == (1, 2)
        assert (await series.get(done.id)) == done
        assert all(service.live.get(m) is None for m in done.matches)
    finally:
        await series.close()
        await service.close()
        await service.store.close()


@pytest.mark.looptime
async def test_a_new_process_scores_a_game_that_ended_unheard_and_opens_the_next(migrated_db_url: str) -> None:
    s1 = await make_service(migrated_db_url, Recorder(), heartbeat_seconds=3600)
    series1 = SeriesService(s1, hear=following(s1))
    _made, first = await series1.create("boxes", PLAYERS, 5, options={"rows": 1, "cols": 1}, first=2)
    series1._by_match.clear()  # the process stops listening just before game 1 ends
    await play_one_box(s1, first)
    assert s1.live == {}
    await series1.close()
    await s1.close()
    await s1.store.close()
    s2 = await make_service(migrated_db_url, Recorder(), heartbeat_seconds=3600)
    series2 = SeriesService(s2, hear=following(s2))
    heard = news_log(series2)
    try:
        await series2.start()
        await series2.drain()
        (game2,) = s2.live.values()
        assert game2.players[1].name == "alice"  # game 1 had bob first (first=2)
        assert [n.kind for n in heard] == ["next"] and heard[0].series.results == (1,)  # alice moved second, won
        await series2.start()  # a second look finds nothing more to do
        await series2.drain()
        assert len(s2.live) == 1 and len(heard) == 1
    finally:
        await series2.close()
        await s2.close()
        await s2.store.close()


def test_points_with_draws_and_a_level_series() -> None:
    base = Series(
        1, None, None, "boxes", 3, {}, {}, {}, True, None, (PLAYERS[0], PLAYERS[1]), 1, (1, 2, 3), (), "running"
    )
    level = Series(**{**base.__dict__, "results": (1, 2, DRAW)})
    assert level.points == (1.5, 1.5) and level.decided and level.winner is None
    open_ = Series(**{**base.__dict__, "results": (1, DRAW)})
    assert open_.points == (1.5, 0.5) and not open_.decided  # bob can still draw level
    early = Series(**{**base.__dict__, "results": (1, 1)})
    assert early.decided and early.winner == 1 and early.points == (2, 0)
    running = Series(**{**base.__dict__, "results": (DRAW,)})
    assert not running.decided and running.first_of(1) == 2 and running.score_of(2) == (0.5, 0.5, 2)
