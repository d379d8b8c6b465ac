"""The short "how to write moves" cards (`seeds/rules/moves/`, shown by `/dm rules`): one per game, at
most 1000 characters, and the moves written in one are read by the game's own parser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games import registry
from games.base import play_text
from tests.games.test_pathing import IN_ORDER

CARDS = Path(__file__).parents[2] / "seeds" / "rules" / "moves"
SETUP = "setup red F7 blue E5 G5"
# The line that leads to where a card's example can be played (default: the start).
BEFORE: dict[str, dict[str, list[str]]] = {
    "dotdash": {"take red": [SETUP], "take blue": [SETUP], "*": [SETUP, "take blue"], SETUP: []},
    "pathing": {"C3": IN_ORDER, "pick C3": IN_ORDER},
}
OPTIONS = {"dots": {"start": "empty"}}
# Labels and moves that only fit a grown board (Trax's `B3/` needs tiles round B3): not played here.
NOT_MOVES = {"0", "1", "2", "A1", "A4", "C3", "B3/", "@2+", "C1\\", "B3 north east", "B3 ne", "B3 top left"}


def examples(game: str) -> list[str]:
    quoted = re.findall(r"`([^`]+)`", (CARDS / f"{game}.md").read_text(encoding="utf-8"))
    return [m for m in quoted if re.search(r"\d", m) and m not in NOT_MOVES - set(BEFORE.get(game, {}))]


@pytest.mark.parametrize("game", sorted(registry.GAME_MODULES))
def test_every_game_has_a_short_card(game: str) -> None:
    text = (CARDS / f"{game}.md").read_text(encoding="utf-8")
    assert text.startswith("**How to write moves: ") and len(text) <= 1000 and "`resign`" in text


@pytest.mark.parametrize("game", sorted(registry.GAME_MODULES))
def test_the_example_moves_are_read_by_the_game(game: str) -> None:
    ruleset = registry.get(game)
    tried = examples(game)
    assert tried, game
    for text in tried:
        state = ruleset.new_game(ruleset.parse_options(OPTIONS.get(game, {})))
        before = BEFORE.get(game, {})
        for line in before.get(text, before.get("*", [])):
            state, _move, _events = play_text(ruleset, state, line)
        play_text(ruleset, state, text)  # raises when the card's example is not a move there
