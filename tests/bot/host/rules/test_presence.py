"""The one-grace clock's presence check alone: one pause per grace, never more."""

from __future__ import annotations

import pytest

from bot.host.clocks import Clocks, TimeControl
from bot.host.rules import Refused
from bot.host.rules.presence import GracePresence
from tests.bot.host.rules.conftest import FakeMatch


@pytest.fixture
def in_grace() -> FakeMatch:
    clocks = Clocks.new(TimeControl("grace", move=1, grace=20, presence=1))
    clocks.start(1, 0.0)
    clocks.fire("grace_started")
    return FakeMatch(clocks=clocks)


def test_ready_pauses_once_and_the_opponent_clears_it(in_grace: FakeMatch) -> None:
    rule = GracePresence()
    with pytest.raises(Refused) as gated:
        rule.gate_mover(in_grace, 1)
    assert gated.value.code == "grace_ready" and gated.value.kind == "grace"
    eff = rule.on_keyword(in_grace, 1, "ready", 0.0)
    assert eff is not None and eff.clock == ["pause"] and eff.timers == {"presence": 1}
    assert eff.say[0].data["confirmer_id"] == "p2" and rule.holds_clock()
    with pytest.raises(Refused):
        rule.on_keyword(in_grace, 1, "here", 0.0)  # only the opponent confirms
    done = rule.on_keyword(in_grace, 2, "here", 0.0)
    assert done is not None and done.clock == ["resume"] and done.timers == {"presence": None}
    rule.gate_mover(in_grace, 1)  # cleared: the move may come


def test_a_second_ready_never_pauses_again(in_grace: FakeMatch) -> None:
    rule = GracePresence()
    assert rule.on_keyword(in_grace, 1, "ready", 0.0) is not None
    with pytest.raises(Refused) as waiting:
        rule.on_keyword(in_grace, 1, "ready", 0.8)
    assert waiting.value.code == "ready_waiting"
    expired = rule.on_timer(in_grace, "presence")
    assert expired is not None and expired.clock == ["resume"]
    with pytest.raises(Refused) as cleared:
        rule.on_keyword(in_grace, 1, "ready", 1.6)
    assert cleared.value.code == "ready_cleared"


def test_a_new_action_gets_a_new_check(in_grace: FakeMatch) -> None:
    rule = GracePresence()
    rule.on_keyword(in_grace, 1, "ready", 0.0)
    rule.on_timer(in_grace, "presence")
    rule.after_play(in_grace, 1, "@0+", None, 2.0)
    assert not rule.cleared and not rule.waiting


def test_only_with_the_grace_clock(match: FakeMatch) -> None:
    assert GracePresence().on_keyword(match, 1, "ready", 0.0) is None


def test_ready_outside_grace_is_refused() -> None:
    clocks = Clocks.new(TimeControl("grace", move=60, grace=600))
    clocks.start(1, 0.0)
    with pytest.raises(Refused) as refused:
        GracePresence().on_keyword(FakeMatch(clocks=clocks), 1, "ready", 0.0)
    assert refused.value.code == "ready_not_in_grace"
