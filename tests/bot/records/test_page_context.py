"""Where a match stood, for its review page, read through the tournament and series services that the
composition root builds for the pages (`build_readers`), never through their tables: a tournament game's
round and board, a series game's number and the score before it, nothing for a lone match."""

from __future__ import annotations

import pytest

from bot.compose import build_readers, scope_of_match
from bot.host.service import PlayerRef
from bot.ownership.scope import Scope
from bot.records.pagecontext import match_context
from bot.series import SeriesService
from bot.tournaments.core import TournamentCore
from bot.tournaments.lookup import MatchPlace
from bot.tournaments.rounds import Game
from bot.tournaments.service import TournamentService
from tests.bot.conftest import Recorder, make_service
from tests.bot.series.test_series_core import PLAYERS, play_one_box
from tests.buses import following

pytestmark = pytest.mark.looptime


async def test_a_series_game_says_its_number_and_the_score_before_it(migrated_db_url: str) -> None:
    service = await make_service(migrated_db_url, Recorder(), heartbeat_seconds=3600)
    series = SeriesService(service, hear=following(service))
    readers = build_readers(service.store)
    try:
        _made, first = await series.create("boxes", PLAYERS, 3, options={"rows": 1, "cols": 1})
        await play_one_box(service, first)  # the seat moving second, bob, takes the box
        await series.drain()
        (second,) = service.live
        lone = await service.create_match("boxes", [PlayerRef("a", "alice"), PlayerRef("c", "carol")])
        said = {}
        for mid in (first, second, lone):
            stored = await service.store.load(mid)
            assert stored is not None
            said[mid] = await match_context(readers.tournaments, readers.series, stored)
        assert said == {
            first: ["Series best of 3, game 1 (0–0 before it)"],
            second: ["Series best of 3, game 2 (0–1 before it)"],
            lone: [],
        }
        found = await readers.series.series_of(second, ["a", "b"])
        assert found is not None and found.matches == (first, second)
        assert await readers.series.series_of(lone, ["a", "c"]) is None
    finally:
        await series.close()
        await service.close()
        await service.store.close()


async def test_a_tournament_game_says_its_round_and_board(migrated_db_url: str) -> None:
    host = await make_service(migrated_db_url)
    service = TournamentService(TournamentCore(host))
    service.hear = following(host)
    await service.start()
    readers = build_readers(host.store)
    try:
        tid = await service.create("Spring Cup", "boxes", "elimination", options={"rows": 2, "cols": 2})
        for p in ("p1", "p2", "p3", "p4"):
            await service.join(tid, p, p.upper())
        await service.start_tournament(tid, by="host")
        games = [g for g in await service.games(tid) if isinstance(g.pairing, Game)]
        assert len(games) == 2 and all(g.match_id for g in games)
        assert await readers.tournaments.match_ids(tid) == {g.match_id for g in games}
        assert await readers.tournaments.match_ids(tid + 1) == set()
        for g in games:
            assert g.match_id is not None
            place = await readers.tournaments.place_of(g.match_id)
            assert place == MatchPlace(tid, "Spring Cup", 1, g.board)
            stored = await host.store.load(g.match_id)
            assert stored is not None
            said = await match_context(readers.tournaments, readers.series, stored)
            assert said == [f"Tournament Spring Cup, round 1, board {g.board}"]
            assert await scope_of_match(host.store, g.match_id) == (Scope.TOURNAMENT, tid)
        lone = await host.create_match("boxes", [PlayerRef("x", "X"), PlayerRef("y", "Y")])
        assert await readers.tournaments.place_of(lone) is None
        assert await scope_of_match(host.store, lone) == (Scope.MATCH, lone)
    finally:
        await service.close()
        await host.close()
        await host.store.close()
