"""Insights equal, move for move, to the stored analyses; the fair-play report's rates and flags; the command
lines `dmhost puzzles build`, `puzzle`, `insights` and `fairplay`."""

from __future__ import annotations

import io
import json
from collections import Counter
from typing import Any

import pytest

from bot.coaching.fairplay import FLAG_RATE, MIN_MOVES, is_hard, report
from bot.coaching.insights import VERDICTS, AnalysedMatch
from bot.compose import build_coaching
from bot.ops.cli import main
from bot.records.analysis_store import load_analysis
from bot.store.matches import MatchStore


async def test_insights_equal_the_stored_analyses(analysed_db: tuple[str, list[int]]) -> None:
    url, ids = analysed_db
    store = MatchStore(url)
    await store.open()
    try:
        coaching = build_coaching(store)
        pids = await coaching.player_ids("AL")
        assert pids == ["local:al"]
        (row,) = await coaching.insights(pids)
        # Counted again here, straight from each stored analysis: al's analysed moves.
        verdicts: Counter[str] = Counter()
        lost = 0.0
        moves = 0
        for mid in ids:
            stored = await store.load(mid)
            entries = await load_analysis(store, mid)
            assert stored is not None and entries is not None
            seat = next(s for s, (pid, _n) in stored.players.items() if pid == "local:al")
            for e in entries:
                if e["seat"] == seat and e["analysed"]:
                    moves += 1
                    verdicts[e["verdict"]] += 1
                    lost += e["loss"] / 2
        assert row["game"] == "boxes" and row["matches"] == len(ids) and row["unit"] == "boxes"
        assert row["moves"] == moves
        assert row["verdicts"] == {v: verdicts.get(v, 0) for v in VERDICTS}
        assert row["lost"] == pytest.approx(lost)
        assert sum(p["moves"] for p in row["phases"].values()) == moves
        assert sum(p["lost"] for p in row["phases"].values()) == pytest.approx(lost)
        for v in VERDICTS:
            assert sum(p["verdicts"][v] for p in row["phases"].values()) == row["verdicts"][v]
        (versus,) = row["opponents"]
        assert versus["opponent"] == "bo" and versus["matches"] == len(ids) and versus["moves"] == moves
    finally:
        await store.close()


def _entry(seat: int, ply: int, verdict: str, best: int = 1) -> dict[str, Any]:
    return {
        "ply": ply,
        "seat": seat,
        "move": "x",
        "analysed": True,
        "best": ["b"] * best,
        "loss": 0,
        "verdict": verdict,
    }


def _match(i: int, a_best: int, rated: bool = True) -> AnalysedMatch:
    """Ten hard moves each: `a_best` of a's are the engine's best, half of b's."""
    entries = []
    for k in range(10):
        entries.append(_entry(1, 2 * k + 1, "best" if k < a_best else "mistake"))
        entries.append(_entry(2, 2 * k + 2, "best" if k % 2 else "good"))
        entries.append(_entry(2, 2 * k + 2, "best", best=30))  # not hard: most moves are best
    return AnalysedMatch(i, "dots", None, rated, {}, {1: ("a", "ann"), 2: ("b", "ben")}, entries)


