"""The terminal room's `NAME: vacation N` (issue 41): the same rule as `/dm event vacation days:N`, through
the real command line (`dmhost room … --events-json`, a real subprocess on a real SQLite file)."""

from __future__ import annotations

import time
from pathlib import Path

from tests.bot.host.rules.test_correspondence import PLAYERS, _room, _say, _stop, _until


def test_vacation_stops_the_clock_and_the_opponent_is_told(tmp_path: Path) -> None:
    # alice is on move with 4 s a move and a reminder at 80 %: on vacation neither comes while 5 s pass
    proc = _room(["boxes", *PLAYERS, "--clock", "kind=correspondence", "move=4", "--db", "v.db"], tmp_path)
    _until(proc, "started")
    _say(proc, "help")
    card = _until(proc, "help")[-1]["text"]
    assert "vacation N" in card
    _say(proc, "alice: vacation 3")
    told = _until(proc, "vacation_taken")
    away = next(e for e in told if e["event"] == "vacation")
    assert away["seat"] == 2 and away["away"] == 1  # addressed to bob, about alice
    assert "alice is on vacation until" in away["text"] and "clock stands still" in away["text"]
    taken = told[-1]
    assert taken["player"] == "alice" and taken["used"] == 3 and taken["allowance"] == 14
    assert taken["until"] == away["until"] and 3 * 86400 - 120 < taken["until"] - time.time() <= 3 * 86400
    _say(proc, "alice: vacation 2")  # one at a time
    refused = _until(proc, "rejected")
    assert refused[-1]["kind"] == "vacation" and "already" in refused[-1]["reason"]
    _say(proc, "bob: vacation 20")  # more than the 14 days a year
    refused = _until(proc, "rejected")
    assert refused[-1]["player"] == "bob" and "14" in refused[-1]["reason"]
    time.sleep(5)  # past alice's 4 s: her clock stood still
    _say(proc, "alice: vacation 0")
    back = _until(proc, "vacation_taken")
    kinds = [e["event"] for e in [*told, *back]]
    assert "reminder" not in kinds and "timeout" not in kinds and "finished" not in kinds
    over = next(e for e in back if e["event"] == "vacation_over")
    assert over["seat"] == 2 and "alice is back from vacation" in over["text"]
    assert back[-1]["until"] is None and back[-1]["used"] == 1  # the two whole days not begun given back
    ended = _until(proc, "finished")  # the clock runs again: the reminder, then the loss on time
    _stop(proc)
    assert [e["event"] for e in ended] == ["reminder", "timeout", "finished"]
    assert ended[-1]["winner"] == "bob" and ended[-1]["reason"] == "time"


def test_vacation_needs_a_correspondence_clock(tmp_path: Path) -> None:
    proc = _room(["boxes", *PLAYERS, "--db", "w.db"], tmp_path)
    _until(proc, "started")
    _say(proc, "alice: vacation 2")
    refused = _until(proc, "rejected")
    _say(proc, "alice: A1-B1")
    moved = _until(proc, "move")
    _stop(proc)
    assert refused[-1]["kind"] == "vacation" and "correspondence" in refused[-1]["reason"]
    assert moved[-1]["seat"] == 1  # the line after the refusal is played as ever
