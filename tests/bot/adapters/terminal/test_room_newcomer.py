"""The terminal as a newcomer meets it (issue 37, items 9–14 and 16): real `dmhost` subprocesses on real
SQLite files, as `tests/bot/adapters/terminal/test_room_cli.py` runs them."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
from pathlib import Path

from tests import dmhost as run_dmhost
from tests.bot.adapters.terminal.test_room_cli import DMHOST, room
from tests.bot.adapters.terminal.test_room_terminal import _until, text_room

PLAYERS = ["--player", "alice", "--player", "bob"]


def dmhost(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return run_dmhost(*args, cwd=cwd, stdin=stdin, timeout=90)


def test_help_and_question_mark_print_the_card_and_quit_leaves_with_the_resume_line(tmp_path: Path) -> None:
    db = str(tmp_path / "h.db")
    code, out = text_room(["boxes", *PLAYERS, "--db", db], "help\nbob: ?\nA1-B1\nquit\nA2-B2\n", cwd=tmp_path)
    assert code == 0
    assert out.count("How to write moves: Dots-and-Boxes") == 2  # `help` and `?`, never "not a move: chat"
    assert "`A1-B1`" in out and "`resign`" in out and "Leave with `quit`, `exit` or Ctrl-C" in out
    assert "not a move" not in out
    (left,) = [line for line in out.splitlines() if line.startswith("Left the room.")]
    assert shlex.split(left.split("Resume with: ", 1)[1]) == ["dmhost", "room", "--db", db, "--resume", "1"]
    assert "A2-B2" not in out  # nothing after `quit` is read
    code, events = room(["trax", *PLAYERS, "--db", db, "--events-json"], "alice: exit\n", cwd=tmp_path)
    assert code == 0 and events[-1]["event"] == "left" and events[-1]["by"] == "quit"


def test_ctrl_c_leaves_with_the_resume_line_and_exit_0(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    proc = subprocess.Popen(
        [*DMHOST, "room", "boxes", *PLAYERS, "--db", db, "--events-json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    match = _until(proc, "started")[0]["match"]
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)  # stdin stays open: Ctrl-C alone ends the room
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    last = json.loads(out.splitlines()[-1]) if out.strip() else {}
    assert last == {"event": "left", "match": match, "by": "interrupt", "text": last["text"]}
    assert "Traceback" not in err
    code, events = room(["--db", db, "--resume", str(match), "--events-json"], "", cwd=tmp_path)
    assert code == 0 and events[0]["event"] == "resumed"


def test_take_back_on_a_pipe_is_a_take_back_and_unnamed_it_is_the_movers(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    code, events = room(["boxes", *PLAYERS, "--db", db, "--events-json"], "A1-B1\nalice: take back\n", cwd=tmp_path)
    assert code == 0
    (refused,) = [e for e in events if e["event"] == "rejected"]
    assert refused["player"] == "alice" and refused["reason"] == "Moves are final at once in this match."
    code, events = room(
        ["trax", *PLAYERS, "--db", db, "--events-json", "--rule", "takeback=30"], "@0+\ntake back\n", cwd=tmp_path
    )
    assert code == 0
    taken = [e for e in events if e["event"] == "takeback"]
    assert [(e["seat"], e["move"]) for e in taken] == [(1, "@0+")]  # alice's own move, not bob's refusal


def test_png_naming_a_file_is_one_usage_line_before_anything_starts(tmp_path: Path) -> None:
    (tmp_path / "pic.png").write_bytes(b"")
    proc = dmhost(["room", "boxes", *PLAYERS, "--db", str(tmp_path / "p.db"), "--png", "pic.png"], tmp_path, "A1-B1\n")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "--png" in proc.stderr and "is a file" in proc.stderr
    assert not (tmp_path / "p.db").exists()


def test_player_names_are_checked_everywhere_a_name_is_taken(tmp_path: Path) -> None:
    db = str(tmp_path / "n.db")
    bad = [["", "bob"], ["  ", "bob"], ["a:b", "bob"], ["Alice", "alice"], ["al\nice", "bob"]]
    for a, b in bad:
        for args in (["room", "boxes"], ["schedule", "add", "boxes", "--at", "in 2h"]):
            proc = dmhost([*args, "--player", a, "--player", b, "--db", db], tmp_path)
            assert proc.returncode == 2 and proc.stderr.count("\n") == 1, (args, a, proc.stderr)
            assert "name" in proc.stderr
    assert (
        dmhost(["tournament", "create", "Cup", "--game", "boxes", "--format", "swiss", "--db", db], tmp_path).returncode
        == 0
    )
    for names in (["Alice", "alice"], [""], ["x:y"]):
        proc = dmhost(["tournament", "join", "1", *names, "--db", db], tmp_path)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "name" in proc.stderr
    assert dmhost(["tournament", "join", "1", "alice", "--db", db], tmp_path).returncode == 0
    proc = dmhost(["tournament", "join", "1", "ALICE", "--db", db], tmp_path)
    assert proc.returncode == 2 and "same name" in proc.stderr


def test_tournament_commands_say_what_they_did_and_print_resume_lines_with_the_database(tmp_path: Path) -> None:
    folder = tmp_path / "my cups"
    folder.mkdir()
    db = str(folder / "t.db")
    created = dmhost(
        ["tournament", "create", "Cup", "--game", "boxes", "--format", "swiss", "--json", "--db", db], tmp_path
    )
    assert created.returncode == 0 and json.loads(created.stdout)["tournament"]["status"] == "signup"
    assert dmhost(["tournament", "join", "1", "alice", "bob", "carol", "--db", db], tmp_path).returncode == 0
    started = dmhost(["tournament", "start", "1", "--db", db], tmp_path)
    assert "Cup has started with 3 players." in started.stdout
    status = dmhost(["tournament", "status", "1", "--db", db], tmp_path)
    (line,) = [x for x in status.stdout.splitlines() if "--resume" in x]
    command = shlex.split(line.split(": ", 1)[1].rstrip(")"))
    assert command == ["dmhost", "room", "--db", db, "--resume", "1"]
    paused = dmhost(["tournament", "pause", "1", "--db", db], tmp_path)
    assert paused.returncode == 0 and paused.stdout.startswith("Cup is paused")


def test_tournament_here_says_who_is_in(tmp_path: Path) -> None:
    db = str(tmp_path / "h.db")
    create = ["tournament", "create", "Cup", "--game", "boxes", "--format", "swiss", "--start", "in 30m"]
    assert dmhost([*create, "--checkin", "60", "--db", db], tmp_path).returncode == 0
    assert dmhost(["tournament", "join", "1", "alice", "bob", "--db", db], tmp_path).returncode == 0
    here = dmhost(["tournament", "here", "1", "alice", "--db", db], tmp_path)
    assert here.returncode == 0, here.stderr
    assert "alice is checked in for Cup. Here (1): alice; not yet: bob." in here.stdout


def test_schedule_add_takes_checkin_and_no_show_and_the_room_never_names_a_past_checkin(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    add = ["schedule", "add", "boxes", *PLAYERS, "--at", "in 20m", "--db", db]
    assert dmhost([*add, "--checkin", "abc"], tmp_path).returncode == 2
    assert dmhost([*add, "--no-show", "0"], tmp_path).returncode == 2
    added = dmhost([*add, "--checkin", "30", "--no-show", "2"], tmp_path)
    assert added.returncode == 0, added.stderr
    code, out = text_room(["--scheduled", "1", "--db", db], "quit\n", cwd=tmp_path)
    assert code == 0
    first = out.splitlines()[0]
    assert "The check-in is open" in first and "Check-in opens" not in first  # 30 min before a start in 20
    assert "Left the room. Resume with: dmhost room --db" in out and "--scheduled 1" in out


def test_listings_for_people_and_json_for_scripts(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")
    assert (
        dmhost(
            ["schedule", "add", "boxes", *PLAYERS, "--at", "in 2h", "--prize", "a pen", "--db", db], tmp_path
        ).returncode
        == 0
    )
    table = dmhost(["schedule", "list", "--db", db, "--table"], tmp_path).stdout.splitlines()
    assert table[0].split() == ["ID", "When", "(UTC)", "Game", "Players", "Status", "Match", "Prize"]
    assert table[1].split()[0] == "1" and "alice vs bob" in table[1] and "a pen" in table[1]
    for flags in (["--json"], []):  # on a pipe, without --table: the contract's JSON
        (row,) = json.loads(dmhost(["schedule", "list", "--db", db, *flags], tmp_path).stdout)
        assert row["players"] == ["alice", "bob"] and row["status"] == "scheduled"
    sim = ["tournament", "simulate", "--format", "swiss", "--players", "4", "--seed", "3"]
    people = dmhost(sim, tmp_path)
    assert people.returncode == 0 and people.stdout.startswith("Round 1: ") and "Standings" in people.stdout
    data = json.loads(dmhost([*sim, "--json"], tmp_path).stdout)
    assert len(data["rounds"]) == 2 and len(data["standings"]) == 4
    helped = dmhost(["room", "--help"], tmp_path).stdout
    assert "dmhost.db" in " ".join(helped.split())
