"""The terminal keeps its promises (issue 48, points 9–12): through the real command line on real SQLite files.
`help` lists only the words that work in the match; no Discord-only words or raw `<t:…>` times; the vacation
said once and bad vacation input refused; the first screen says how to move; the Dots board readable and the
Boxes/Pathing boards with a legend; `tournament play` on Trax never waits out a take-back window, one line per
game."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.bot.adapters.terminal.test_room_cli import DMHOST, room
from tests.bot.adapters.terminal.test_room_terminal import text_room

pytestmark = pytest.mark.slow  # each test starts `dmhost` processes

PLAYERS = ["--player", "alice", "--player", "bob"]


def _words_line(out: str) -> str:
    (line,) = {ln for ln in out.splitlines() if ln.startswith("Words the host answers")}
    return line


def test_help_lists_only_the_words_that_work_in_this_match(tmp_path: Path) -> None:
    code, out = text_room(["boxes", *PLAYERS, "--db", str(tmp_path / "b.db")], "help\nfirst\nquit\n", cwd=tmp_path)
    assert code == 0
    assert _words_line(out) == "Words the host answers in this match: `resign`."  # no ready, first, mulligan
    assert "take back" not in out  # moves on a pipe are final at once: nothing to take back
    assert "(alice, not a move: chat)" in out  # `first` is chat here, and help never offered it
    code, out = text_room(
        ["trax", *PLAYERS, "--db", str(tmp_path / "t.db"), "--rule", "takeback=30"], "help\nquit\n", cwd=tmp_path
    )
    said = _words_line(out)
    assert code == 0 and "`take back`" in said and "`mulligan`" in said and "`ready`" in said  # Trax: grace clock
    assert "`first`" not in said  # nobody has the choice of who starts
    code, out = text_room(
        ["boxes", *PLAYERS, "--db", str(tmp_path / "g.db"), "--rule", "clock=grace", "draw=on"], "?\n", cwd=tmp_path
    )
    assert code == 0 and _words_line(out) == (
        "Words the host answers in this match: `resign`, `ready`, `here`, `offer draw`, `accept draw`."
    )


def test_no_discord_only_words_in_the_terminal(tmp_path: Path) -> None:
    code, out = text_room(
        ["boxes", *PLAYERS, "--db", str(tmp_path / "d.db"), "--rule", "draw=on"],
        "A1-B1\nbob: offer draw\nquit\n",
        cwd=tmp_path,
    )
    assert code == 0 and "bob offers a draw. alice, post `accept draw` before your next move" in out
    assert "press" not in out.lower() and "button" not in out
    code, out = text_room(
        ["trax", *PLAYERS, "--db", str(tmp_path / "t.db"), "--rule", "takeback=1"], "@0+\n", cwd=tmp_path
    )
    assert code == 0 and "It becomes final in 1 s (post `take back` to take it back)." in out
    assert "delete or edit" not in out and "message" not in out


def test_the_vacation_is_said_once_in_plain_time_and_bad_input_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "v.db")
    lines = "alice: vacation 3\nbob: vacation -1\nbob: vacation abc\nbob: vacation\nbob: vacation was fun\n"
    code, out = text_room(
        ["boxes", *PLAYERS, "--db", db, "--clock", "kind=correspondence"], lines + "alice: vacation 0\n", cwd=tmp_path
    )
    assert code == 0
    assert "<t:" not in out
    assert sum("alice is on vacation until" in ln or "alice's vacation runs" in ln for ln in out.splitlines()) == 1
    assert "alice: 3 of this year's 14 vacation days used." in out
    assert "(bob: '-1' is not a number of days: `NAME: vacation N` takes whole days" in out
    assert "(bob: 'abc' is not a number of days" in out
    assert "(bob: say for how many days: `NAME: vacation N`" in out
    assert out.count("(bob, not a move: chat)") == 1  # only `vacation was fun` is chat
    assert sum("alice is back" in ln for ln in out.splitlines()) == 1
    code, events = room(
        ["boxes", *PLAYERS, "--db", str(tmp_path / "j.db"), "--clock", "kind=correspondence", "--events-json"],
        "bob: vacation -1\n",
        cwd=tmp_path,
    )
    refused = [e for e in events if e["event"] == "rejected"]
    assert code == 0 and [(e["player"], e["kind"]) for e in refused] == [("bob", "vacation")]


def test_the_first_screen_says_how_to_move_before_the_clock_runs(tmp_path: Path) -> None:
    code, out = text_room(["boxes", *PLAYERS, "--db", str(tmp_path / "q.db")], "quit\n", cwd=tmp_path)
    lines = out.splitlines()
    started = next(i for i, ln in enumerate(lines) if ln.startswith("Match 1 (Dots-and-Boxes) started"))
    intro = "\n".join(lines[:started])
    assert code == 0 and "Write each move on its own line, as `A1-B1`" in intro
    assert "`bob: A1-B1` speaks as bob" in intro and "`help`" in intro and "`quit`" in intro
    code, out = text_room(["dots", "--player", "alice", "--bot", "random", "--db", str(tmp_path / "r.db")], "quit\n",
                          cwd=tmp_path)  # fmt: skip
    assert code == 0 and out.startswith("Write each move on its own line, as `T15`. A line is alice's move.")
    code, events = room(["boxes", *PLAYERS, "--db", str(tmp_path / "j.db"), "--events-json"], "quit\n", cwd=tmp_path)
    assert code == 0 and events[0]["event"] == "started"  # the JSON lines are as they were


def test_the_dots_board_reads_at_a_glance_and_the_others_carry_a_legend(tmp_path: Path) -> None:
    code, out = text_room(["dots", *PLAYERS, "--db", str(tmp_path / "d.db")], "T15\nquit\n", cwd=tmp_path)
    assert code == 0 and "Illegal" not in out  # the move card's example is legal on the default board
    board = out.split("alice played T15.")[1].splitlines()
    assert board[1].split() == ["M", "N", "O", "P", "Q", "R", "S", "T", "U", "V", "W", "X", "Y", "Z"]
    (row15,) = [ln for ln in board if ln.startswith("15 ")]
    assert row15.split() == ["15", *".......X......", "15"]
    assert "(columns M-Z, rows 10-22 of A-AM, 1-32: the rest is empty)" in board
    code, out = text_room(["boxes", *PLAYERS, "--db", str(tmp_path / "b.db")], "quit\n", cwd=tmp_path)
    assert code == 0 and "o dots, --- and | lines drawn, 1 / 2 a box closed by alice / bob" in out
    code, out = text_room(["pathing", *PLAYERS, "--db", str(tmp_path / "p.db")], "quit\n", cwd=tmp_path)
    assert code == 0 and "Pathing: R red and B blue squares" in out and "-r- | r lines drawn by red" in out


def _tournament(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DMHOST, "tournament", *args, "--db", str(db)], capture_output=True, text=True, timeout=300, cwd=db.parent
    )


def test_tournament_play_on_trax_takes_bot_moves_at_once_and_says_each_game(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert _tournament(db, "create", "Cup", "--game", "trax", "--format", "swiss", "--rounds", "2").returncode == 0
    assert _tournament(db, "join", "1", "ann", "ben", "cy", "di").returncode == 0
    assert _tournament(db, "start", "1").returncode == 0
    played = _tournament(db, "play", "1", "--bot", "easy")
    assert played.returncode == 0, played.stderr
    progress = [ln for ln in played.stdout.splitlines() if ln.startswith("Match ")]
    assert len(progress) == 4 and all(" vs " in ln and " wins" in ln for ln in progress), played.stdout
    assert played.stdout.index(progress[-1]) < played.stdout.index("Standings")  # as the games end, then the table
    for match in range(1, 5):
        log = subprocess.run(
            [*DMHOST, "log", str(match), "--db", str(db), "--json"], capture_output=True, text=True, timeout=60
        )
        kinds = [e["kind"] for e in json.loads(log.stdout)["events"]]
        assert "move" in kinds and "commit" not in kinds  # final at once: no take-back window was waited out
