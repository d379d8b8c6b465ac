"""The take-back window alone: provisional moves, taking back, the window closing."""

from __future__ import annotations

import pytest

from bot.host.rules import Refused
from bot.host.rules.takeback import TakeBack, from_clock
from tests.bot.host.rules.conftest import FakeMatch


def played(match: FakeMatch, rule: TakeBack, seat: int = 1, at: float = 0.0) -> None:
    match.history.append((seat, f"before-{match.ply}", match.ply))
    match.ply += 1
    eff = rule.after_play(match, seat, "A1-B1", "m1", at)
    assert eff is not None
    match.timers(rule, eff, at)


def test_a_move_is_provisional_for_the_window(match: FakeMatch) -> None:
    rule = TakeBack(5)
    played(match, rule)
    assert rule.holds_clock() and rule.provisional() is not None
    assert match.due[("takeback", "commit")] == 5
    with pytest.raises(Refused) as refused:
        rule.gate(match, 2)
    assert refused.value.kind == "turn"


def test_the_author_takes_it_back_in_time(match: FakeMatch) -> None:
    rule = TakeBack(5)
    played(match, rule)
    with pytest.raises(Refused):
        rule.on_keyword(match, 2, "takeback", 1.0)  # not the author
    eff = rule.on_keyword(match, 1, "takeback:delete", 4.9)
    assert eff is not None and eff.rewind_to == 0 and eff.timers == {"commit": None}
    assert eff.log[0].data == {"via": "delete", "move": "A1-B1"}
    assert rule.provisional() is None and not rule.holds_clock()


def test_too_late_once_the_window_has_passed(match: FakeMatch) -> None:
    rule = TakeBack(5)
    played(match, rule)
    with pytest.raises(Refused) as refused:
        rule.on_keyword(match, 1, "takeback", 5.5)
    assert refused.value.code == "takeback_late"


def test_a_paused_window_never_closes(match: FakeMatch) -> None:
    rule = TakeBack(5)
    played(match, rule)
    match.paused = True
    assert rule.on_keyword(match, 1, "takeback", 100.0) is not None


def test_the_timer_makes_it_final(match: FakeMatch) -> None:
    rule = TakeBack(5)
    played(match, rule)
    eff = rule.on_timer(match, "commit")
    assert eff is not None and eff.hand_over is not None and eff.hand_over.notation == "A1-B1"
    assert rule.provisional() is None
    assert rule.on_timer(match, "commit") is None


def test_window_zero_is_off(match: FakeMatch) -> None:
    rule = TakeBack(0)
    assert rule.after_play(match, 1, "A1-B1", None, 0.0) is None
    assert rule.on_keyword(match, 1, "takeback", 0.0) is None


def test_state_round_trips_and_reads_the_old_format(match: FakeMatch) -> None:
    rule = TakeBack(5)
    played(match, rule, at=10.0)
    again = TakeBack(5)
    again.load(rule.dump(now=11.0), now=111.0)
    assert again.provisional() == rule.provisional().__class__(1, 1, "A1-B1", "m1", 110.0)  # type: ignore[union-attr]
    old = TakeBack(5)
    old.load_legacy({}, {"seat": 2, "ply": 3, "notation": "B1+", "message_id": "m", "at": -1.5}, 50.0)
    assert old.provisional() is not None and old.provisional().at == 48.5  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("clock", "setting"),
    [
        ({"move": "60", "takeback": "3"}, {"takeback": 3.0}),  # typed: `--clock move=60 takeback=3`
        ({"takeback": "1m"}, {"takeback": 60.0}),  # a typed clock's durations
        ({"move": "60"}, {}),
        ({"kind": "grace", "move": 60.0, "takeback": 2.5}, {"takeback": 2.5}),  # an old stored time control
        ({"kind": "grace", "move": 60.0, "takeback": None}, {}),  # stored: the game's default then
    ],
)
def test_a_clocks_take_back_part_is_this_rules_setting(clock: dict[str, object], setting: dict[str, float]) -> None:
    assert from_clock(clock) == setting
