"""Pathing Dots & Boxes: hand-worked positions, option checks and properties on random games."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import (
    Event,
    GameFinishedError,
    IllegalMoveError,
    MoveSyntaxError,
    OptionsError,
    TurnError,
    play_text,
)
from games.pathing import RULESET as R
from games.pathing import PathingState, board_text, has_line, parse_board
from tests import ROOT

LAYOUTS = ROOT / "seeds" / "pathing" / "layouts.json"

# Every edge in index order: the round is won 6-3 by blue (seat 2), who also makes the last swap.
IN_ORDER = [
    "A1-B1", "B1-C1", "C1-D1", "A2-B2", "B2-C2", "C2-D2", "A3-B3", "B3-C3", "C3-D3", "A4-B4", "B4-C4",
    "C4-D4", "A1-A2", "B1-B2", "C1-C2", "D1-D2", "A2-A3", "B2-B3", "C2-C3", "D2-D3", "A3-A4", "B3-B4",
    "C3-C4", "D3-D4",
]  # fmt: skip
# A line-free round on the full chequer layout; blue wins it 8-1.
FULL_ROUND = [
    "C4-D4", "A2-A3", "B2-B3", "A4-B4", "D1-D2", "B3-C3", "A3-A4", "A1-B1", "B3-B4", "C3-C4", "C1-C2",
    "D2-D3", "C2-D2", "B2-C2", "A3-B3", "B1-C1", "A1-A2", "C3-D3", "B4-C4", "A2-B2", "C2-C3", "C1-D1",
    "B1-B2", "D3-D4",
]  # fmt: skip


def start(**opts: object) -> PathingState:
    return R.new_game(R.parse_options(opts))


def play(state: PathingState, *texts: str) -> tuple[PathingState, list[Event]]:
    events: list[Event] = []
    for text in texts:
        state, _move, events = play_text(R, state, text)
    return state, events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


# -- the reference example and basic swaps --------------------------------------------


def test_reference_example_fourth_swap_completes_box_a1_and_mover_goes_again() -> None:
    state = start()
    state, _ = play(state, "A1-B1", "A1-A2", "A2-B2")
    assert R.to_move(state) == 2
    state, events = play(state, "B1-B2")
    assert kinds(events) == ["move", "boxes", "extra_turn"]
    assert events[1].data == {"seat": 2, "count": 1, "boxes": ["A1"]}
    assert R.to_move(state) == 2
    assert R.scores(state) == {1: 0, 2: 1}


def test_swap_exchanges_contents_and_fills_the_edge_in_the_movers_colour() -> None:
    state = start(layout="RB../..../..../....")
    state, events = play(state, "Swap A1 and B1")
    assert board_text(state.red, state.blue).startswith("BR..")
    assert events[0].data == {"seat": 1, "kind": "swap", "move": "A1-B1"}
    state, _ = play(state, "b1 b2")
    assert board_text(state.red, state.blue).split("/")[:2] == ["B...", ".R.."]
    picture = R.render_text(state)
    assert "o-r-o" in picture  # A1-B1 by red
    between = picture.splitlines()[3]
    assert between.strip() == "b" and between.index("b") == picture.splitlines()[1].rindex("B", 0, 24)


def test_two_boxes_at_once_score_two() -> None:
    state = start()
    edges = ["A1-B1", "A2-B2", "A1-A2", "B1-C1", "B2-C2", "C1-C2"]
    for text in edges:
        state, _ = play(state, text)
    mover = R.to_move(state)
    state, events = play(state, "B1-B2")
    assert events[1].data["count"] == 2 and sorted(events[1].data["boxes"]) == ["A1", "B1"]
    assert R.scores(state)[mover] == 2 and R.to_move(state) == mover


@pytest.mark.parametrize(
    ("text", "error", "reason"),
    [
        ("A1-A1", IllegalMoveError, "cannot be swapped with itself"),
        ("A1-C1", IllegalMoveError, "C1 is not next to A1"),
        ("B2 C3", IllegalMoveError, "C3 is not next to B2"),
        ("D4-E4", IllegalMoveError, "E4 is off the board"),
        ("pick C3", IllegalMoveError, "picked only after a round ends"),
        ("C3", IllegalMoveError, "picked only after a round ends"),
        ("swap C3", MoveSyntaxError, "a swap names two squares"),
        ("pick C3 D3", MoveSyntaxError, "a pick names one square"),
        ("A0-A1", MoveSyntaxError, "rows are numbered from 1"),
        ("hello", MoveSyntaxError, "write a swap as two squares"),
    ],
)
def test_errors_explain_themselves(text: str, error: type[Exception], reason: str) -> None:
    with pytest.raises(error, match=reason):
        play(start(), text)


def test_an_edge_is_used_once_per_round() -> None:
    state, _ = play(start(), "A1-B1")
    with pytest.raises(IllegalMoveError, match="A1-B1 was already swapped this round"):
        play(state, "swap b1 and a1")


def test_format_parses_back_and_accepts_every_spelling() -> None:
    state = start()
    for spelling in ["Swap A4 and B4", "A4 B4", "A4-B4", "swap a4 b4", "B4 to A4", "a4,b4", "SWAP A4 & B4."]:
        assert R.format(state, R.parse(state, spelling)) == "A4-B4"
    for move in R.legal_moves(state):
        assert R.parse(state, R.format(state, move)) == move


def test_looks_like_move() -> None:
    assert R.looks_like_move("swap A4 B5 please")
    assert R.looks_like_move("A4 - B9")
    assert R.looks_like_move("pick")
    assert not R.looks_like_move("I think A4 is a trap, honestly")
    assert not R.looks_like_move("good game")


# -- lines ---------------------------------------------------------------------------


def test_line_mid_round_ends_the_match_at_once() -> None:
    state, events = play(start(layout="RRR./...R/..../...."), "D1-D2")
    out = R.outcome(state)
    assert out is not None and out.winner == 1 and out.reason == "four-in-a-row"
    assert kinds(events) == ["move", "game_over"] and events[-1].data["lines"] == ["row 1"]
    assert R.to_move(state) is None and R.legal_moves(state) == []
    for text, seat in [("A4-B4", None), ("pick A2", None), ("A4-B4", 2)]:
        with pytest.raises(GameFinishedError):
            play_text(R, state, text, seat)


def test_completing_only_the_opponents_line_makes_the_opponent_win() -> None:
    state, _ = play(start(layout="RRR./...R/..../...."), "A4-B4", "D1-D2")
    out = R.outcome(state)
    assert out is not None and out.winner == 1 and out.reason == "four-in-a-row"


def test_columns_count_and_diagonals_do_not() -> None:
    assert has_line(0b0001_0001_0001_0001)  # column A
    assert has_line(0b1111 << 8)  # row 3
    assert not has_line(0b1000_0100_0010_0001)  # diagonal
    assert not has_line(0b0111_1000_0000_0000 | 0b1110)
    state, _ = play(start(layout="B.../.B../..B./..B."), "C4-D4")  # completes the A1-D4 diagonal
    assert board_text(state.red, state.blue) == "B.../.B../..B./...B"
    assert R.outcome(state) is None


@pytest.mark.parametrize(
    ("ruleset", "layout", "winner"),
    [
        ("dm5", "BRR./RB../RB../RB..", 2),  # dm5: whoever acted (blue) wins
        ("dm5", "BR../RB../RB../RB..", 2),
        ("original", "BRR./RB../RB../RB..", 1),  # original: red has 5 squares to blue's 4
        ("original", "BR../RB../RB../RB..", 2),  # original, 4 each: whoever acted wins
        ("original", "BR../RB../RB../RBB.", 2),  # original: blue has more and acted
    ],
)
def test_both_colours_complete_a_line_in_one_swap(ruleset: str, layout: str, winner: int) -> None:
    state, _ = play(start(ruleset=ruleset, layout=layout), "C4-D4")
    state, events = play(state, "A1-B1")  # blue: A1 becomes red (column A), B1 blue (column B)
    assert has_line(state.red) and has_line(state.blue)
    out = R.outcome(state)
    assert out is not None and (out.winner, out.reason) == (winner, "four-in-a-row")
    assert events[-1].kind == "game_over"


# -- round end and penalties ---------------------------------------------------------------


def test_round_end_penalty_on_an_empty_square() -> None:
    state, _ = play(start(), *IN_ORDER[:-1])
    state, events = play(state, IN_ORDER[-1])
    assert kinds(events) == ["move", "boxes", "round_end"]
    assert events[-1].data["winner"] == 2 and events[-1].data["picker"] == 1
    # The round's boxes stay visible while the loser (red) picks.
    assert R.scores(state) == {1: 3, 2: 6}
    assert R.extra(state) == {"round": 1, "board": "..../..../..../....", "phase": "penalty"}
    assert R.to_move(state) == 1
    assert len(R.legal_moves(state)) == 16
    assert "pick an empty square to paint blue" in R.render_text(state)
    with pytest.raises(IllegalMoveError, match="must pick an empty square"):
        play(state, "A1-B1")
    with pytest.raises(TurnError):
        play_text(R, state, "pick C3", seat=2)
    state, events = play(state, "pick C3")
    assert kinds(events) == ["move", "penalty", "round_start"]
    assert events[1].data == {"seat": 1, "square": "C3", "action": "paint", "colour": "blue"}
    assert R.extra(state) == {"round": 2, "board": "..../..../..B./....", "phase": "move"}
    assert R.scores(state) == {1: 0, 2: 0} and state.drawn == 0
    assert R.to_move(state) == 2  # blue made the last swap of round 1


@pytest.mark.parametrize(
    ("ruleset", "task", "action", "colour", "after"),
    [
        # Ruling: in dm5 the loser's own square takes the round winner's colour ...
        ("dm5", "one of their red squares to turn blue", "turn", "blue", "RBRR/BBBR/BRBB/BRRB"),
        # ... while the original ruleset keeps "it becomes empty".
        ("original", "one of their red squares to empty", "empty", "red", "RBRR/BBBR/BRBB/BRR."),
    ],
)
def test_penalty_on_a_full_board_takes_one_of_the_losers_squares(
    ruleset: str, task: str, action: str, colour: str, after: str
) -> None:
    state, _ = play(start(layout="RBRB/BRBR/RBRB/BRBR", ruleset=ruleset), *FULL_ROUND)
    assert state.phase == "penalty" and R.to_move(state) == 1 and R.scores(state) == {1: 1, 2: 8}
    assert board_text(state.red, state.blue) == "RBRR/BBBR/BRBB/BRRR"
    assert {R.format(state, m) for m in R.legal_moves(state)} == {
        f"pick {sq}" for sq in ["A1", "C1", "D1", "D2", "B3", "B4", "C4", "D4"]
    }
    assert task in R.render_text(state)
    with pytest.raises(IllegalMoveError, match="B1 is not yours"):
        play(state, "B1")
    state, events = play(state, "D4")
    assert events[1].data == {"seat": 1, "square": "D4", "action": action, "colour": colour}
    assert board_text(state.red, state.blue) == after
    assert state.round_no == 2 and R.to_move(state) == 2


def test_dm5_full_board_pick_that_hands_the_winner_a_line_ends_the_match() -> None:
    # Blue won the round; red must give up a red square, and A1 turning blue completes column A.
    state = _penalty_state("RRBR/BRRB/BBRR/BRBB", round_winner=2)
    state, events = play(state, "pick A1")
    assert events[1].data["action"] == "turn" and kinds(events)[-1] == "game_over"
    out = R.outcome(state)
    assert out is not None and (out.winner, out.reason) == (2, "four-in-a-row")
    original = _penalty_state("RRBR/BRRB/BBRR/BRBB", round_winner=2, ruleset="original")
    original, _ = play(original, "pick A1")
    assert R.outcome(original) is None and board_text(original.red, original.blue).startswith(".RBR")


def _penalty_state(board: str, round_winner: int, **fields: object) -> PathingState:
    """A penalty-phase position: all edges drawn, every box to the round winner."""
    data = R.state_to_json(start())
    data.update(
        board=board,
        edges={name: round_winner for name in IN_ORDER},
        boxes={name: round_winner for name in ["A1", "B1", "C1", "A2", "B2", "C2", "A3", "B3", "C3"]},
        turn=3 - round_winner,
        phase="penalty",
        last_swapper=round_winner,
        **fields,
    )
    return R.state_from_json(data)


def test_the_penalty_placement_itself_completes_the_winners_line() -> None:
    state = _penalty_state("RRR./BBRB/RBBR/BRBB", round_winner=1)  # D1 is the only empty square
    assert R.legal_moves(state) == [R.parse(state, "pick D1")]
    state, events = play(state, "D1")
    assert kinds(events) == ["move", "penalty", "game_over"]
    out = R.outcome(state)
    assert out is not None and (out.winner, out.reason) == (1, "four-in-a-row")
    assert R.extra(state)["phase"] == "penalty" and R.to_move(state) is None


def test_last_swap_of_a_round_making_a_line_ends_the_match_without_penalty() -> None:
    moves = [
        "C3-D3", "D2-D3", "C2-C3", "B4-C4", "A3-A4", "B2-C2", "B3-B4", "C3-C4", "A4-B4", "C4-D4", "D1-D2",
        "A1-A2", "A2-A3", "D3-D4", "B1-C1", "A2-B2", "B1-B2", "C2-D2", "C1-C2", "A3-B3", "B3-C3", "B2-B3",
        "A1-B1", "C1-D1",
    ]  # fmt: skip
    state, events = play(start(layout="...R/.RRR/RB../.B.R"), *moves)
    assert kinds(events)[-1] == "game_over" and "round_end" not in kinds(events)
    assert R.outcome(state) is not None and state.winner == 1 and state.phase == "move"


def test_no_round_limit_unless_the_host_sets_one() -> None:
    options = R.parse_options({})
    assert options.max_rounds is None and R.rules_summary(options) is None
    assert R.parse_options({"max_rounds": "none"}).max_rounds is None
    state = _penalty_state("RR../B.../..../....", round_winner=2, round=500)
    state, events = play(state, "pick D4")
    assert R.outcome(state) is None and state.round_no == 501 and kinds(events)[-1] == "round_start"


def test_round_limit_decides_by_squares_and_equal_is_a_draw() -> None:
    state, _ = play(start(max_rounds=1), *IN_ORDER, "pick A1")
    out = R.outcome(state)
    assert out is not None and (out.winner, out.reason) == (2, "round-limit")
    state = _penalty_state("RR../B.../..../....", round_winner=2, max_rounds=3, round=3)
    state, events = play(state, "pick D4")  # 2 red, 2 blue
    out = R.outcome(state)
    assert out is not None and (out.winner, out.reason) == (None, "round-limit")
    assert R.to_move(state) is None and R.legal_moves(state) == []
    assert events[-1].kind == "game_over" and events[-1].data["winner"] is None
    assert "draw" in R.render_text(state).splitlines()[-1]
    state = _penalty_state("RR../B.../..../....", round_winner=2, max_rounds=4, round=3)
    state, _ = play(state, "pick D4")
    assert R.outcome(state) is None and state.round_no == 4


def test_a_set_round_limit_is_announced() -> None:
    summary = R.rules_summary(R.parse_options({"max_rounds": 12}))
    assert summary is not None
    assert "12 rounds" in summary and "more squares" in summary and "draw" in summary


def test_json_round_trip_in_the_penalty_phase() -> None:
    state, _ = play(start(layout="R..B/..../..../B..R"), *IN_ORDER)
    blob = json.loads(json.dumps(R.to_json(state)))
    assert R.from_json(blob) == state


# -- options, clock, presets ---------------------------------------------------------


def test_options_validate_with_clear_errors() -> None:
    assert R.parse_options({"layout": "r..b/..../..../b..r"}).layout == "R..B/..../..../B..R"
    assert R.parse_options({"ruleset": "Original"}).ruleset == "original"
    for layout, message in [
        ("R..B/..../....", "needs 4 rows"),
        ("R..B/...../..../....", "row 2"),
        ("R..B/..X./..../....", "square C2 is 'X'"),
        ("RRRR/..../..../....", "already has a red line"),
        ("B.../B.../B.../B...", "column A"),
    ]:
        with pytest.raises(OptionsError, match=message):
            R.parse_options({"layout": layout})
    with pytest.raises(OptionsError, match="ruleset"):
        R.parse_options({"ruleset": "dm6"})
    with pytest.raises(OptionsError, match="max_rounds"):
        R.parse_options({"max_rounds": 0})


def test_default_clock_per_ruleset() -> None:
    dm5 = R.default_clock(R.parse_options({}))
    original = R.default_clock(R.parse_options({"ruleset": "original"}))
    assert (dm5.kind, dm5.move, dm5.reserve) == ("move_reserve", 60, 300)
    assert (original.kind, original.move, original.reserve) == ("move_reserve", 120, 300)


def test_seed_layouts_all_validate_and_load_by_name() -> None:
    presets = json.loads(LAYOUTS.read_text())
    assert {"empty", "corners"} <= set(presets)
    for name, preset in presets.items():
        options = R.parse_options({"layout": preset["layout"]})
        red, blue = parse_board(options.layout)
        assert red.bit_count() == blue.bit_count(), name
        assert preset["about"], name
        assert R.to_move(R.new_game(options)) == 1
        assert R.parse_options({"layout": name}) == options, name
        assert R.parse_options({"layout": f" {name.upper()} "}).layout == options.layout, name


def test_unknown_layout_name_lists_the_presets() -> None:
    with pytest.raises(OptionsError, match=r"no layout preset 'spiral'.*corners"):
        R.parse_options({"layout": "spiral"})


def test_render_shows_both_boards_labels_round_and_action() -> None:
    state, _ = play(start(layout="R..B/..../..../B..R"), "A1-B1", "A1-A2", "A2-B2", "B1-B2")
    lines = R.render_text(state).splitlines()
    assert lines[0].split() == ["Pathing", "Support"]
    assert lines[1].split() == ["A", "B", "C", "D"] * 2
    assert lines[2].startswith(" 1 . . . B") and lines[2].endswith("1 o-r-o   o   o")
    assert lines[3].strip() == "b B b"
    assert lines[-4] == "round 1; boxes: red (seat 1) 0, blue (seat 2) 1"
    assert lines[-3] == "seat 2 (blue) to swap"  # then the two legend lines


# -- properties on random games ------------------------------------------------------------

_CELLS = st.lists(st.sampled_from("RB......"), min_size=16, max_size=16).map(
    lambda cells: "/".join("".join(cells[i : i + 4]) for i in range(0, 16, 4))
)


def _valid(layout: str) -> bool:
    red, blue = parse_board(layout)
    return not has_line(red) and not has_line(blue)


@settings(max_examples=40, deadline=None)
@given(
    layout=_CELLS.filter(_valid),
    ruleset=st.sampled_from(["dm5", "original"]),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_random_game_properties(layout: str, ruleset: str, seed: int) -> None:
    rng = random.Random(seed)
    state = start(layout=layout, ruleset=ruleset, max_rounds=12)
    swaps_this_round = 0
    while R.to_move(state) is not None:
        before = state
        move = rng.choice(R.legal_moves(state))
        state, events = R.apply(state, move)
        assert events[0].kind == "move"
        coloured_before = (before.red | before.blue).bit_count()
        coloured_after = (state.red | state.blue).bit_count()
        if before.phase == "move":
            swaps_this_round += 1
            # A swap only moves squares around.
            assert (state.red.bit_count(), state.blue.bit_count()) == (
                before.red.bit_count(),
                before.blue.bit_count(),
            )
            assert swaps_this_round <= 24
            if state.phase == "penalty" and not state.winner:
                assert swaps_this_round == 24
                assert sum(R.scores(state).values()) == 9
                assert R.to_move(state) == 3 - events[-1].data["winner"]
        else:
            loser = before.turn
            if coloured_before == 16 and ruleset == "dm5":
                # The loser's own square takes the winner's colour: one square changes hands.
                assert coloured_after == 16
                assert state.colour_mask(loser).bit_count() == before.colour_mask(loser).bit_count() - 1
            else:
                assert abs(coloured_after - coloured_before) == 1
            if R.outcome(state) is None:
                assert swaps_this_round == 24 and state.phase == "move"
                assert R.to_move(state) == before.last_swapper
                swaps_this_round = 0
        if state.reason == "four-in-a-row":
            assert has_line(state.red) or has_line(state.blue)
        else:
            assert not has_line(state.red) and not has_line(state.blue)
    out = R.outcome(state)
    assert out is not None
    if out.reason == "round-limit":
        nr, nb = state.red.bit_count(), state.blue.bit_count()
        assert out.winner == (None if nr == nb else 1 if nr > nb else 2)
    else:
        assert out.winner in (1, 2)
    assert R.legal_moves(state) == []
    for text in ["A1-B1", "pick A1", "C3"]:
        with pytest.raises(GameFinishedError):
            play_text(R, state, text)
