"""Dots (Kropki): the shared upstream cases, hand-worked rulings, SGF and random-game properties."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import (
    GameFinishedError,
    IllegalMoveError,
    MoveError,
    MoveSyntaxError,
    OptionsError,
    play_text,
)
from games.dots import END, RULESET, STOP, DotsState
from games.dots.sgf import SgfError, parse_nodes
from tests import DATA
from tests.games.test_replay_cli import run_replay

R = RULESET
CASES_FILE = DATA / "dots" / "cases.jsonl"
"""Positions, move orders and game records from public Dots engines (sources: tests/data/README.md)."""


def _load_cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES_FILE.read_text().splitlines() if line.strip()]


CASES = _load_cases()


def case_lines(case: dict[str, Any]) -> list[str]:
    """Set-up dots then moves, as the cases README replays them."""
    return [f"{seat}: {point}" for seat, point in case.get("start_dots", [])] + list(case["moves"])


def case_opts(case: dict[str, Any]) -> dict[str, Any]:
    return {"width": case["width"], "height": case["height"], "start": "empty", "free_order": True}


def replay(opts: dict[str, Any], lines: list[str]) -> DotsState:
    """Replay seat-prefixed lines in-process through the shared play_text."""
    state: DotsState = R.new_game(R.parse_options(opts))
    for line in lines:
        seat, _, text = line.partition(":")
        state, _, _ = play_text(R, state, text, int(seat))
    return state


def strs(d: dict[int, int]) -> dict[str, int]:
    return {str(k): v for k, v in d.items()}


# -- the shared upstream cases -------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_shared_case_in_process(case: dict[str, Any]) -> None:
    lines = case_lines(case)
    opts = case_opts(case)
    for step in case.get("steps", []):
        state = replay(opts, lines[: step["after"]])
        assert strs(R.scores(state)) == step["scores"], ("step", step["after"])
        for seat, n in step.get("ungrounded", {}).items():
            assert R.extra(state)["ungrounded"][seat] == n, ("step", step["after"], seat)
    state = replay(opts, lines)
    expect = case["expect"]
    assert strs(R.scores(state)) == expect["scores"]
    for seat, n in expect.get("ungrounded", {}).items():
        assert R.extra(state)["ungrounded"][seat] == n, seat
    for point in expect.get("illegal_after", []):
        for seat in (1, 2):
            with pytest.raises(IllegalMoveError):
                play_text(R, state, point, seat)
    for point in expect.get("legal_after", []):
        for seat in (1, 2):
            play_text(R, state, point, seat)


CLI_CASES = ["A2-VeryLongGame", "B-simple_surround", "D-Grounding_propagation"]


@pytest.mark.parametrize("name", CLI_CASES)
def test_shared_case_through_cli(name: str) -> None:
    case = next(c for c in CASES if c["name"] == name)
    lines = case_lines(case)
    code, result = run_replay("dots", case_opts(case), lines)
    assert code == 0 and result["error"] is None
    assert result["moves_applied"] == len(lines)
    assert result["scores"] == case["expect"]["scores"]
    for seat, n in case["expect"].get("ungrounded", {}).items():
        assert result["extra"]["ungrounded"][seat] == n
    for point in case["expect"].get("illegal_after", [])[:1]:
        code, result = run_replay("dots", case_opts(case), [*lines, f"2: {point}"])
        assert code == 3
        assert result["error"]["kind"] == "illegal" and result["error"]["line"] == len(lines) + 1
        assert result["scores"] == case["expect"]["scores"]


@pytest.mark.parametrize("case", [c for c in CASES if c.get("sgf")], ids=lambda c: c["name"])
def test_sgf_records_import_to_the_case_lines(case: dict[str, Any]) -> None:
    opts, lines = R.import_sgf(case["sgf"])
    assert (opts["width"], opts["height"]) == (case["width"], case["height"])
    want = case_lines(case)
    # Set-up dots may come in another order; the moves come in record order.
    n = len(case.get("start_dots", []))
    assert sorted(lines[:n]) == sorted(want[:n]) and lines[n:] == want[n:]
    assert strs(R.scores(replay(opts, lines))) == case["expect"]["scores"]


def test_sgf_through_cli(tmp_path: Path) -> None:
    case = next(c for c in CASES if c["name"] == "A4-playdots962686")
    f = tmp_path / "game.sgf"
    f.write_text(case["sgf"], encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "games", "replay", "dots", "--sgf", str(f)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["scores"] == {"1": 3, "2": 2}
    assert result["extra"]["ungrounded"]["1"] == 0
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]SZ[19];B[aa])")
    proc = subprocess.run(
        [sys.executable, "-m", "games", "replay", "dots", "--sgf", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "GM[40]" in proc.stderr


# -- hand-worked rulings ---------------------------------------------------------------------------


def small(lines: list[str], **opts: Any) -> DotsState:
    base: dict[str, Any] = {"width": 5, "height": 5, "start": "empty", "free_order": True}
    return replay({**base, **opts}, lines)


def test_start_positions() -> None:
    state = R.new_game(R.parse_options({}))
    pic = "\n".join(ln[2:] for ln in R.render_text(state).splitlines() if ln[:2].strip().isdigit())  # the rows
    assert R.format(state, (1, state.geo.index(18, 15))) == "S16"
    assert [state.board[state.geo.index(x, y)] for x, y in ((18, 15), (19, 16), (19, 15), (18, 16))] == [
        1,
        1,
        2,
        2,
    ]
    assert pic.count("X") == 2 and pic.count("O") == 2
    double = R.new_game(R.parse_options({"width": 8, "height": 6, "start": "double-cross"}))
    assert double.board.count(1) == 4 and double.board.count(2) == 4
    four = [R.new_game(R.parse_options({"start": "four-crosses", "seed": s})).board for s in (1, 1, 2)]
    assert four[0] == four[1] != four[2]
    assert four[0].count(1) == 8 and four[0].count(2) == 8
    assert R.new_game(R.parse_options({"width": 7, "height": 7, "start": "four-crosses"})).board.count(1) == 8
    empty = R.new_game(R.parse_options({"width": 3, "height": 3, "start": "empty"}))
    assert empty.playable == 9 and R.to_move(empty) == 1


def test_options_validate() -> None:
    opts = R.parse_options({"width": "52", "height": "3", "free_order": "true"})
    assert opts.width == 52 and opts.free_order
    for bad in ({"width": 2}, {"height": 53}, {"start": "triple"}, {"colour": "red"}):
        with pytest.raises(OptionsError):
            R.parse_options(bad)
    with pytest.raises(OptionsError, match="four-crosses needs"):
        R.parse_options({"width": 6, "height": 9, "start": "four-crosses"})
    assert R.default_clock(R.parse_options({})).kind == "move_reserve"
    assert (R.default_clock(opts).move, R.default_clock(opts).reserve) == (60, 300)


def test_notation_and_errors() -> None:
    state = R.new_game(R.parse_options({}))
    assert R.parse_syntax("t16") == R.parse_syntax(" T 16 ") == ("point", 19, 15)
    assert R.parse_syntax("AM32") == ("point", 38, 31)
    assert R.parse_syntax("STOP") == ("stop", 0, 0) and R.parse_syntax("ground")[0] == "stop"
    for text in ("T0", "T16 T17", "16T", "place", ""):
        with pytest.raises(MoveSyntaxError):
            R.parse_syntax(text)
    with pytest.raises(IllegalMoveError, match="AN1 is off the field"):
        R.parse(state, "AN1")
    with pytest.raises(IllegalMoveError, match="S16 already holds a dot"):
        R.parse(state, "s16")
    for m in R.legal_moves(state)[:50] + R.legal_moves(state)[-2:]:
        assert R.parse(state, R.format(state, m)) == m
    assert R.looks_like_move("T16 please") and R.looks_like_move("stop") and not R.looks_like_move("hi all")


def test_capture_suicide_and_dead_points() -> None:
    # Seat 1 rings C3; the enclosed point is dead for both seats.
    state = small(["1: C2", "2: C3", "1: B3", "1: D3", "1: C4"])
    assert R.scores(state) == {1: 1, 2: 0}
    with pytest.raises(IllegalMoveError, match="C3 is inside red's enclosure"):
        play_text(R, state, "C3", 2)
    # An empty ring is no capture; a dot played inside it is taken (legal suicide) ...
    state = small(["1: C2", "1: B3", "1: D3", "1: C4"])
    assert R.scores(state) == {1: 0, 2: 0} and (2, state.geo.index(2, 2)) in R.legal_moves(replace_turn(state, 2))
    after, _, events = play_text(R, state, "C3", 2)
    assert R.scores(after) == {1: 1, 2: 0}
    assert any(e.kind == "capture" and e.data["suicide"] for e in events)
    # ... unless that dot captures: then it lives and the empty ring is void.
    ring = ["1: B1", "1: A2", "1: C2", "1: B3", "2: C1", "2: D2", "2: C3"]
    state = small([*ring, "2: B2"], width=4, height=3)
    assert R.scores(state) == {1: 0, 2: 1}
    assert R.render_text(state).splitlines()[2] == " 2 X O x O"


def replace_turn(state: DotsState, seat: int) -> DotsState:
    from dataclasses import replace

    return replace(state, turn=seat)


def test_recapture_frees_dots_and_leaves_the_score() -> None:
    # Seat 2 takes C3; seat 1 then encloses seat 2's whole base: C3 comes back, 4 wall dots taken.
    state = small(["1: C3", "2: C2", "2: B3", "2: D3", "2: C4"])
    assert R.scores(state) == {1: 0, 2: 1}
    ring = ["C1", "B2", "D2", "A3", "E3", "B4", "D4", "C5"]
    state = small(["1: C3", "2: C2", "2: B3", "2: D3", "2: C4"] + [f"1: {p}" for p in ring])
    assert R.scores(state) == {1: 4, 2: 0}
    assert R.render_text(state).splitlines()[3] == " 3 X o X o X"


def test_stop_end_and_settlement() -> None:
    opts = {"width": 5, "height": 5, "start": "empty"}
    base = ["C2", "C3", "B3", "A1", "D3", "A2", "C4"]
    state = replay_plain(opts, [*base, "A5", "stop"])
    assert R.to_move(state) == 2 and R.extra(state)["ungrounded"] == {"1": 5, "2": 0}
    assert (2, END) in R.legal_moves(state) and (2, STOP) not in R.legal_moves(state)
    state = replay_plain(opts, [*base, "A5", "stop", "E5", "E4"])
    assert R.to_move(state) == 2 and R.outcome(state) is None
    final = replay_plain(opts, [*base, "A5", "stop", "end"])
    assert R.scores(final) == {1: 0, 2: 4}
    out = R.outcome(final)
    assert out is not None and out.winner == 2 and out.reason == "stop"
    assert R.legal_moves(final) == [] and R.to_move(final) is None
    with pytest.raises(GameFinishedError):
        play_text(R, final, "E5")


def replay_plain(opts: dict[str, Any], lines: list[str]) -> DotsState:
    state: DotsState = R.new_game(R.parse_options(opts))
    for line in lines:
        state, _, _ = play_text(R, state, line)
    return state


def test_render_labels_and_marks() -> None:
    state = small(["1: C2", "2: C3", "1: B3", "1: D3", "1: C4", "1: A5"])
    lines = R.render_text(state).splitlines()
    assert lines[0].split() == ["A", "B", "C", "D", "E"]
    assert lines[3] == " 3 . X o X ." and lines[5].startswith(" 5 X")
    # the wide default field: tests/games/test_text_boards.py


# -- random-game properties ------------------------------------------------------------------------


def random_game(rng: random.Random, width: int, height: int, start: str, stop_rate: float) -> list[Any]:
    """(state, move, new state, events) for every ply of one random game."""
    state = R.new_game(R.parse_options({"width": width, "height": height, "start": start}))
    plies = []
    while R.to_move(state) is not None and len(plies) < 400:
        legal = R.legal_moves(state)
        points = [m for m in legal if m[1] >= 0]
        move = legal[-1] if (rng.random() < stop_rate or not points) else rng.choice(points)
        new, events = R.apply(state, move)
        plies.append((state, move, new, events))
        state = new
    return plies


@settings(max_examples=40, deadline=None)
@given(
    width=st.integers(3, 12),
    height=st.integers(3, 12),
    start=st.sampled_from(["empty", "cross"]),
    seed=st.integers(0, 2**32),
    stop_rate=st.sampled_from([0.0, 0.02]),
)
def test_random_game_properties(width: int, height: int, start: str, seed: int, stop_rate: float) -> None:
    rng = random.Random(seed)
    plies = random_game(rng, width, height, start, stop_rate)
    for before, move, after, events in plies:
        b0, b1 = R.scores(before), R.scores(after)
        ending = move[1] == END or after.reason == "stop"
        for seat in (1, 2):
            if b1[seat] < b0[seat] and not ending:
                # Only a re-capture by the other seat frees dots.
                assert any(e.kind == "capture" and e.data["seat"] != seat and e.data["freed"] for e in events)
        # No legal move on a dead or occupied point; every such point is refused.
        geo = after.geo
        legal = {m[1] for m in R.legal_moves(after)}
        for idx in geo.points:
            if after.board[idx]:
                assert idx not in legal
        if R.to_move(after) is not None:
            dead = [i for i in geo.points if after.board[i]]
            if dead:
                with pytest.raises(MoveError):
                    R.parse(after, R.format(after, (1, rng.choice(dead))))
        # The incremental counters agree with a recount of the field.
        cells = [after.board[i] for i in geo.points]
        assert after.playable == cells.count(0)
        assert after.caps == (cells.count(2 | 4), cells.count(1 | 8))
    # SGF export -> import -> replay reproduces the final position.
    final = plies[-1][2] if plies else None
    if final is None:
        return
    options = R.parse_options({"width": width, "height": height, "start": start})
    text = R.export_sgf(options, [m for _, m, _, _ in plies])
    sgf_opts, lines = R.import_sgf(text)
    again = replay(sgf_opts, lines)
    assert again.board == final.board
    assert R.scores(again) == R.scores(final) and R.outcome(again) == R.outcome(final)
    assert (again.stopped, again.reason, again.playable) == (final.stopped, final.reason, final.playable)
    # JSON round trip of the final state.
    assert R.from_json(json.loads(json.dumps(R.to_json(final)))) == final


def test_sgf_parser_details() -> None:
    nodes = parse_nodes("(;GM[40]SZ[5]C[a \\] b];B[aa](;W[bb];B[cc])(;W[dd]))")
    assert [n[0][0] for n in nodes[1:]] == ["B", "W", "B"]
    assert nodes[0][2] == ("C", ["a ] b"])
    opts, lines = R.import_sgf("(;GM[40]SZ[4]AB[aa][bb]AW[ab];B[cc.ccdd];W[dc][dd];B[];W[])")
    assert opts == {"width": 4, "height": 4, "start": "empty", "free_order": True}
    assert lines == ["1: A1", "2: A2", "1: B2", "1: C3", "2: D3", "2: D4", "1: stop", "2: end"]
    with pytest.raises(SgfError):
        R.import_sgf("(;GM[40]SZ[3];B[dd])")
    with pytest.raises(SgfError):
        R.import_sgf("no tree here")
    assert "SZ[39:32]" in R.export_sgf({}, []) and "AB[sp][tq]" in R.export_sgf({}, [])
