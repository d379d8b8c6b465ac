"""Time odds: a player's own move, reserve or grace (`bob:reserve=120`, `p2:reserve=120`), enforced per seat,
stored with the match (snapshots without odds still load), in the text log and in the terminal room."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bot.host.clocks import Clocks, TimeControl, seat_odds
from bot.host.service import PlayerRef
from bot.records.matchlog import build_log
from bot.wording import log_text
from games.base import ClockSpec
from tests.bot.adapters.terminal.test_room_cli import DMHOST, room
from tests.bot.conftest import Recorder, make_service

SPEC = ClockSpec("move_reserve", 60.0, 300.0)


def test_odds_by_seat_apply_to_that_seat_only() -> None:
    tc = TimeControl.from_spec(SPEC, {"move": "30", "p2:reserve": "120", "p1:move": "45"})
    assert (tc.move, tc.reserve) == (30, 300)
    assert (tc.for_seat(1).move, tc.for_seat(1).reserve) == (45, 300)
    assert (tc.for_seat(2).move, tc.for_seat(2).reserve) == (30, 120)
    clocks = Clocks.new(tc)
    assert clocks.reserve_left == {1: 300, 2: 120}
    clocks.start(2, 0.0)
    assert clocks.next_deadlines(0.0)[-1].at == 30 + 120  # bob's own reserve
    clocks.stop(40.0)
    assert clocks.reserve_left[2] == 110
    clocks.start(1, 40.0)
    assert clocks.next_deadlines(40.0)[-1].at == 40 + 45 + 300


def test_odds_round_trip_and_old_snapshots_load() -> None:
    tc = TimeControl.from_spec(SPEC, {"p2:reserve": "120"})
    data = tc.to_json()
    assert data["odds"] == {"2": {"reserve": 120.0}}
    assert TimeControl.from_json(json.loads(json.dumps(data))) == tc
    old = {"kind": "move_reserve", "move": 60.0, "reserve": 300.0, "grace": 0.0, "presence": 120.0, "takeback": None}
    assert TimeControl.from_json(old).odds == {} and "odds" not in TimeControl.from_json(old).to_json()
    clocks = Clocks.new(tc)
    again = Clocks.from_json(json.loads(json.dumps(clocks.to_json(0.0))), 0.0)
    assert again.tc == tc and again.reserve_left == {1: 300.0, 2: 120.0}


def test_swapping_seats_takes_the_odds_along() -> None:
    clocks = Clocks.new(TimeControl.from_spec(SPEC, {"p2:reserve": "120"}))
    clocks.swap_seats()
    assert clocks.tc.for_seat(1).reserve == 120 and clocks.tc.for_seat(2).reserve == 300
    assert clocks.reserve_left == {1: 120, 2: 300}


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"p3:reserve": "1"}, "p1: or p2:"),
        ({"p1:kind": "grace"}, "p1: or p2:"),
        ({"p1:move": "0"}, "more than 0"),
        ({"p2:reserve": "lots"}, "number of seconds"),
    ],
)
def test_bad_odds_are_refused(overrides: dict[str, str], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        TimeControl.from_spec(SPEC, overrides)


def test_players_are_named_by_name_mention_or_seat() -> None:
    players = [["alice", "Alice A.", "11"], ["bob", "22"]]
    clock = {"move": "60", "Bob:reserve": "120", "11:move": "30", "@alice:grace": "5", "p2:grace": "9"}
    assert seat_odds(clock, players) == {
        "move": "60",
        "p2:reserve": "120",
        "p1:move": "30",
        "p1:grace": "5",
        "p2:grace": "9",
    }
    with pytest.raises(ValueError, match="neither player"):
        seat_odds({"carol:reserve": "1"}, players)
    with pytest.raises(ValueError, match="both players"):
        seat_odds({"sam:reserve": "1"}, [["sam"], ["sam"]])


@pytest.mark.looptime
async def test_odds_survive_a_restart_and_decide_on_time(migrated_sqlite_url: str) -> None:
    rec = Recorder()
    s1 = await make_service(migrated_sqlite_url, rec)
    players = [PlayerRef("a", "alice"), PlayerRef("b", "bob")]
    mid = await s1.create_match("boxes", players, clock={"move": 10, "reserve": 100, "p1:reserve": 5}, first=2)
    assert s1.live[mid].players[2].name == "alice" and s1.live[mid].clocks.tc.for_seat(2).reserve == 5
    await s1.close()
    await s1.store.close()
    rec2 = Recorder()
    s2 = await make_service(migrated_sqlite_url, rec2)
    try:
        live = s2.live[mid]
        assert live.clocks.tc.for_seat(2).reserve == 5 and live.clocks.tc.for_seat(1).reserve == 100
        await s2.submit(mid, "b", "A1-B1")  # bob moves; alice's 10 s and her 5 s reserve run out
        ended = await rec2.wait("finished")
        assert ended.result is not None and ended.result.winner_id == "b"
        stored = await s2.record(mid)
        assert stored is not None
        assert "Time odds: alice reserve 5.0s" in log_text(build_log(stored))
    finally:
        await s2.close()
        await s2.store.close()


@pytest.mark.slow  # a `dmhost room` process
def test_terminal_room_takes_odds_by_name(tmp_path: Path) -> None:
    db = str(tmp_path / "odds.db")
    code, events = room(
        [
            "boxes",
            "--player",
            "alice",
            "--player",
            "bob",
            "--events-json",
            "--clock",
            "move=30",
            "reserve=0",
            "alice:move=0.2",
            "--db",
            db,
        ],
        hold=30.0,
        cwd=tmp_path,
    )
    assert code == 0
    assert events[-1]["event"] == "finished" and events[-1]["winner"] == "bob" and events[-1]["reason"] == "time"
    text = subprocess.run([*DMHOST, "log", str(events[0]["match"]), "--db", db], capture_output=True, text=True)
    assert "Time odds: alice move 0.2s" in text.stdout, text.stdout
    bad = subprocess.run(
        [*DMHOST, "room", "boxes", "--player", "alice", "--player", "bob", "--clock", "carol:move=3"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        input="",
    )
    assert bad.returncode == 2 and "neither player" in bad.stderr
