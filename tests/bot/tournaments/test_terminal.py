"""`dmhost tournament create|join|start|status|result|play|leave` on a real SQLite file, in fresh processes."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from tests import dmhost


def _dmhost(db: Path, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    done = dmhost("tournament", *args, "--db", str(db), stdin=stdin or "")
    return done.returncode, done.stdout, done.stderr


def test_a_swiss_run_from_the_terminal(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    code, out, err = _dmhost(
        db,
        "create",
        "Colosseum",
        "--game",
        "boxes",
        "--format",
        "swiss",
        "--rounds",
        "2",
        "--opt",
        "rows=2 cols=2",
        "--prize",
        "a crown",
    )
    assert (code, out.strip()) == (0, "1"), err
    assert _dmhost(db, "join", "1", "alice", "bob", "carol")[0] == 0
    code, _, err = _dmhost(db, "join", "1", "bob")
    assert code == 2 and err.strip() == "dmhost tournament: bob has already joined Colosseum"
    code, out, err = _dmhost(db, "start", "1")
    assert code == 0, err
    assert f"1. alice – bob  (match 1: dmhost room --db {db} --resume 1)" in out and "2. carol: bye (1)" in out
    code, out, err = _dmhost(db, "result", "1", "1", "0-1", "--json")
    assert code == 0, err
    state = json.loads(out)
    assert state["rounds"][0][0] == {"white": 1, "black": 2, "match": 1, "result": "0-1"}
    assert state["tournament"]["round"] == 2, "the adjudicated result ended round 1"
    code, out, err = _dmhost(db, "play", "1", "--json")
    assert code == 0, err
    state = json.loads(out)
    assert state["tournament"]["status"] == "finished" and len(state["rounds"]) == 2
    assert all(g.get("result") for rnd in state["rounds"] for g in rnd if "white" in g)
    code, _, err = _dmhost(db, "leave", "1", "alice")
    assert code == 2 and "is over" in err


def test_bad_terminal_arguments_are_one_line(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    code, _, err = _dmhost(db, "create", "X", "--game", "boxes", "--format", "swiss", "--rounds", "two")
    assert code == 2 and err.strip() == "dmhost tournament create: --rounds takes a whole number, not 'two'"
    code, _, err = _dmhost(db, "create", "X", "--game", "chess", "--format", "swiss")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "chess" in err
    code, _, err = _dmhost(db, "status", "7")
    assert code == 2 and err.strip() == "dmhost tournament: there is no tournament 7"


def test_check_in_from_the_terminal(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    code, out, err = _dmhost(
        db, "create", "Dawn", "--game", "boxes", "--format", "roundrobin", "--opt", "rows=2 cols=2", "--no-show", "5"
    )
    assert (code, out.strip()) == (0, "1"), err
    assert _dmhost(db, "join", "1", "alice", "bob")[0] == 0
    code, out, err = _dmhost(db, "start", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["rounds"][0][0] == {
        "white": 1,
        "black": 2,
        "match": None,
        "result": None,
        "here": [False, False],
    }, "the match waits for both players"
    code, out, err = _dmhost(db, "here", "1", "alice", "--json")
    assert code == 0 and json.loads(out)["rounds"][0][0]["here"] == [True, False], err
    code, _, err = _dmhost(db, "here", "1", "carol")
    assert code == 2 and err.strip() == "dmhost tournament: carol has no game of Dawn waiting for check-in"
    code, out, err = _dmhost(db, "here", "1", "bob", "--json")
    assert code == 0 and json.loads(out)["rounds"][0][0]["match"] == 1, "both here: the match opened"
    code, out, err = _dmhost(db, "play", "1", "--json")
    assert code == 0 and json.loads(out)["tournament"]["status"] == "finished", err
    code, out, err = _dmhost(
        db,
        "create",
        "Later",
        "--game",
        "boxes",
        "--format",
        "swiss",
        "--start",
        "in 2h",
        "--checkin",
        "30",
        "--seeding",
        "rating",
    )
    assert (code, out.strip()) == (0, "2"), err
    assert _dmhost(db, "join", "2", "alice")[0] == 0
    code, _, err = _dmhost(db, "here", "2", "alice")
    assert code == 2 and "the check-in of Later opens at" in err
    code, _, err = _dmhost(db, "create", "X", "--game", "boxes", "--format", "swiss", "--start", "yesterday")
    assert code == 2 and len(err.strip().splitlines()) == 1


def _missed_time_passes(db: Path) -> None:
    """Ten minutes pass for the games of the current round still waiting for their check-in (the no-show window
    is five): their start is moved back in the database, as a clock would have moved on."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(
            "UPDATE tournament_games SET starts_at = datetime(starts_at, '-10 minutes') "
            "WHERE match_id IS NULL AND result IS NULL"
        )


