"""Which house rules each game takes, their defaults, and the `K=V` forms of docs/cli.md."""

from __future__ import annotations

import pytest

from bot.host import rules
from bot.wording import refusal_text


def test_each_game_keeps_its_death_match_defaults() -> None:
    assert rules.defaults("trax") == {"takeback": 5.0, "mulligan": 1, "threesame": True}
    assert rules.defaults("dotdash") == {"takeback": 0.0, "mulligan": 0, "shiftconfirm": True}
    assert rules.defaults("boxes") == {"takeback": 0.0, "mulligan": 0}


def test_the_contract_forms() -> None:
    chosen = rules.parse("dots", {"takeback": "5", "mulligan": "1", "clock": "grace"})
    assert chosen == {"takeback": 5.0, "mulligan": 1, "clock": "grace"}
    assert rules.parse("trax", {"takeback": "0", "threesame": "off"})["threesame"] is False


@pytest.mark.parametrize(
    ("game", "raw", "says"),
    [
        ("boxes", {"threesame": "1"}, "boxes takes no rule 'threesame'; it accepts takeback, mulligan, clock"),
        ("trax", {"shiftconfirm": "1"}, "accepts takeback, mulligan, clock, threesame"),
        ("boxes", {"takeback": "soon"}, "number of seconds"),
        ("boxes", {"mulligan": "-1"}, "number of mulligans"),
        ("boxes", {"clock": "sudden"}, "grace or move_reserve"),
    ],
)
def test_what_a_game_cannot_take_names_what_it_can(game: str, raw: dict[str, str], says: str) -> None:
    with pytest.raises(rules.RulesError) as err:
        rules.parse(game, raw)
    assert says in refusal_text(err.value.refusal)


def test_switching_clock_kind_brings_its_budget() -> None:
    assert rules.clock_overrides({"clock": "grace"}, "move_reserve", {}) == {"kind": "grace", "grace": 600}
    assert rules.clock_overrides({"clock": "grace"}, "move_reserve", {"grace": 30}) == {"kind": "grace", "grace": 30}
    assert rules.clock_overrides({"clock": "grace"}, "grace", {}) == {}
