"""Certified puzzles: built from the stored analyses of finished matches, each re-checked by the solver from its
move list, never from a match in progress; served, judged and rated (Glicko-2, per server and game)."""

from __future__ import annotations

from typing import Any

from bot.coaching import PuzzleMoveError
from bot.coaching.certify import check
from bot.compose import build_coaching
from bot.host.service import PlayerRef
from bot.records.analysis import analyse_match
from bot.records.analysis_store import load_analysis, save_analysis
from bot.store.matches import MatchStore
from games import registry
from games.solver import move_values
from tests.bot.conftest import make_service

KEYS = {"puzzle", "match", "ply", "game", "options", "moves", "answer", "value", "proof"}


def _position(game: str, options: dict[str, Any], moves: list[str]) -> Any:
    ruleset = registry.get(game)
    state = ruleset.new_game(ruleset.parse_options(options))
    for text in moves:
        state, _ev = ruleset.apply(state, ruleset.parse(state, text))
    return state


async def test_every_certified_puzzle_has_one_best_move_by_the_solver(analysed_db: tuple[str, list[int]]) -> None:
    url, ids = analysed_db
    store = MatchStore(url)
    await store.open()
    try:
        coaching = build_coaching(store)
        added = await coaching.build()
        puzzles = await coaching.puzzles()
        assert added == len(puzzles) >= len(ids) // 3  # at least one puzzle per three matches
        assert await coaching.build() == 0  # each match is searched once
        assert await coaching.scanned() == (len(ids), added)
        for p in puzzles:
            line = p.as_json()
            assert set(line) == KEYS
            assert len(line["answer"]) == 1
            state = _position(p.game, p.options, p.moves)
            assert registry.get(p.game).to_json(state) == p.position
            # The solver, from scratch: the answer is the one optimal edge, every other strictly worse.
            res = move_values(state.rows, state.cols, state.drawn)
            ruleset = registry.get(p.game)
            best = [ruleset.format(state, e) for e in res.best]
            assert best == p.answer
            assert p.value == res.value == p.proof["best_value"]
            assert all(v < res.value for e, v in res.move_values.items() if e not in res.best)
            assert check(p.game, ruleset, state, p.answer[0])
            # The position is one where the mover erred, by the stored analysis's own verdict.
            entries = await load_analysis(store, p.match_id)
            assert entries is not None
            entry = next(e for e in entries if e["ply"] == p.ply + 1)
            assert entry["verdict"] in ("inaccuracy", "mistake", "blunder")
            assert entry["move"] != p.answer[0]
            assert p.proof["line"][0] == p.answer[0]
    finally:
        await store.close()


async def test_no_puzzle_from_a_match_in_progress(migrated_sqlite_url: str) -> None:
    service = await make_service(migrated_sqlite_url)
    try:
        mid = await service.create_match("boxes", [PlayerRef("a", "al"), PlayerRef("b", "bo")], rules={"takeback": 0})
        live = service.get(mid)
        # A blunder that gives a box away, with a unique best move before it... still, the match is running.
        for text in ["A1-B1", "A2-B2", "A1-A2"]:
            seat = live.ruleset.to_move(live.state)
            assert (await service.submit(mid, live.players[seat].id, text)).status == "accepted"
        stored = await service.store.load(mid, with_events=True)
        assert stored is not None
        await save_analysis(service.store, mid, analyse_match(stored))  # even with an analysis stored
        coaching = build_coaching(service.store)
        assert await coaching.build_match(mid) == 0
        assert await coaching.build() == 0
        assert await coaching.puzzles() == []
    finally:
        await service.close()


async def test_serving_judges_rates_and_never_repeats(analysed_db: tuple[str, list[int]]) -> None:
    url, _ids = analysed_db
    store = MatchStore(url)
    await store.open()
    try:
        coaching = build_coaching(store)
        await coaching.build()
        total = len(await coaching.puzzles())
        seen = []
        for i in range(total):
            p = await coaching.next_puzzle(None, "local:cy", "boxes")
            assert p is not None and p.id not in seen
            seen.append(p.id)
            assert p.mover_name in ("al", "bo")
            try:
                coaching.check_move(p, "Z9-Z10")
            except PuzzleMoveError as exc:
                assert "off the board" in str(exc)
            else:
                raise AssertionError("an off-board move is refused")
            state = p.state()
            ruleset = p.ruleset()
            wrong = next(
                ruleset.format(state, m) for m in ruleset.legal_moves(state) if ruleset.format(state, m) != p.answer[0]
            )
            result = await coaching.answer(p, None, "local:cy", p.answer[0] if i % 2 == 0 else wrong)
            assert result.solved == (i % 2 == 0)
            assert (result.change > 0) == result.solved
        assert await coaching.next_puzzle(None, "local:cy", "boxes") is None
        _rating, count = await coaching.puzzle_rating(None, "boxes", "local:cy")
        assert count == total
        # Another server's player has their own rating, and the puzzles are this server's (terminal: none).
        assert await coaching.next_puzzle(42, "discord:1", "boxes") is None
    finally:
        await store.close()