@pytest.mark.slow
def test_lichess_missed_game_rule_from_the_terminal(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    args = ("--game", "boxes", "--format", "swiss", "--rounds", "3", "--opt", "rows=2 cols=2", "--no-show", "5")
    code, _, err = _dmhost(db, "create", "Dusk", *args, "--missed", "sometimes")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--missed" in err and "withdraw" in err
    code, out, err = _dmhost(db, "create", "Dusk", *args, "--missed", "withdraw")
    assert (code, out.strip()) == (0, "1"), err
    assert _dmhost(db, "join", "1", "alice", "bob", "carol", "dave")[0] == 0
    code, out, err = _dmhost(db, "start", "1", "--json")
    assert code == 0, err
    boards = json.loads(out)["rounds"][0]
    assert [{g["white"], g["black"]} for g in boards] == [{1, 3}, {2, 4}], "alice–carol, bob–dave"
    for name in ("alice", "carol", "dave"):  # bob does not come
        assert _dmhost(db, "here", "1", name)[0] == 0
    code, _, err = _dmhost(db, "stay", "1", "bob")
    assert code == 2 and err.strip() == "dmhost tournament: you have missed no game of Dusk: you play on anyway"

    _missed_time_passes(db)
    code, out, err = _dmhost(db, "status", "1")  # the no-show is ruled as the command opens, and said
    assert code == 0, err
    assert (
        "Dusk, round 1 board 2: dave wins by no-show (bob did not check in). bob is withdrawn before the next "
        f"round unless they confirm they play on: `dmhost tournament stay 1 bob --db {db}`." in out
    ), out
    code, out, err = _dmhost(db, "stay", "1", "bob")
    assert (code, out.strip()) == (0, "bob plays on in Dusk after missing their round 1 game."), err
    code, _, err = _dmhost(db, "stay", "1", "bob")
    assert code == 2 and "missed no game of Dusk" in err, "confirmed once"
    code, _, err = _dmhost(db, "stay", "1", "erin")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Dusk" in err

    code, out, err = _dmhost(db, "result", "1", "1", "1-0", "--json")  # round 1 over: bob is paired again
    assert code == 0, err
    state = json.loads(out)
    assert state["tournament"]["round"] == 2 and 2 in {p for g in state["rounds"][1] for p in (g["white"], g["black"])}
    round2 = state["rounds"][1]
    bob_board = next(i for i, g in enumerate(round2, 1) if 2 in (g["white"], g["black"]))
    for g in round2:  # everyone comes but bob
        for seat in ("white", "black"):
            if g[seat] != 2:
                assert _dmhost(db, "here", "1", state["players"][str(g[seat])])[0] == 0
    _missed_time_passes(db)
    code, out, err = _dmhost(db, "status", "1")
    assert code == 0 and "bob did not check in" in out and "dmhost tournament stay 1 bob" in out, err
    other = 3 - bob_board
    code, out, err = _dmhost(db, "result", "1", str(other), "1-0")  # round 2 over, bob never confirmed
    assert code == 0, err
    assert "bob is withdrawn from Dusk for missing their round 2 game without confirming they play on." in out
    code, out, err = _dmhost(db, "status", "1", "--json")
    state = json.loads(out)
    assert state["tournament"]["round"] == 3
    assert all(2 not in (g.get("white"), g.get("black"), g.get("bye")) for g in state["rounds"][2]), "bob is out"
