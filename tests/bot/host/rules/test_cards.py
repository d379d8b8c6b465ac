"""The house-rule part of every rule card is made from the registry (`bot/host/rules/cards.py`): the stored
cards in `seeds/rules/` say exactly what the registered rules declare (rewrite them with
`python -m bot.host.rules.cards --write`), and the card people read names every rule the game takes."""

from __future__ import annotations

import re

import pytest

from bot.host import rules
from bot.host.rules import cards
from games import registry
from games.resources import rule_card


def house_rules_named(text: str, game: str) -> None:
    """The card `text` of `game` names each rule the game takes in its "Accepted here" line, gives each one
    that declares card words its own bullet, and says no other rule's `KEY=`."""
    section = text.split(cards.SECTION, 1)[1].split("\n## ", 1)[0]
    accepted_line = next(line for line in section.splitlines() if line.startswith("- Accepted here:"))
    assert accepted_line == cards.head_bullets(game)[0]
    for bullet in cards.rule_bullets(game).values():
        assert bullet in section
    said = set(re.findall(r"^- `(\w+)=", section, re.M))
    assert said == {rule.key for rule in rules.REGISTRY if rule.key in rules.accepted(game) and rule.card}


@pytest.mark.parametrize("game", registry.ids())
def test_the_stored_card_says_what_the_registry_says(game: str) -> None:
    stored = rule_card(game)
    assert stored is not None and cards.SECTION in stored
    assert cards.render(stored, game) == stored, "run: python -m bot.host.rules.cards --write"
    house_rules_named(stored, game)


@pytest.mark.parametrize("game", registry.ids())
def test_the_card_people_read_names_every_rule_the_game_takes(game: str) -> None:
    shown = cards.card(game)
    assert shown is not None
    house_rules_named(shown, game)


def test_every_rule_a_host_sets_has_its_card_words() -> None:
    assert all(rule.card for rule in rules.REGISTRY if rule.settable)


def test_a_rule_the_card_does_not_say_yet_goes_after_the_one_before_it() -> None:
    stored = rule_card("boxes")
    assert stored is not None
    draw = cards.rule_bullets("boxes")["draw"]
    without = stored.replace(draw + "\n", "")
    assert without != stored and cards.render(without, "boxes") == stored


def test_the_command_line_finds_no_stale_card() -> None:
    assert cards.main([]) == 0
