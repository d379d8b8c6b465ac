"""Three-same restart, shift confirmation and the advantage choice, each alone."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bot.host.rules import Refused
from bot.host.rules.advantage import AdvantageChoice
from bot.host.rules.shiftconfirm import ShiftConfirm
from bot.host.rules.threesame import ThreeSameRestart
from tests.bot.host.rules.conftest import FakeMatch


def test_three_same_restarts_the_clock_once_per_match(match: FakeMatch) -> None:
    rule = ThreeSameRestart()
    assert rule.after_illegal(match, 1, "not-adjacent") is None
    first = rule.after_illegal(match, 1, "three-same")
    assert first is not None and first.clock == ["restart"] and first.say[0].data == {"notice": "restart"}
    assert rule.after_illegal(match, 2, "three-same") is None


def test_a_losing_shift_waits_for_confirm() -> None:
    ruleset = SimpleNamespace(loses_by_shifting=lambda state, move: move == "bad")
    match = FakeMatch(ruleset=ruleset)
    rule = ShiftConfirm()
    assert rule.after_validate(match, 1, "C1-C4", "good", "m1") is None
    held = rule.after_validate(match, 1, "C1-C4", "bad", "m1")
    assert held is not None and held.reject is not None and held.reject.kind == "confirm"
    with pytest.raises(Refused) as other:
        rule.on_keyword(match, 2, "confirm", 0.0)
    assert other.value.code == "confirm_nothing"
    eff = rule.on_keyword(match, 1, "confirm", 0.0)
    assert eff is not None and eff.replay == ("C1-C4", "m1")
    assert rule.on_keyword(match, 1, "confirm", 0.0) is None  # nothing held: `confirm` is chat


def test_games_whose_moves_never_lose_by_shifting_are_never_held() -> None:
    from games import registry

    boxes = registry.get("boxes")
    state = boxes.new_game(boxes.parse_options({}))
    move = boxes.legal_moves(state)[0]
    match = FakeMatch(ruleset=boxes, state=state)
    assert ShiftConfirm().after_validate(match, 1, boxes.format(state, move), move, None) is None


def choosing(match: FakeMatch, chooser: int) -> AdvantageChoice:
    rule = AdvantageChoice()
    eff = rule.on_create(match, chooser)
    assert eff is not None and eff.status == "held" and eff.timers == {"choose": 60}
    match.status = "held"
    return rule


@pytest.mark.parametrize(("said", "swap"), [("first", True), ("second", False)])
def test_the_advantage_player_chooses(match: FakeMatch, said: str, swap: bool) -> None:
    rule = choosing(match, 2)
    with pytest.raises(Refused):
        rule.gate(match, 1)
    with pytest.raises(Refused) as not_you:
        rule.on_keyword(match, 1, said, 0.0)
    assert not_you.value.data == {"chooser": 2}
    eff = rule.on_keyword(match, 2, said, 0.0)
    assert eff is not None and eff.swap_seats is swap and eff.start and eff.status == "ongoing"


def test_a_chooser_out_of_time_moves_first(match: FakeMatch) -> None:
    rule = choosing(match, 2)
    eff: Any = rule.on_timer(match, "choose")
    assert eff.swap_seats and eff.start and eff.log[0].data == {"first": "p2", "how": "timeout"}
    assert eff.say[0].kind == "choice_timeout"
    assert rule.on_keyword(match, 2, "first", 0.0) is None


def test_no_advantage_no_choice(match: FakeMatch) -> None:
    assert AdvantageChoice().on_create(match, None) is None
