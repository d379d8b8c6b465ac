"""`dmhost room` and `dmhost log` as users run them: real subprocesses on a real SQLite file."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from tests import DMHOST


def room(args: list[str], stdin: str | None = None, *, hold: float = 0.0, cwd: Path) -> tuple[int, list[dict]]:
    """Run the room; with `hold`, keep stdin open until the room exits by itself or `hold` seconds pass
    (generous: a loaded machine may take seconds just to start the process)."""
    proc = subprocess.Popen(
        [*DMHOST, "room", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
    assert proc.stdin is not None
    if stdin:
        proc.stdin.write(stdin)
        proc.stdin.flush()
    deadline = time.monotonic() + hold
    while hold and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    out, _err = proc.communicate(timeout=60)
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return proc.returncode, events


def test_contract_example_prints_json_events_and_exits_0(tmp_path: Path) -> None:
    code, events = room(
        ["boxes", "--player", "alice", "--player", "bob", "--events-json"],
        "alice: A1-B1\nbob: A1-A2\n",
        cwd=tmp_path,
    )
    assert code == 0
    assert events[0]["event"] == "started" and isinstance(events[0]["match"], int)
    moves = [e["move"] for e in events if e["event"] == "move"]
    assert moves == ["A1-B1", "A1-A2"]
    assert (tmp_path / "dmhost.db").exists()


def test_no_input_until_the_deadline_loses_on_time(tmp_path: Path) -> None:
    code, events = room(
        [
            "boxes",
            "--player",
            "alice",
            "--player",
            "bob",
            "--events-json",
            "--clock",
            "move=0.2",
            "reserve=0.3",
            "--db",
            str(tmp_path / "x.db"),
        ],
        hold=30.0,
        cwd=tmp_path,
    )
    assert code == 0
    # docs/cli.md names a `timeout` event: it says who ran out, just before the contract's last line.
    assert events[-2] == {"event": "timeout", "match": events[0]["match"], "seat": 1, "player": "alice"}
    assert events[-1] == {
        "event": "finished",
        "match": events[0]["match"],
        "winner": "bob",
        "reason": "time",
        "text": events[-1]["text"],
    }


def test_resume_continues_and_log_shows_everything(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    code, events = room(
        [
            "boxes",
            "--player",
            "alice",
            "--player",
            "bob",
            "--events-json",
            "--db",
            db,
            "--opt",
            "rows=1",
            "cols=1",
        ],
        "A1-B1\nbob: A1-C1\ncarol: hi\nbob: A2-B2\n",
        cwd=tmp_path,
    )
    assert code == 0
    mid = events[0]["match"]
    assert [e["event"] for e in events if e["event"] in ("illegal", "ignored")] == ["illegal", "ignored"]
    stranger = next(e for e in events if e["event"] == "ignored")
    assert (stranger["player"], stranger["reason"]) == ("carol", "stranger")  # a code, as every ignored line's
    code, events = room(["--db", db, "--resume", str(mid), "--events-json"], "A1-A2\nB1-B2\n", cwd=tmp_path)
    assert code == 0
    assert events[0]["event"] == "resumed" and events[0]["match"] == mid
    assert events[-1]["event"] == "finished" and events[-1]["winner"] == "bob" and events[-1]["reason"] == "score"
    log = subprocess.run([*DMHOST, "log", str(mid), "--db", db, "--json"], capture_output=True, text=True)
    assert log.returncode == 0
    data = json.loads(log.stdout)
    assert [m["move"] for m in data["moves"]] == ["A1-B1", "A2-B2", "A1-A2", "B1-B2"]
    assert [e["kind"] for e in data["events"]].count("illegal") == 1
    assert data["result"]["winner_name"] == "bob"
    text = subprocess.run([*DMHOST, "log", str(mid), "--db", db], capture_output=True, text=True)
    assert text.returncode == 0 and "Result: bob wins on score, 1–0" in text.stdout
    again = subprocess.run([*DMHOST, "room", "--db", db, "--resume", str(mid)], capture_output=True, text=True)
    assert again.returncode == 2 and "finished" in again.stderr


def test_bad_input_lines_do_not_crash_the_room(tmp_path: Path) -> None:
    garbage = "\n".join(["", "x" * 10_000, "\x00\x01\x7f binary", "bob: A1-B1", "nobody: A1-B1", ":::", "alice: A1-B1"])
    code, events = room(
        ["boxes", "--player", "alice", "--player", "bob", "--events-json", "--db", str(tmp_path / "g.db")],
        garbage + "\n",
        cwd=tmp_path,
    )
    assert code == 0
    kinds = [e["event"] for e in events]
    assert "rejected" in kinds and "ignored" in kinds
    assert [e["move"] for e in events if e["event"] == "move"] == ["A1-B1"]


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    for args in (
        ["room", "boxes", "--player", "a"],
        ["log", "999", "--db", str(tmp_path / "n.db")],
        ["room", "chess", "--player", "a", "--player", "b"],
        ["nonsense"],
    ):
        proc = subprocess.run([*DMHOST, *args], capture_output=True, text=True, cwd=tmp_path, input="")
        assert proc.returncode == 2, (args, proc.stderr)


def test_run_without_token_explains(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*DMHOST, "run"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert proc.returncode == 2
    assert "DMHOST_TOKEN" in proc.stderr and "dmhost room" in proc.stderr


def test_room_writes_a_picture_per_move(tmp_path: Path) -> None:
    out = tmp_path / "pics"
    code, _events = room(
        [
            "pathing",
            "--player",
            "alice",
            "--player",
            "bob",
            "--events-json",
            "--db",
            str(tmp_path / "p.db"),
            "--png",
            str(out),
        ],
        "alice: swap A1 and B1\nbob: A2 B2\n",
        cwd=tmp_path,
    )
    assert code == 0
    files = sorted(out.glob("*.png"))
    # The start position and one picture after each of the two moves.
    assert len(files) == 3
    from PIL import Image

    with Image.open(files[-1]) as im:
        assert im.format == "PNG" and im.size[0] <= 1000


RULES = ["--rule", "takeback=5", "mulligan=1", "--rule", "clock=grace"]


def test_house_rules_per_match_and_in_the_log(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    refused = subprocess.run(
        [*DMHOST, "room", "boxes", "--player", "a", "--player", "b", "--rule", "threesame=1", "--db", db],
        capture_output=True,
        text=True,
        input="",
    )
    assert refused.returncode == 2 and "it accepts takeback, mulligan, clock" in refused.stderr
    code, events = room(
        ["boxes", "--player", "a", "--player", "b", "--events-json", "--db", db, *RULES],
        "a: A1-B1\na: take back\n",
        cwd=tmp_path,
    )
    assert code == 0
    assert [e["event"] for e in events if e["event"] in ("provisional", "takeback")] == ["provisional", "takeback"]
    mid = str(events[0]["match"])
    text = subprocess.run([*DMHOST, "log", mid, "--db", db], capture_output=True, text=True).stdout
    assert "House rules: a move can be taken back for 5 s, 1 mulligan each\n" in text
    assert "Clock: 1:00 a move, one grace of" in text


def test_undecodable_input_is_a_hint_and_is_stored_safely(tmp_path: Path) -> None:
    db = str(tmp_path / "u.db")
    proc = subprocess.run(
        [*DMHOST, "room", "boxes", "--player", "alice", "--player", "bob", "--events-json", "--db", db],
        input=b"alice: A1\xff\nalice: A1-B1\n",
        capture_output=True,
    )
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    events = [json.loads(line) for line in proc.stdout.decode().splitlines() if line.startswith("{")]
    assert [e["event"] for e in events if e["event"] in ("rejected", "move")] == ["rejected", "move"]
    text = subprocess.run([*DMHOST, "log", str(events[0]["match"]), "--db", db], capture_output=True, text=True)
    assert "'A1\ufffd'" in text.stdout and text.returncode == 0


def test_piped_lines_against_the_bot_are_the_persons_and_wait_for_its_answer(tmp_path: Path) -> None:
    # With --bot one person types: a line without NAME: is theirs even while the bot is to move, and each
    # line waits for the bot's answer (as a person at the keyboard would), so its reply precedes `eof`.
    args = ["room", "dots", "--player", "alice", "--bot", "hard", "--opt", "width=8", "height=8", "--events-json"]
    proc = subprocess.run(
        [*DMHOST, *args, "--db", str(tmp_path / "bot.db")],
        input="A1\nZ9\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env={**os.environ, "DMHOST_BOT_BUDGET": "0.5"},
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    played = [(e["seat"], e["move"]) for e in events if e["event"] == "move"]
    assert played[0] == (1, "A1") and [seat for seat, _ in played] == [1, 2]
    (illegal,) = [e for e in events if e["event"] == "illegal"]
    assert illegal["seat"] == 1 and "Z9" in illegal["reason"]
    assert not [e for e in events if e["event"] == "rejected"] and events[-1]["event"] == "eof"
