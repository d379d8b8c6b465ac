"""The Trax picture's key (issue 37, item 16): a line under the status says what the yellow frame, the sky-blue
notched frames and the yellow edge of a winning track mark, and the terminal's help card says it in words
(expected entries in tests/data/trax/picture_key.json; the help card:
tests/bot/adapters/terminal/test_room_stop_and_key.py)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from games import pictures, registry
from games.base import play_text
from games.pictures import core
from games.pictures import trax as trax_pic
from tests import DATA
from tests.games.regen_golden import cases

KEY: dict[str, Any] = json.loads((DATA / "trax" / "picture_key.json").read_text(encoding="utf-8"))


def _states(name: str) -> tuple[Any, list[Any], Any]:
    case = next(c for c in cases() if c["name"] == name)
    ruleset = registry.get("trax")
    state = ruleset.new_game(ruleset.parse_options(case.get("opts", {})))
    states, move = [state], None
    for line in case["lines"]:
        state, move, _ = play_text(ruleset, state, line)
        states.append(state)
    return ruleset, states, move


@pytest.mark.parametrize("name", sorted(KEY["cases"]))
def test_the_key_line_names_each_mark_shown_with_its_colour(name: str) -> None:
    ruleset, states, move = _states(name)
    expected = [tuple(entry) for entry in KEY["cases"][name]]
    assert list(trax_pic.RENDERER.key(ruleset, states[-1], states[-2])) == expected
    kw: dict[str, Any] = {"names": ("alice", "bob"), "last_move": move, "prev_state": states[-2]}
    marked = pictures.render_image(ruleset, states[-1], **kw)
    plain = pictures.render_image(ruleset, states[-1], highlight=False, **kw)  # no marks: no key
    line = core.LINE_SIZE + core.LINE_GAP
    assert marked.height - plain.height == line  # one key line
    strip = np.asarray(marked.convert("RGB"), dtype=np.int16)[plain.height - core.MARGIN : marked.height - core.MARGIN]
    for mark, _words in expected:
        colour = np.array(KEY["swatch_colours"][mark], dtype=np.int16)
        assert (np.abs(strip - colour).max(axis=2) <= 8).any(), f"no {mark} swatch in the key line"


def test_a_board_without_marks_has_no_key() -> None:
    ruleset = registry.get("trax")
    start = ruleset.new_game(ruleset.parse_options({}))
    assert list(trax_pic.RENDERER.key(ruleset, start, None)) == []
