"""The text boards a terminal player reads (issue 48, point 12): the wide Dots field spaced, one header row,
only the part in play; Boxes and Pathing with a legend; the Dots move card's examples legal on the default
board."""

from __future__ import annotations

import re

from games.base import play_text
from games.coords import col_to_letters
from games.registry import get as get_ruleset
from games.resources import move_example, moves_card


def test_the_wide_dots_field_is_spaced_with_one_header_row_and_shows_the_part_in_play() -> None:
    dots = get_ruleset("dots")
    start = dots.new_game(dots.parse_options({}))  # 39 × 32, a cross in the middle
    lines = dots.render_text(start).splitlines()
    header = lines[0]
    assert header.split() == [col_to_letters(c) for c in range(12, 26)]  # M … Z: 13 at least, around the cross
    assert max(len(line) for line in lines[:-2]) <= 80  # the field fits a terminal (status and legend wrap)
    (row16,) = [line for line in lines if line.startswith("16 ")]
    assert row16.split() == ["16", *"......XO......", "16"]  # every point three characters wide, numbered twice
    assert "(columns M-Z, rows 10-23 of A-AM, 1-32: the rest is empty)" in lines
    spread, _, _ = play_text(dots, start, "B2")  # a dot near the corner: the window reaches it, and the edge
    shown = dots.render_text(spread).splitlines()
    assert shown[0].split()[0] == "A" and shown[1].startswith(" 1 ")
    assert shown[0].split()[-1] == "W"  # T, the cross's right column, and three more


def test_small_dots_fields_stay_whole_and_as_they_were() -> None:
    dots = get_ruleset("dots")
    state = dots.new_game(dots.parse_options({"width": 5, "height": 5, "start": "empty"}))
    lines = dots.render_text(state).splitlines()
    assert lines[0] == "   A B C D E" and lines[1] == " 1 . . . . ." and "the rest is empty" not in "".join(lines)


def test_boxes_and_pathing_text_boards_carry_a_legend() -> None:
    boxes = get_ruleset("boxes")
    text = boxes.render_text(boxes.new_game(boxes.parse_options({})))
    assert text.splitlines()[-1] == "o dots, --- and | lines drawn, 1 / 2 a box closed by seat 1 / seat 2"
    pathing = get_ruleset("pathing")
    lines = pathing.render_text(pathing.new_game(pathing.parse_options({}))).splitlines()
    assert lines[-2].startswith("Pathing: R red and B blue squares")
    assert lines[-1].startswith("Support: o dots, -r- | r lines drawn by red")


def test_the_dots_move_card_examples_are_legal_on_the_default_board() -> None:
    dots = get_ruleset("dots")
    card = moves_card("dots")
    assert card is not None
    (line,) = [ln for ln in card.splitlines() if ln.startswith("- A dot:")]
    examples = re.findall(r"`([^`]+)`", line)
    assert examples == ["T15", "t15", "T 15"] and move_example("dots") == "T15"
    start = dots.new_game(dots.parse_options({}))
    for text in examples:
        play_text(dots, start, text)  # raises if it were not legal