async def test_no_engine_analyses_a_rated_match_in_progress_for_its_players(migrated_sqlite_url: str) -> None:
    service = await make_service(migrated_sqlite_url)
    try:
        coaching = build_coaching(service.store)
        players = [PlayerRef("a", "al"), PlayerRef("b", "bo")]
        rated = await service.create_match("boxes", players, rules={"takeback": 0})
        casual = await service.create_match("boxes", players, rules={"takeback": 0}, rated=False)
        assert await coaching.analysis_refused(rated, "a") and await coaching.analysis_refused(rated, "b")
        assert not await coaching.analysis_refused(rated, "c")  # a spectator
        assert not await coaching.analysis_refused(casual, "a")
        live = service.get(rated)
        assert (await service.submit(rated, live.players[1].id, "resign")).status == "accepted"
        assert not await coaching.analysis_refused(rated, "a")  # over: analysed for everyone
    finally:
        await service.close()


async def test_puzzles_are_built_as_each_analysis_lands(migrated_sqlite_url: str) -> None:
    import json

    from bot.compose import build_host
    from tests import DATA

    game = json.loads((DATA / "analysis" / "boxes-3x3-blunder.json").read_text())
    host = build_host(migrated_sqlite_url)
    await host.open()
    await host.service.start()
    worker = host.start_analysis(catch_up=False)
    try:
        mid = await host.service.create_match(
            "boxes", [PlayerRef("a", "al"), PlayerRef("b", "bo")], options=game["options"], rules={"takeback": 0}
        )
        live = host.service.get(mid)
        for text in game["moves"]:
            seat = live.ruleset.to_move(live.state)
            assert (await host.service.submit(mid, live.players[seat].id, text)).status == "accepted"
        await worker.drain()
        await host.coaching.drain()
        scanned, found = await host.coaching.scanned()
        assert scanned == 1 and found == len(await host.coaching.puzzles()) >= 1
        assert {p.match_id for p in await host.coaching.puzzles()} == {mid}
    finally:
        await worker.close()
        await host.close()


async def test_the_service_on_sqlite_and_postgresql(migrated_db_url: str) -> None:
    import datetime as dt

    from tests.bot.coaching.players import play

    service = await make_service(migrated_db_url)
    try:
        players = [("7", "al", "easy"), ("8", "bo", "medium")]
        ids = [await play(service, "boxes", {"rows": 3, "cols": 3}, players, seed, guild_id=5) for seed in range(3)]
        coaching = build_coaching(service.store)
        added = await coaching.build("boxes")
        assert added >= 1 and await coaching.build() == 0
        assert await coaching.next_puzzle(None, "9", "boxes") is None  # another server's puzzles
        p = await coaching.next_puzzle(5, "9", "boxes")
        assert p is not None and await coaching.servable(p, "9")
        result = await coaching.answer(p, 5, "9", p.answer[0])
        assert result.solved and result.rating > 1500
        again = await coaching.answer(p, 5, "9", p.answer[0])
        assert again.change == 0 and again.rating == result.rating  # judged, not rated twice
        (row,) = await coaching.insights(["7"], None, 5)
        assert row["matches"] == len(ids)
        assert {r["player"] for r in await coaching.fairplay("boxes", 5)} == {"al", "bo"}
        await coaching.set_daily(5, 77)
        assert await coaching.daily_channels() == {5: 77}
        today = dt.date(2026, 12, 6)
        first = await coaching.daily(5, today)
        assert first is not None and (await coaching.daily(5, today)) == first
        second = await coaching.daily(5, today + dt.timedelta(days=1))
        assert second is not None and (second.id != first.id or added == 1)
    finally:
        await service.close()


async def test_a_player_is_never_served_a_puzzle_of_their_own_unfinished_series(migrated_sqlite_url: str) -> None:
    import json

    from bot.series import SeriesService
    from tests import DATA

    game = json.loads((DATA / "analysis" / "boxes-3x3-blunder.json").read_text())
    service = await make_service(migrated_sqlite_url)
    try:
        series = SeriesService(service)
        players = [PlayerRef("local:al", "al"), PlayerRef("local:bo", "bo")]
        _s, mid = await series.create("boxes", players, 3, options=game["options"], rules={"takeback": 0})
        live = service.get(mid)
        for text in game["moves"]:
            seat = live.ruleset.to_move(live.state)
            assert (await service.submit(mid, live.players[seat].id, text)).status == "accepted"
        stored = await service.store.load(mid, with_events=True)
        assert stored is not None and stored.status == "finished"
        await save_analysis(service.store, mid, analyse_match(stored))
        coaching = build_coaching(service.store)
        assert await coaching.build() >= 1
        # The series goes on (best of three, one game played): its players get none of its puzzles.
        for player in ("local:al", "local:bo"):
            assert await coaching.next_puzzle(None, player) is None
        p = await coaching.next_puzzle(None, "local:cy")
        assert p is not None and p.match_id == mid
        assert await coaching.servable(p, "local:cy") and not await coaching.servable(p, "local:al")
    finally:
        await service.close()
