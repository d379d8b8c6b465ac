"""Dots after `stop` (issue 37, item 15): the final picture, the GIF's last frame and the text board show what
the stop did (the stopper's ungrounded dots and areas as the opponent's), not the field as it was."""

from __future__ import annotations

import io
import json
from typing import Any

from PIL import Image

from games import pictures, registry
from games.base import play_text
from games.coords import parse_point
from games.pictures import dots as dots_pic
from games.pictures.core import HEADER
from tests import DATA

CASE: dict[str, Any] = json.loads((DATA / "dots" / "stop_picture.json").read_text(encoding="utf-8"))


def colour_problems(image: Image.Image, state: Any, when: str) -> list[str]:
    """The samples of the case whose pixel is not the colour expected `when` ("before" or "final")."""
    rgb = image.convert("RGB")
    renderer = dots_pic.RENDERER
    c = renderer.cell(state)
    width, _ = renderer.board_size(state)
    ox = (rgb.width - width) // 2 + dots_pic.gutter(c) + c // 2
    oy = HEADER + dots_pic.gutter(c) + c // 2
    problems = []
    for sample in CASE["samples"]:
        point, dx, dy = sample["at"]
        x, y = parse_point(point)
        got = rgb.getpixel((round(ox + (x + dx) * c), round(oy + (y + dy) * c)))
        want = CASE["colours"][sample[when]]
        if max(abs(a - b) for a, b in zip(got, want, strict=True)) > CASE["tolerance"]:
            problems.append(f"{sample['at']}: {got}, not {sample[when]} {tuple(want)}")
    return problems


def _game() -> tuple[Any, list[Any], list[Any]]:
    ruleset = registry.get("dots")
    state = ruleset.new_game(ruleset.parse_options(CASE["options"]))
    states, moves = [state], [None]
    for line in CASE["lines"]:
        seat = CASE["players"].index(line.split(":")[0]) + 1
        state, move, _ = play_text(ruleset, state, line.split(":", 1)[1], seat)
        states.append(state)
        moves.append(move)
    return ruleset, states, moves


def test_the_final_picture_shows_what_the_stop_handed_over() -> None:
    ruleset, states, moves = _game()
    names = tuple(CASE["players"])
    assert ruleset.outcome(states[-1]).scores == {1: 0, 2: 4}
    before = pictures.render_image(ruleset, states[-2], names=names)
    assert colour_problems(before, states[-2], "before") == []
    final = pictures.render_image(ruleset, states[-1], names=names, last_move=moves[-1], prev_state=states[-2])
    assert colour_problems(final, states[-1], "final") == []


def test_the_gifs_last_frame_shows_it_too() -> None:
    ruleset, states, moves = _game()
    data = pictures.render_replay_gif(ruleset, states, names=tuple(CASE["players"]), moves=moves, result=CASE["result"])
    with Image.open(io.BytesIO(data)) as gif:
        gif.seek(gif.n_frames - 1)
        assert colour_problems(gif.convert("RGB"), states[-1], "final") == []


def test_the_text_board_shows_it_and_the_state_keeps_the_field() -> None:
    ruleset, states, _ = _game()
    assert ruleset.render_text(states[-1]).splitlines()[: len(CASE["final_text"])] == CASE["final_text"]
    assert states[-1].board == states[-2].board  # the stored position is unchanged: only what is shown settles
    assert ruleset.extra(states[-1])["ungrounded"]["1"] == 5
