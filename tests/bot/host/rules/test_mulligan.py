"""The mulligan alone, in both cases of the ruling (RULES.md, Trax: Mulligan)."""

from __future__ import annotations

import pytest

from bot.host.rules import Refused
from bot.host.rules.mulligan import Mulligan
from tests.bot.host.rules.conftest import FakeMatch


def history(seats: list[int]) -> list[tuple[int, str, int]]:
    return [(seat, f"state-{ply}", ply) for ply, seat in enumerate(seats)]


def test_during_play_it_rewinds_your_turn_and_the_reply(match: FakeMatch) -> None:
    rule = Mulligan(1)
    match.history, match.ply, match.mover = history([1, 2, 1]), 3, 2
    eff = rule.on_keyword(match, 2, "mulligan", 0.0)
    assert eff is not None and eff.rewind_to == 1 and eff.clock == ["restart"]
    assert eff.log[0].data == {"rewound_plies": 2, "to_ply": 1}
    with pytest.raises(Refused) as again:
        rule.on_keyword(match, 2, "mulligan", 0.0)
    assert again.value.code == "mulligan_used"


def test_only_on_your_own_turn_and_with_a_turn_to_rewind(match: FakeMatch) -> None:
    rule = Mulligan(1)
    with pytest.raises(Refused) as nothing:
        rule.on_keyword(match, 1, "mulligan", 0.0)
    assert nothing.value.code == "mulligan_nothing"
    match.history, match.ply, match.mover = history([1, 2]), 2, 1
    with pytest.raises(Refused) as not_yours:
        rule.on_keyword(match, 2, "mulligan", 0.0)
    assert not_yours.value.code == "mulligan_own_turn"


def test_opponent_won_after_your_turn_both_turns_are_rewound(match: FakeMatch) -> None:
    rule = Mulligan(1)
    match.history, match.ply, match.mover = history([1, 2, 1]), 3, None  # seat 1's move won
    offer = rule.at_result(match, 1, "loop")
    assert offer is not None and offer.status == "held" and offer.say[0].seat == 2
    match.status = "held"
    with pytest.raises(Refused):
        rule.on_keyword(match, 1, "mulligan", 0.0)  # the winner has nothing to rewind here
    eff = rule.on_keyword(match, 2, "mulligan", 0.0)
    assert eff is not None and eff.rewind_to == 1 and eff.status == "ongoing"
    assert eff.say[0].data["rewound"] == 2


def test_your_own_move_gave_the_win_only_your_turn_is_rewound(match: FakeMatch) -> None:
    rule = Mulligan(1)
    match.history, match.ply, match.mover = history([1, 2, 1, 2]), 4, None  # seat 2's move won it for seat 1
    assert rule.at_result(match, 1, "loop") is not None
    eff = rule.on_keyword(match, 2, "mulligan", 0.0)
    assert eff is not None and eff.rewind_to == 3 and eff.say[0].data["rewound"] == 1


def test_declining_or_timing_out_confirms_the_win(match: FakeMatch) -> None:
    rule = Mulligan(1)
    match.history, match.ply = history([1, 2]), 2
    assert rule.at_result(match, 1, "line") is not None
    with pytest.raises(Refused):
        rule.on_keyword(match, 1, "decline", 0.0)  # the winner cannot decline
    eff = rule.on_keyword(match, 2, "decline", 0.0)
    assert eff is not None and eff.finish == (1, "line")
    assert rule.at_result(match, 1, "line") is not None
    timed_out = rule.on_timer(match, "offer")
    assert timed_out is not None and timed_out.finish == (1, "line") and timed_out.log[0].data == {"how": "timeout"}


def test_no_offer_without_a_mulligan_left(match: FakeMatch) -> None:
    rule = Mulligan(1)
    rule.used[2] = 1
    match.history, match.ply = history([1, 2]), 2
    assert rule.at_result(match, 1, "loop") is None
    assert Mulligan(0).at_result(match, 1, "loop") is None
    assert Mulligan(0).on_keyword(match, 2, "mulligan", 0.0) is None


def test_old_snapshot_flags() -> None:
    rule = Mulligan(1)
    rule.load_legacy({"mulligan_used_1": True, "mulligan_wait": {"winner": 1, "reason": "loop"}}, None, 0.0)
    assert rule.used == {1: 1, 2: 0} and rule.offer == (1, "loop")
    again = Mulligan(1)
    again.load(rule.dump(0.0), 0.0)
    assert again.used == rule.used and again.offer == rule.offer
