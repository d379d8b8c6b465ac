"""The house-rule part of every rule card is made from the registry (`bot/host/rules/cards.py`): the stored
cards in `seeds/rules/` say exactly what the registered rules declare of every rule they name (rewrite them with
`python -m bot.host.rules.cards --write`), and the card people read names every rule the game takes. A stored
card may be behind by whole rules it does not name yet (a rule just added as one module, which the suite run
by `tools/suite-with-a-new-rule.sh` has): the card people read says them all the same."""

from __future__ import annotations

import re
from collections.abc import Collection

import pytest

from bot.host import rules
from bot.host.rules import cards
from games import registry
from games.resources import rule_card


def house_rules_named(text: str, game: str, leaving_out: Collection[str] = ()) -> None:
    """The card `text` of `game` names each rule the game takes (but those `leaving_out` names) in its
    "Accepted here" line, gives each one that declares card words its own bullet, and says no other rule's
    `KEY=`."""
    section = text.split(cards.SECTION, 1)[1].split("\n## ", 1)[0]
    accepted_line = next(line for line in section.splitlines() if line.startswith("- Accepted here:"))
    assert accepted_line == cards.head_bullets(game, leaving_out)[0]
    for bullet in cards.rule_bullets(game, leaving_out).values():
        assert bullet in section
    said = set(re.findall(r"^- `(\w+)=", section, re.M))
    taken = rules.accepted(game)
    assert said == {rule.key for rule in rules.REGISTRY if rule.key in taken and rule.card} - set(leaving_out)


@pytest.mark.parametrize("game", registry.ids())
def test_the_stored_card_says_what_the_registry_says(game: str) -> None:
    stored = rule_card(game)
    assert stored is not None and cards.SECTION in stored
    behind = cards.behind(stored, game)
    assert cards.render(stored, game, behind) == stored, "run: python -m bot.host.rules.cards --write"
    assert not cards.stale(game)
    house_rules_named(stored, game, behind)


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
    behind = cards.behind(stored, "boxes")
    assert without != stored and cards.render(without, "boxes", behind) == stored


def test_a_card_behind_by_a_rule_is_not_stale_and_people_read_the_rule() -> None:
    """A stored card that does not name a rule at all (as one written before the rule was added) is behind,
    not stale: its other words are checked as ever, and the card people read says the rule."""
    stored = rule_card("boxes")
    assert stored is not None
    full = cards.render(stored, "boxes")  # as people read it: every registered rule said
    accepted, _defaults = cards.head_bullets("boxes")
    fewer, _ = cards.head_bullets("boxes", {"draw"})
    older = full.replace(cards.rule_bullets("boxes")["draw"] + "\n", "").replace(accepted, fewer)
    assert "draw" not in cards.named(older, "boxes") and cards.behind(older, "boxes") == ["draw"]
    assert cards.render(older, "boxes", ["draw"]) == older  # nothing else to say
    assert cards.render(older, "boxes") == full  # people read the rule all the same
    wrong = older.replace(fewer, fewer.replace("takeback", "take_back"))
    assert wrong != older and cards.render(wrong, "boxes", cards.behind(wrong, "boxes")) != wrong


def test_the_command_line_finds_no_stale_card() -> None:
    assert cards.main([]) == 0
