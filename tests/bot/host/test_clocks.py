"""Time controls and clocks as plain values (`bot/host/clocks.py`): loop times are passed in as numbers.

The host-level behaviour (deadlines firing on a running event loop, restarts) is in test_host_clocks.py.
"""

from __future__ import annotations

import json

import pytest

from bot.host.clocks import Clocks, Deadline, TimeControl
from games.base import ClockSpec

RESERVE = ClockSpec(kind="move_reserve", move=60, reserve=300)
"""Pathing / Boxes / Dots: 60 s per action plus 300 s reserve (RULES.md)."""
GRACE = ClockSpec(kind="grace", move=60, grace=600)
"""Trax: 60 s per move, one grace of at most 10 minutes per player (RULES.md)."""


def reserve_clocks(**overrides: float) -> Clocks:
    return Clocks.new(TimeControl.from_spec(RESERVE, overrides))


def grace_clocks(**overrides: float) -> Clocks:
    return Clocks.new(TimeControl.from_spec(GRACE, overrides))


def kinds(clocks: Clocks) -> list[str]:
    return [kind for _, kind in clocks.schedule()]


# -- TimeControl ------------------------------------------------------------------------------


def test_time_control_takes_the_games_default_and_per_match_overrides() -> None:
    tc = TimeControl.from_spec(RESERVE)
    assert (tc.kind, tc.move, tc.reserve, tc.grace) == ("move_reserve", 60, 300, 0)
    faster = TimeControl.from_spec(RESERVE, {"move": "20", "reserve": 45.5, "takeback": "3"})
    assert (faster.move, faster.reserve) == (20.0, 45.5)
    assert "takeback" not in faster.to_json()  # the typed take-back window is the take-back rule's, not the clock's
    assert TimeControl.from_spec(RESERVE, {"kind": "grace", "grace": 90}).kind == "grace"


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"moves": 10}, "there is no clock setting"),
        ({"kind": "hourglass"}, "move_reserve, grace or correspondence"),
        ({"move": "soon"}, "must be a number"),
        ({"reserve": -1}, "between 0 and a week"),
        ({"grace": 8 * 24 * 3600}, "between 0 and a week"),
        ({"move": 0}, "more than 0"),
        ({"takeback": "soon"}, "clock setting takeback must be a number"),
        ({"takeback": "8d"}, "clock setting takeback must be between 0 and a week"),
    ],
)
def test_bad_time_control_settings_are_refused_with_a_reason(overrides: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        TimeControl.from_spec(RESERVE, overrides)


def test_time_control_json_round_trip() -> None:
    tc = TimeControl.from_spec(GRACE, {"presence": 30, "takeback": 2.5})
    assert TimeControl.from_json(json.loads(json.dumps(tc.to_json()))) == tc


# -- schedule ---------------------------------------------------------------------------------


def test_move_and_reserve_schedule() -> None:
    clocks = reserve_clocks()
    assert clocks.schedule() == []  # nobody on move
    clocks.start(1, now=1000.0)
    sched = clocks.schedule()
    # Warnings 30 s and 10 s before the action time runs out, then the reserve starts; warnings 30 s and
    # 10 s before the reserve runs out, then the timeout at action time + reserve.
    assert sched == sorted(sched)
    assert sched[-1] == (360.0, "timeout")
    assert (60.0, "reserve_started") in sched
    assert {(30.0, "move_warn30"), (50.0, "move_warn10"), (330.0, "warn30"), (350.0, "warn10")} <= set(sched)
    assert clocks.limit() == 360.0
    deadlines = clocks.next_deadlines(1000.0)
    assert deadlines[0] == Deadline(1030.0, "move_warn30", 1)
    assert deadlines[-1].at == 1360.0 and deadlines[-1].kind == "timeout"


def test_without_reserve_the_action_time_is_all_there_is() -> None:
    clocks = reserve_clocks(reserve=0)
    clocks.start(2, now=0.0)
    assert clocks.schedule() == [(30.0, "warn30"), (50.0, "warn10"), (60.0, "timeout")]
    short = reserve_clocks(move=20, reserve=0)
    short.start(1, now=0.0)
    assert short.schedule() == [(10.0, "warn10"), (20.0, "timeout")]  # no 30 s warning on a 20 s clock


def test_grace_schedule_before_and_after_the_grace_is_used() -> None:
    clocks = grace_clocks()
    clocks.start(1, now=0.0)
    assert clocks.limit() == 660.0
    sched = clocks.schedule()
    assert (60.0, "grace_started") in sched and sched[-1] == (660.0, "timeout")
    assert {(600.0, "warn60"), (630.0, "warn30"), (650.0, "warn10")} <= set(sched)
    clocks.fire("grace_started")
    assert clocks.in_grace and clocks.grace_used[1]
    assert [d.kind for d in clocks.next_deadlines(70.0)][-1] == "timeout"
    assert "grace_started" not in [d.kind for d in clocks.next_deadlines(70.0)]
    assert clocks.stop(now=100.0) == 100.0
    # The grace is spent: the next action of seat 1 ends at the plain move time.
    clocks.start(1, now=200.0)
    assert clocks.limit() == 60.0
    assert clocks.schedule()[-1] == (60.0, "timeout")
    assert "grace_started" not in kinds(clocks)
    # Seat 2 still has its own.
    clocks.stop(now=210.0)
    clocks.start(2, now=210.0)
    assert clocks.limit() == 660.0


def test_fired_deadlines_are_not_listed_again() -> None:
    clocks = reserve_clocks()
    clocks.start(1, now=0.0)
    clocks.fire("move_warn30")
    assert "move_warn30" not in [d.kind for d in clocks.next_deadlines(31.0)]
    clocks.stop(now=40.0)
    clocks.start(2, now=40.0)
    assert "move_warn30" in [d.kind for d in clocks.next_deadlines(40.0)]  # a new action starts clean


# -- stop, remaining, reserve use -------------------------------------------------------------


def test_stop_charges_only_the_time_beyond_the_action_to_the_reserve() -> None:
    clocks = reserve_clocks()
    clocks.start(1, now=0.0)
    assert clocks.remaining(1, now=45.0) == {"move": 15.0, "reserve": 300.0}
    assert clocks.stop(now=45.0) == 45.0
    assert clocks.reserve_left[1] == 300.0
    clocks.start(1, now=100.0)
    assert clocks.remaining(1, now=190.0) == {"move": 0.0, "reserve": 270.0}
    assert clocks.stop(now=190.0) == 90.0
    assert clocks.reserve_left == {1: 270.0, 2: 300.0}
    assert clocks.running is None and clocks.stop(now=500.0) == 0.0


# -- pause and resume -------------------------------------------------------------------------


def test_pause_freezes_the_action_and_resume_shifts_its_deadlines() -> None:
    clocks = reserve_clocks()
    clocks.start(1, now=0.0)
    clocks.pause(now=20.0)
    assert clocks.paused
    assert clocks.next_deadlines(25.0) == []
    assert clocks.action_elapsed(now=500.0) == 20.0  # the paused time is nobody's
    clocks.resume(now=1000.0)
    assert not clocks.paused
    assert clocks.action_elapsed(now=1010.0) == 30.0
    assert clocks.next_deadlines(1000.0)[-1] == Deadline(1340.0, "timeout", 1)
    clocks.pause(now=1010.0)
    clocks.pause(now=2000.0)  # a second pause changes nothing
    assert clocks.action_elapsed(now=3000.0) == 30.0


def test_a_paused_start_waits_for_resume() -> None:
    clocks = grace_clocks()
    clocks.start(2, now=50.0, paused=True)
    assert clocks.paused and clocks.running == 2
    assert clocks.next_deadlines(60.0) == []
    clocks.resume(now=80.0)
    assert clocks.next_deadlines(80.0)[-1] == Deadline(80.0 + 660.0, "timeout", 2)


def test_resume_without_a_running_seat_does_nothing() -> None:
    clocks = reserve_clocks()
    clocks.resume(now=10.0)
    assert clocks.running is None and not clocks.paused and clocks.next_deadlines(10.0) == []


# -- adjust -----------------------------------------------------------------------------------


def test_adjust_changes_the_reserve_of_a_move_reserve_clock() -> None:
    clocks = reserve_clocks()
    clocks.start(1, now=0.0)
    clocks.fire("reserve_started")
    clocks.fire("warn30")
    clocks.adjust(1, 60.0, now=70.0)
    assert clocks.reserve_left[1] == 360.0
    # Warnings of the new reserve come again; the reserve has already started.
    left = [d.kind for d in clocks.next_deadlines(70.0)]
    assert "warn30" in left and "reserve_started" not in left
    assert clocks.next_deadlines(70.0)[-1].at == 420.0
    clocks.adjust(2, -1000.0, now=70.0)
    assert clocks.reserve_left[2] == 0.0  # never below zero


def test_adjust_on_a_grace_clock_moves_the_running_action_or_credits_the_next() -> None:
    clocks = grace_clocks()
    clocks.start(1, now=0.0)
    clocks.adjust(1, 15.0, now=10.0)
    assert clocks.action_elapsed(now=10.0) == -5.0
    assert clocks.remaining(1, now=10.0)["move"] == 65.0
    clocks.adjust(2, 20.0, now=10.0)  # not on move: kept for seat 2's next action
    clocks.stop(now=30.0)
    clocks.start(2, now=30.0)
    assert clocks.remaining(2, now=30.0)["move"] == 80.0
    assert clocks.credit[2] == 0.0  # used up by this action
    clocks.stop(now=40.0)
    clocks.start(2, now=40.0)
    assert clocks.remaining(2, now=40.0)["move"] == 60.0


def test_adjust_in_grace_keeps_the_grace_started() -> None:
    clocks = grace_clocks()
    clocks.start(1, now=0.0)
    clocks.fire("grace_started")
    clocks.fire("warn60")
    clocks.adjust(1, 30.0, now=100.0)
    left = [d.kind for d in clocks.next_deadlines(100.0)]
    assert "grace_started" not in left and "warn60" in left
    assert clocks.next_deadlines(100.0)[-1].at == 690.0


# -- storage ----------------------------------------------------------------------------------


def test_json_round_trip_freezes_the_running_action_and_rearms_it_later() -> None:
    clocks = reserve_clocks(takeback=5)
    clocks.start(1, now=0.0)
    clocks.stop(now=100.0)  # seat 1 used 40 s of reserve
    clocks.adjust(2, 10.0, now=100.0)
    clocks.start(2, now=100.0)
    clocks.fire("move_warn30")
    snap = json.loads(json.dumps(clocks.to_json(now=135.0)))
    assert snap["elapsed"] == 35.0 and snap["ticking"] is True
    back = Clocks.from_json(snap, now=5000.0)
    assert back.tc == clocks.tc
    assert back.reserve_left == {1: 260.0, 2: 310.0}
    assert back.grace_used == clocks.grace_used and back.credit == clocks.credit
    assert back.running == 2 and back.fired == {"move_warn30"}
    assert back.action_elapsed(now=5000.0) == 35.0
    # Same deadlines, shifted to the new loop time.
    assert [(d.at - 5000.0, d.kind) for d in back.next_deadlines(5000.0)] == [
        (d.at - 135.0, d.kind) for d in clocks.next_deadlines(135.0)
    ]


def test_time_before_a_crash_is_added_only_to_a_ticking_clock() -> None:
    clocks = grace_clocks()
    clocks.start(1, now=0.0)
    clocks.fire("grace_started")
    ticking = clocks.to_json(now=80.0)
    back = Clocks.from_json(ticking, now=0.0, extra_elapsed=3.0)
    assert back.action_elapsed(now=0.0) == 83.0 and back.in_grace and back.grace_used[1]
    clocks.pause(now=80.0)
    paused = clocks.to_json(now=90.0)
    assert paused["ticking"] is False
    back = Clocks.from_json(paused, now=0.0, extra_elapsed=3.0)
    assert back.paused and back.action_elapsed(now=50.0) == 80.0
