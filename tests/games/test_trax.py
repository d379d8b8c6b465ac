"""Trax: the upstream case files, perft, notation round-trips and hand-worked positions."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import ClockSpec, IllegalMoveError, MoveSyntaxError, OptionsError, play_text
from games.clitools import replay_lines
from games.coords import col_to_letters
from games.trax import RULESET as R
from games.trax import THREE_SAME, TraxState, perft
from games.trax.board import FIT, frontier, need
from tests import DATA, seeds

CASES = DATA / "trax"
"""Real games and short upstream vectors (sources: tests/data/README.md)."""


def _load(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (CASES / name).read_text().splitlines() if line.strip()]


REAL = _load("real-games.jsonl")
SHORT = _load("short-cases.jsonl")


def _expected(case: dict[str, Any]) -> dict[str, Any]:
    illegal_at = case.get("illegal_at")
    return {
        "moves_applied": len(case["moves"]) if illegal_at is None else illegal_at - 1,
        "status": "finished" if case["winner"] is not None else "ongoing",
        "winner": case["winner"],
        "reason": case["reason"],
        "error_line": illegal_at,
        "extra": {"tiles": case["tiles"], "width": case["width"], "height": case["height"]},
    }


def _actual(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "moves_applied": result["moves_applied"],
        "status": result["status"],
        "winner": result["winner"],
        "reason": result["reason"],
        "error_line": result["error"]["line"] if result["error"] else None,
        "extra": result["extra"],
    }


def _new(first_color: str = "white") -> TraxState:
    return R.new_game(R.parse_options({"first_color": first_color}))


def _play(moves: list[str], state: TraxState | None = None) -> TraxState:
    state = _new() if state is None else state
    for text in moves:
        state, _move, _events = play_text(R, state, text)
    return state


# -- upstream case files--------------------------------------------------------------------


def test_every_real_game_replays_with_its_verdict() -> None:
    assert len(REAL) == 277
    options = R.parse_options({})
    wrong = []
    for case in REAL:
        result, _state = replay_lines(R, options, case["moves"])
        if _actual(result) != _expected(case):
            wrong.append((case["source"], _actual(result), _expected(case)))
    assert wrong == []


@pytest.mark.parametrize("case", SHORT, ids=[c["source"][-50:] for c in SHORT])
def test_short_case(case: dict[str, Any]) -> None:
    result, _state = replay_lines(R, R.parse_options({}), case["moves"])
    assert _actual(result) == _expected(case)
    if result["status"] == "ongoing":
        assert result["to_move"] == 1 + result["moves_applied"] % 2
    if case.get("illegal_at"):
        assert result["error"]["kind"] == "illegal"


@pytest.mark.parametrize("index", [0, 276])
def test_real_games_through_the_cli(index: int) -> None:
    case = REAL[index]
    proc = subprocess.run(
        [sys.executable, "-m", "games", "replay", "trax", "-"],
        input="\n".join(case["moves"]) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert _actual(json.loads(proc.stdout)) == _expected(case)


def test_illegal_short_cases_through_the_cli() -> None:
    for case in [c for c in SHORT if c.get("illegal_at")][:2]:
        proc = subprocess.run(
            [sys.executable, "-m", "games", "replay", "trax"],
            input="\n".join(case["moves"]) + "\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 3
        assert _actual(json.loads(proc.stdout)) == _expected(case)


# -- perft and legal moves -----------------------------------------------------------------


def test_perft_to_depth_4() -> None:
    state = _new()
    assert [perft(state, d) for d in range(5)] == [1, 2, 24, 432, 9568]


def _random_state(seed: int, plies: int) -> TraxState:
    rng = random.Random(seed)
    state = _new()
    for _ in range(plies):
        moves = R.legal_moves(state)
        if not moves:
            break
        state, _ = R.apply(state, rng.choice(moves))
    return state


@pytest.mark.parametrize("seed", seeds(0, 8))
def test_legal_moves_are_exactly_the_playable_placements(seed: int) -> None:
    state = _random_state(seed, 10 + seed % 8 * 3)
    if state.finished:
        assert R.legal_moves(state) == [] and perft(state, 1) == 0
        return
    legal = R.legal_moves(state)
    assert len(legal) == len(set(legal)) == perft(state, 1)
    board = state.board
    for cell in frontier(board):
        for tile in FIT[need(board, cell)]:
            text = R.format(state, (cell, tile))
            if (cell, tile) in legal:
                assert R.parse(state, text) == (cell, tile)
            else:
                with pytest.raises(IllegalMoveError) as info:
                    R.parse(state, text)
                assert info.value.code == THREE_SAME


# -- notation ------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(1, 40), red=st.booleans())
def test_formatted_games_replay_identically(seed: int, plies: int, red: bool) -> None:
    rng = random.Random(seed)
    state = _new("red" if red else "white")
    standard: list[str] = []
    death_match: list[str] = []
    for _ in range(plies):
        moves = R.legal_moves(state)
        if not moves:
            break
        move = rng.choice(moves)
        standard.append(R.format(state, move))
        death_match.append(R.format_dm(state, move))
        assert R.parse(state, standard[-1]) == move
        assert R.parse(state, death_match[-1]) == move
        state, events = R.apply(state, move)
        assert events[0].kind == "move" and events[0].data["move"] == standard[-1]
    for texts in (standard, death_match):
        again = _play(texts, _new("red" if red else "white"))
        assert R.to_json(again) == R.to_json(state)
        assert R.outcome(again) == R.outcome(state)


@pytest.mark.parametrize(
    ("text", "standard"),
    [
        ("B1 west east", "B1+"),
        ("B1 W-E", "B1+"),
        ("b1 we", "B1+"),
        ("B1 left right", "B1+"),
        ("B1 red w e", "B1+"),
        ("B1 white N S", "B1+"),
        ("B1 west north", "B1/"),
        ("B1 top left", "B1/"),
        ("B1 TOP-LEFT", "B1/"),
        ("B1 northwest", "B1/"),
        ("B1 topleft", "B1/"),
        ("B1 left down", "B1\\"),
        ("A2 east west", "A2+"),
        ("A2 south east", "A2/"),
        ("A2 bottom right", "A2/"),
        ("A2 white north west", "A2/"),
        ("A2 red s w", "A2\\"),
        ("a2 sw", "A2\\"),
        ("A2 ws", "A2\\"),
        ("A2: white north and east", "A2\\"),
        ("A2\\", "A2\\"),
        ("A2\\\\", "A2\\"),
        ("`A2\\`", "A2\\"),
        ("`A2\\\\`", "A2\\"),
        ("a2 /", "A2/"),
        (" A 2 + ", "A2+"),
    ],
)
def test_death_match_forms_and_escapes(text: str, standard: str) -> None:
    # After @0+ Red (seat 2) moves: A1 sends red east into B1 and white south into A2.
    state = _play(["@0+"])
    assert R.format(state, R.parse(state, text)) == standard


def test_side_words_follow_the_movers_colour() -> None:
    state = _play(["@0+", "B1+"])  # White to move: A2 below A1 is entered by white from the north.
    assert R.format(state, R.parse(state, "A2 north east")) == "A2\\"
    with pytest.raises(IllegalMoveError, match="does not fit"):
        R.parse(state, "A2 east west")  # white E–W would put red on the north side
    assert R.format(state, R.parse(state, "A2 red east west")) == "A2+"


@pytest.mark.parametrize(
    "text", ["", "A2", "A2 x", "A2 north", "A2 n n", "A2 white red n e", "A2 north-east-south", "hi"]
)
def test_bad_text_is_a_syntax_error(text: str) -> None:
    with pytest.raises(MoveSyntaxError):
        R.parse_syntax(text)


@pytest.mark.parametrize(
    ("text", "looks"),
    [
        ("B3/", True),
        ("b3 north east", True),
        ("C12 ne", True),
        ("@0+", True),
        ("ok", False),
        ("I have 2 ideas", False),
    ],
)
def test_looks_like_move(text: str, looks: bool) -> None:
    assert R.looks_like_move(text) is looks


def test_first_move_in_any_orientation_becomes_a_standard_one() -> None:
    assert R.format(_new(), R.parse(_new(), "@0 east west")) == "@0+"
    assert R.format(_new(), R.parse(_new(), "@0 south east")) == "@0/"
    # Red moving first: red north-south is white east-west, which is @0+ seen from the side.
    assert R.format(_new("red"), R.parse(_new("red"), "@0 north south")) == "@0+"
    with pytest.raises(IllegalMoveError, match="@0"):
        R.parse(_new(), "A1 north south")


def test_columns_past_z_use_two_letters() -> None:
    moves = ["@0/"]
    for i in range(1, 27):
        moves += [f"{col_to_letters(i)}{i}+", f"{col_to_letters(i)}{i + 1}/"]
    state = _play(moves[:-1])
    assert state.width == 27
    assert R.format(state, R.parse(state, "aa27/")) == "AA27/"
    assert R.render_text(state).splitlines()[0].split()[-2:] == ["AA", "AB"]


# -- rules ---------------------------------------------------------------------------------


def test_three_same_carries_the_code_the_host_needs() -> None:
    state = _play(["@0+", "B1/", "C1/", "A2/", "A3+", "A4/", "B4+", "C4/"])
    with pytest.raises(IllegalMoveError) as info:
        play_text(R, state, "C3/")
    assert info.value.code == THREE_SAME
    assert "three white tracks" in info.value.reason
    assert R.extra(_play(["C3+"], state))["tiles"] == 12


def test_forced_tiles_are_reported_and_rewound_with_their_turn() -> None:
    before = _play(["@0+", "B1+"])
    after, _move, events = play_text(R, before, "A2\\")
    assert [e.kind for e in events] == ["move", "forced"]
    assert events[1].data["tiles"] == ["B2/"]
    assert len(after.tiles) == 4
    assert R.to_json(R.rewind(after)) == R.to_json(before)
    assert R.to_json(R.rewind(after, 3)) == R.to_json(_new())
    assert R.turns_played(R.rewind(after, 2)) == 1


def test_mulligan_after_a_win_reopens_the_game() -> None:
    done = _play(["@0/", "A2\\", "B1\\"])
    assert R.outcome(done) is not None and R.to_move(done) is None
    back = R.rewind(done, 2)
    assert R.outcome(back) is None and R.to_move(back) == 2


def test_state_json_round_trips_finished_games() -> None:
    state = _play(["@0+", "A2+", "A3+", "A4+", "A5+", "A6+", "A7+", "A8+"])
    data = json.loads(json.dumps(R.to_json(state)))
    again = R.from_json(data)
    assert again == state
    assert R.outcome(again) == R.outcome(state)
    assert R.outcome(state) is not None and R.outcome(state).reason == "line"  # type: ignore[union-attr]


def test_render_labels_match_the_notation() -> None:
    state = _play(["@0+", "B1+", "A2\\"])
    lines = R.render_text(state).splitlines()
    assert lines[0].split() == ["@", "A", "B", "C"]
    labels = [line.split()[0] for line in lines[1:] if line[:1].isdigit()]
    assert labels == ["0", "1", "2", "3"]
    assert "#+#+#" in R.render_text(state)  # red runs across row 1
    assert "o white" in lines[-2] and "seat 2 (red) to move" in lines[-1]


def test_options_and_clock() -> None:
    assert R.parse_options({"first_color": "RED"}).first_color == "red"
    with pytest.raises(OptionsError):
        R.parse_options({"first_color": "blue"})
    assert R.default_clock(R.parse_options({})) == ClockSpec("grace", move=60, grace=600)
    assert R.colour_of(_new("red"), 1) == "red"
    assert R.scores(_play(["@0+"])) == {1: 0, 2: 0}


def test_apply_refuses_moves_that_did_not_come_from_validate() -> None:
    state = _play(["@0+"])
    key = next(iter(state.board))
    with pytest.raises(IllegalMoveError):
        R.apply(state, (key, 5))  # occupied
    with pytest.raises(IllegalMoveError):
        R.apply(state, (key + 1, 10))  # red north side against white
    with pytest.raises(IllegalMoveError):
        R.apply(_new(), (key, 3))


# -- independent slow checkers ---------------------------------------------------------------


def _naive_closure(board: dict[int, int]) -> bool:
    """Fill forced cells by rescanning the whole board; False on a three-same cell."""
    offsets = {0: -1, 1: 1 << 16, 2: 1, 3: -(1 << 16)}
    while True:
        empties = {k + o for k in board for o in offsets.values()} - set(board)
        changed = False
        for cell in empties:
            white = [s for s, o in offsets.items() if cell + o in board and board[cell + o] >> ((s + 2) % 4) & 1]
            red = [s for s, o in offsets.items() if cell + o in board and not board[cell + o] >> ((s + 2) % 4) & 1]
            if len(white) >= 3 or len(red) >= 3:
                return False
            if len(white) == 2 or len(red) == 2:
                whites = white if len(white) == 2 else [s for s in range(4) if s not in red]
                board[cell] = sum(1 << s for s in whites)
                changed = True
        if not changed:
            return True


def _naive_structures(board: dict[int, int]) -> dict[int, set[str]]:
    """Every loop and line on the board, per colour (1 white, 0 red), by following every track."""
    offsets = {0: -1, 1: 1 << 16, 2: 1, 3: -(1 << 16)}
    xs = [k >> 16 for k in board]
    ys = [k & 0xFFFF for k in board]
    out: dict[int, set[str]] = {0: set(), 1: set()}
    for start, mask in board.items():
        for colour in (0, 1):
            sides = [s for s in range(4) if (mask >> s & 1) == colour]
            ends = []
            for side in sides:
                k, d, steps = start, side, 0
                while True:
                    n = k + offsets[d]
                    if n not in board:
                        ends.append((k, d))
                        break
                    if n == start:
                        out[colour].add("loop")
                        break
                    entry = (d + 2) % 4
                    m = board[n]
                    d = next(s for s in range(4) if s != entry and (m >> s & 1) == (m >> entry & 1))
                    k, steps = n, steps + 1
            if len(ends) == 2:
                (k1, d1), (k2, d2) = sorted(ends, key=lambda e: e[1])
                if (d1, d2) == (1, 3) and max(xs) - min(xs) >= 7:
                    if k1 >> 16 == max(xs) and k2 >> 16 == min(xs):
                        out[colour].add("line")
                if (d1, d2) == (0, 2) and max(ys) - min(ys) >= 7:
                    if k1 & 0xFFFF == min(ys) and k2 & 0xFFFF == max(ys):
                        out[colour].add("line")
    return out


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_engine_agrees_with_slow_checkers(seed: int) -> None:
    rng = random.Random(seed)
    state = _new()
    while not state.finished:
        legal = set(R.legal_moves(state))
        for cell in frontier(state.board):
            for tile in FIT[need(state.board, cell)]:
                trial = dict(state.board)
                trial[cell] = tile
                assert _naive_closure(trial) == ((cell, tile) in legal)
        move = rng.choice(sorted(legal))
        mover = state.seat
        trial = dict(state.board) if state.tiles else {}
        trial[move[0]] = move[1]
        _naive_closure(trial)
        state, _ = R.apply(state, move)
        assert trial == state.board
        found = _naive_structures(state.board)
        mine = state.colour_of(mover)
        if found[mine]:
            assert state.winner == mover and state.reason in found[mine]
        elif found[1 - mine]:
            assert state.winner == 3 - mover and state.reason in found[1 - mine]
        else:
            assert not state.finished