def test_a_player_who_always_finds_the_engine_move_is_flagged_with_the_evidence() -> None:
    games = [_match(i, 10) for i in range(MIN_MOVES // 10)]
    rows = report(games)
    assert rows[0] == {
        "player": "ann",
        "game": "dots",
        "matches": len(games),
        "moves": 10 * len(games),
        "engine_rate": 1.0,
        "expected_rate": 0.5,
        "flag": True,
    }
    assert rows[1]["player"] == "ben" and rows[1]["flag"] is False and rows[1]["engine_rate"] == 0.5
    # Fewer hard moves than the evidence needs, a rate under the bar, or casual matches: no flag.
    assert not report(games[:-1])[0]["flag"]
    assert not any(r["flag"] for r in report([_match(i, int(10 * FLAG_RATE) - 1) for i in range(10)]))
    assert report([_match(i, 10, rated=False) for i in range(10)]) == []


def test_a_player_as_good_as_their_rating_band_is_not_flagged() -> None:
    games = [_match(i, 10) for i in range(10)]
    # ann's peers (within the band) find the engine move as often as she does.
    peers = [
        AnalysedMatch(100 + i, "dots", None, True, {}, {1: ("c", "cy"), 2: ("d", "di")}, _match(0, 10).entries)
        for i in range(10)
    ]
    ratings = {"a": 2000.0, "c": 2050.0, "d": 1500.0, "b": 1200.0}  # cy is in her band, di and ben are not
    rows = {r["player"]: r for r in report(games + peers, lambda pid, _g: ratings.get(pid))}
    assert rows["ann"]["expected_rate"] == 1.0 and rows["ann"]["flag"] is False


def test_hard_positions() -> None:
    boxes = {"rows": 3, "cols": 3}
    assert is_hard("boxes", _entry(1, 1, "best", best=1), boxes)
    assert not is_hard("boxes", _entry(1, 23, "best", best=1), boxes)  # two edges left: no choice worth the name
    assert not is_hard("boxes", _entry(1, 1, "best", best=0), boxes)
    assert not is_hard("dots", {**_entry(1, 1, "best"), "analysed": False}, {})


def _run(argv: list[str], capsys: pytest.CaptureFixture[str], stdin: str = "") -> tuple[int, str, str]:
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        code = main(argv)
    finally:
        sys.stdin = old
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_command_lines(analysed_db: tuple[str, list[int]], capsys: pytest.CaptureFixture[str]) -> None:
    url, ids = analysed_db
    code, out, _err = _run(["puzzles", "build", "--db", url, "--json"], capsys)
    assert code == 0
    lines = [json.loads(x) for x in out.splitlines()]
    assert lines and all(
        set(x) == {"puzzle", "match", "ply", "game", "options", "moves", "answer", "value", "proof"} for x in lines
    )
    code, out, _err = _run(["puzzles", "build", "--db", url], capsys)
    assert code == 0 and out.splitlines()[-1].startswith("0 new puzzles")

    # A wrong text first (one clear line, asked again), then the answer.
    by_id = {x["puzzle"]: x for x in lines}
    code, out, _err = _run(["puzzle", "--db", url, "--player", "cy", "--events-json"], capsys, "hello\n")
    events = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and [e["event"] for e in events] == ["puzzle", "refused"]
    first = events[0]["puzzle"]
    answer = by_id[first]["answer"][0]
    code, out, _err = _run(["puzzle", "--db", url, "--player", "cy", "--events-json"], capsys, f"{answer}\n")
    events = [json.loads(x) for x in out.splitlines()]
    assert events[0]["event"] == "puzzle" and events[0]["puzzle"] == first  # not answered before: served again
    assert events[1]["event"] == "solved" and events[1]["answer"] == [answer] and events[1]["rating"] > 1500
    assert events[1]["line"][0] == answer
    code, out, _err = _run(["puzzle", "--db", url, "--player", "cy"], capsys, "")
    assert code == 0 and "to move" in out  # the next puzzle, in words; end of input: nothing rated

    code, out, _err = _run(["insights", "al", "--db", url, "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["player"] == "al" and data["games"][0]["matches"] == len(ids)
    code, _out, err = _run(["insights", "nobody", "--db", url], capsys)
    assert code == 2 and err.count("\n") == 1

    code, out, _err = _run(["fairplay", "--db", url, "--json"], capsys)
    rows = json.loads(out)
    assert code == 0 and {r["player"] for r in rows} == {"al", "bo"}
    assert all(set(r) == {"player", "game", "matches", "moves", "engine_rate", "expected_rate", "flag"} for r in rows)
    code, _out, err = _run(["fairplay", "--db", url, "--game", "chess"], capsys)
    assert code == 2 and "unknown" in err
