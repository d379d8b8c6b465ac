"""Dot Dash: hand-worked positions (tests/data/dotdash), the opening flow, and the bitboards checked
against a slow point-by-point reference on random positions."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import IllegalMoveError, MoveSyntaxError, OptionsError, TurnError, play_text
from games.dotdash import (
    BLUE,
    COLOURS,
    RED,
    DotDashState,
    ParsedSetup,
    ParsedSlide,
    Setup,
    Slide,
    Take,
    count_fives,
    in_fives,
)
from games.dotdash import (
    RULESET as R,
)
from tests import DATA

CASES = json.loads((DATA / "dotdash" / "positions.json").read_text())
DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]


def diagram(state: DotDashState) -> list[str]:
    """The board as rows of r / b / . (the format of the case file)."""
    geo = state.geo
    out = []
    for row in range(state.size):
        line = ""
        for col in range(state.size):
            bit = 1 << (row * geo.width + col)
            line += "r" if state.board[RED] & bit else "b" if state.board[BLUE] & bit else "."
        out.append(line)
    return out


def colour_name(state: DotDashState, seat: int | None) -> str | None:
    return None if seat is None else COLOURS[state.colour_of(seat)]


# -- hand-worked cases ----------------------------------------------------------------


@pytest.mark.parametrize("case", CASES["count"], ids=lambda c: c["name"][:50])
def test_five_row_counts(case: dict[str, Any]) -> None:
    state = R.diagram_state("\n".join(case["diagram"]))
    assert {"red": state.fives[RED], "blue": state.fives[BLUE]} == case["fives"]
    assert R.scores(state) == {1: case["fives"]["red"], 2: case["fives"]["blue"]}


@pytest.mark.parametrize("case", CASES["play"], ids=lambda c: c["name"][:50])
def test_played_positions(case: dict[str, Any]) -> None:
    state = R.diagram_state(
        "\n".join(case["diagram"]),
        turn=case["turn"],
        variant=case.get("variant", "standard"),
        stones=case.get("stones", 60),
        red_seat=case.get("red_seat", 1),
    )
    expect = case["expect"]
    moves = case["moves"]
    for text in moves[:-1]:
        state, _, _ = play_text(R, state, text)
    if "error" in expect:
        with pytest.raises(IllegalMoveError) as info:
            play_text(R, state, moves[-1])
        assert expect["error"] in info.value.reason
        return
    before = state
    state, move, events = play_text(R, state, moves[-1])
    assert events[0].kind == "move" and events[0].data["move"] == R.format(before, move)
    if "diagram" in expect:
        assert diagram(state) == expect["diagram"]
    if "fives" in expect:
        assert {"red": state.fives[RED], "blue": state.fives[BLUE]} == expect["fives"]
    if "reserve" in expect:
        assert {"red": state.reserve(RED), "blue": state.reserve(BLUE)} == expect["reserve"]
    if "turn" in expect:
        assert colour_name(state, R.to_move(state)) == expect["turn"]
    if "winner" in expect:
        outcome = R.outcome(state)
        if expect["winner"] is None:
            assert outcome is None
        else:
            assert outcome is not None
            assert colour_name(state, outcome.winner) == expect["winner"]
            assert outcome.reason == expect["reason"]
            assert events[-1].kind == "game_over"
            assert R.legal_moves(state) == []


def test_loses_by_shifting_warns_before_the_move() -> None:
    rows = ["rrrrr....", ".........", ".........", ".........", "....r....", "....r...."] + ["........."] * 2
    state = R.diagram_state("\n".join([*rows, "........b"]))
    assert R.loses_by_shifting(state, R.parse(state, "E1-E4")) is False  # E5, E6 make up for it
    state = R.diagram_state("\n".join(["rrrrr....", *["........."] * 7, "........b"]))
    assert R.loses_by_shifting(state, R.parse(state, "E1-E4")) is True
    assert R.loses_by_shifting(state, R.parse(state, "A1-A4")) is True
    assert R.loses_by_shifting(state, R.parse(state, "B1-B4")) is True
    # Moving a stone that belongs to no five-row never shifts.
    state = R.diagram_state("\n".join(["rrrrr....", *["........."] * 3, "r........", *["........."] * 3, "........b"]))
    assert R.loses_by_shifting(state, R.parse(state, "A5-A8")) is False
    assert R.loses_by_shifting(R.new_game(R.parse_options({})), Take(RED)) is False


# -- the opening: setup, then take ---------------------------------------------------


def test_opening_flow_and_who_moves_first() -> None:
    state = R.new_game(R.parse_options({}))
    assert R.to_move(state) == 1 and R.extra(state) == {"reserve": {"1": 60, "2": 60}, "phase": "setup"}
    state, move, _ = play_text(R, state, "setup blue E5 G5 red F7")
    assert move == Setup(red=(6 * 14 + 5,), blue=(4 * 14 + 4, 4 * 14 + 6))  # bit = row * 14 + col
    assert R.format(R.new_game(R.parse_options({})), move) == "setup red F7 blue E5 G5"
    assert R.to_move(state) == 2
    # Until the choice, seat 1 counts as red: its reserve already lost the red stone.
    assert R.extra(state) == {"reserve": {"1": 59, "2": 58}, "phase": "choose"}
    assert R.legal_moves(state) == [Take(RED), Take(BLUE)]
    with pytest.raises(TurnError):
        play_text(R, state, "take red", seat=1)

    took_red, _, events = play_text(R, state, "take red")
    assert events[1].data == {"red": 2, "blue": 1, "first": 2}
    assert R.to_move(took_red) == 2  # seat 2 holds the single red stone
    assert R.extra(took_red) == {"reserve": {"1": 58, "2": 59}, "phase": "move"}

    took_blue, _, events = play_text(R, state, "Take Blue")
    assert events[1].data == {"red": 1, "blue": 2, "first": 1}
    assert R.to_move(took_blue) == 1
    assert len(R.legal_moves(took_blue)) == 30  # F7: 5 E, 3 W, 4 N, 4 S, 4 NE, 3 NW, 4 SE, 3 SW


def test_phase_errors_are_illegal() -> None:
    state = R.new_game(R.parse_options({}))
    for text, fragment in [("F7-I10", "has not started"), ("take red", "nothing to choose")]:
        with pytest.raises(IllegalMoveError, match=fragment):
            play_text(R, state, text)
    bad_setups = [
        ("setup red F7 G7 blue E5 G5", "one stone of one colour and two"),
        ("setup red F7 red E5 G5", "each colour once"),
        ("setup red F7", "each colour once"),
        ("setup red F7 blue F7 G5", "named twice"),
        ("setup red N7 blue E5 G5", r"N7 is off the board \(A1 to M13\)"),
    ]
    for text, fragment in bad_setups:
        with pytest.raises(IllegalMoveError, match=fragment):
            play_text(R, state, text)
    state, _, _ = play_text(R, state, "setup red F7 blue E5 G5")
    with pytest.raises(IllegalMoveError, match="already placed"):
        play_text(R, state, "setup red A1 blue B5 C5", seat=2)
    with pytest.raises(IllegalMoveError, match="choose a colour"):
        play_text(R, state, "E5-E8")
    state, _, _ = play_text(R, state, "take red")
    with pytest.raises(IllegalMoveError, match="already chosen"):
        play_text(R, state, "take blue")


def test_setup_sample_is_legal_and_round_trips() -> None:
    state = R.new_game(R.parse_options({"size": 7}))
    moves = R.legal_moves(state)
    assert len(moves) == 9 * 28 * 2 and len(set(moves)) == len(moves)
    for move in moves:
        assert R.parse(state, R.format(state, move)) == move


# -- notation -------------------------------------------------------------------------


def test_move_spellings() -> None:
    a, b = (5, 6), (8, 9)
    for text in [
        "F7-I10",
        "f7 i10",
        "move F7 to I10",
        "F7 to I10",
        "F7, I10",
        "F7 -> I10",
        "F7 → I10",
        "f 7 - i 10",
    ]:
        assert R.parse_syntax(text) == ParsedSlide(a, b), text
    assert R.parse_syntax("setup: Red F7, blue E5 and G5") == ParsedSetup(((RED, ((5, 6),)), (BLUE, ((4, 4), (6, 4)))))
    assert R.parse_syntax("red F7 blue E5 G5") == R.parse_syntax("setup red F7 blue E5 G5")
    assert R.parse_syntax("choose BLUE") == Take(BLUE)
    for text in ["F7", "F7-I10-J11", "take green", "setup", "setup F7 red", "hello", "red alert", "F7I10"]:
        with pytest.raises(MoveSyntaxError):
            R.parse_syntax(text)
    assert R.looks_like_move("F7-I10") and R.looks_like_move("setup red") and R.looks_like_move("take it")
    assert not R.looks_like_move("good game!")


def test_off_board_and_row_zero_are_illegal() -> None:
    state = R.diagram_state("\n".join(["r......", *["......."] * 5, "......b"]))
    with pytest.raises(IllegalMoveError, match="H1 is off the board"):
        R.parse(state, "A1-H1")
    with pytest.raises(IllegalMoveError, match="A0 is off the board"):
        R.parse(state, "A0-A3")


def test_options_validate() -> None:
    assert R.parse_options({"size": "7", "variant": "frozen", "stones": "3"}).variant == "frozen"
    for bad in [{"size": 6}, {"size": 21}, {"variant": "chaos"}, {"stones": 2}, {"colour": "red"}]:
        with pytest.raises(OptionsError):
            R.parse_options(bad)
    clock = R.default_clock(R.parse_options({}))
    assert (clock.kind, clock.move, clock.reserve) == ("move_reserve", 60, 300)


def test_render_marks_five_rows_and_labels() -> None:
    state = R.diagram_state("\n".join(["rrrrr..", "rr.....", *["......."] * 4, "......b"]), red_seat=2)
    lines = R.render_text(state).splitlines()
    assert lines[0].split() == list("ABCDEFG")
    assert lines[1] == " 1 R R R R R . ."
    assert lines[2] == " 2 r r . . . . ."
    assert lines[7] == " 7 . . . . . . b"
    text = "\n".join(lines[8:])
    assert "red (r, seat 2): 1 five-row, 53 in reserve" in text
    assert "blue (b, seat 1): 0 five-rows, 59 in reserve" in text
    assert "seat 2 (red) to move" in text


def test_json_round_trip_of_a_finished_game() -> None:
    state = R.diagram_state("\n".join(["rrrr.....", *["........."] * 2, "....r....", *["........."] * 4, "........b"]))
    for text in ["E4-E1", "I9-I6"]:
        state, _, _ = play_text(R, state, text)
    assert state.reason == "five-rows"
    blob = json.loads(json.dumps(R.to_json(state)))
    assert R.from_json(blob) == state


# -- bitboards against a slow reference ------------------------------------------------


def slow_grid(state: DotDashState) -> dict[tuple[int, int], int]:
    """(col, row) → colour for every stone."""
    return {
        (col, row): RED if ch == "r" else BLUE
        for row, line in enumerate(diagram(state))
        for col, ch in enumerate(line)
        if ch != "."
    }


def slow_runs(grid: dict[tuple[int, int], int], size: int, colour: int) -> list[list[tuple[int, int]]]:
    """Every maximal run of `colour` in the four line directions."""
    runs = []
    for dc, dr in [(1, 0), (0, 1), (1, 1), (1, -1)]:
        for col in range(size):
            for row in range(size):
                prev = (col - dc, row - dr)
                if grid.get((col, row)) != colour or grid.get(prev) == colour:
                    continue
                run = []
                c, r = col, row
                while grid.get((c, r)) == colour:
                    run.append((c, r))
                    c, r = c + dc, r + dr
                runs.append(run)
    return runs


def slow_slides(state: DotDashState) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    grid = slow_grid(state)
    colour = state.colour_of(state.turn)
    if state.reserve(colour) < 2:
        return set()
    frozen = set()
    if state.variant == "frozen":
        frozen = {p for run in slow_runs(grid, state.size, colour) if len(run) >= 5 for p in run}
    out = set()
    for (col, row), who in grid.items():
        if who != colour or (col, row) in frozen:
            continue
        for dc, dr in DIRS:
            for k in range(1, state.size):
                c, r = col + dc * k, row + dr * k
                if not (0 <= c < state.size and 0 <= r < state.size):
                    break
                here = grid.get((c, r))
                if k >= 3 and (here is None or (here != colour and state.variant == "sacrificial")):
                    out.add(((col, row), (c, r)))
                if here is not None:
                    break
    return out


def random_state(rng: random.Random, size: int, variant: str, density: float) -> DotDashState:
    rows = ["".join(rng.choice("rb") if rng.random() < density else "." for _ in range(size)) for _ in range(size)]
    return R.diagram_state("\n".join(rows), turn=rng.choice(COLOURS), variant=variant, stones=size * size)  # type: ignore[arg-type]


@settings(max_examples=120, deadline=None)
@given(
    size=st.integers(min_value=7, max_value=19),
    variant=st.sampled_from(["standard", "frozen", "sacrificial"]),
    density=st.floats(min_value=0.0, max_value=0.9),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_bitboards_match_the_slow_reference(size: int, variant: str, density: float, seed: int) -> None:
    state = random_state(random.Random(seed), size, variant, density)
    grid = slow_grid(state)
    geo = state.geo
    for colour in (RED, BLUE):
        runs = slow_runs(grid, size, colour)
        assert count_fives(state.board[colour], geo) == sum((len(run) - 1) // 4 for run in runs)
        lit = {p for run in runs if len(run) >= 5 for p in run}
        assert in_fives(state.board[colour], geo) == sum(1 << geo.width * r + c for c, r in lit)
    moves = R.legal_moves(state)
    assert len(moves) == len(set(moves))
    got = {(geo.colrow(m.src), geo.colrow(m.dst)) for m in moves if isinstance(m, Slide)}
    assert got == slow_slides(state)
    for move in moves[:20]:
        assert R.parse(state, R.format(state, move)) == move


@settings(max_examples=30, deadline=None)
@given(variant=st.sampled_from(["standard", "frozen", "sacrificial"]), seed=st.integers(0, 2**32))
def test_random_games_keep_the_invariants(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    state = R.new_game(R.parse_options({"size": 9, "variant": variant, "stones": 30}))
    while R.to_move(state) is not None:
        moves = R.legal_moves(state)
        move = rng.choice(moves)
        mover = R.to_move(state)
        shifting = R.loses_by_shifting(state, move)
        new, events = R.apply(state, move)
        for colour in (RED, BLUE):
            assert new.reserve(colour) == 30 - new.board[colour].bit_count() >= 0
            assert new.fives[colour] == count_fives(new.board[colour], new.geo)
        assert not new.board[RED] & new.board[BLUE]
        if isinstance(move, Slide):
            assert not (new.board[RED] | new.board[BLUE]) >> move.src & 1
            gained = (
                new.board[state.colour_of(state.turn)].bit_count()
                - state.board[state.colour_of(state.turn)].bit_count()
            )
            captured = "sacrificed" in events[0].data
            assert gained == (1 if captured else 2)
        outcome = R.outcome(new)
        if shifting:
            assert outcome is not None and outcome.reason == "shift" and outcome.winner == 3 - (mover or 0)
        elif outcome is None:
            nxt = new.colour_of(new.turn)
            assert new.fives[nxt] <= new.fives[1 - nxt] and R.legal_moves(new)
        state = new
