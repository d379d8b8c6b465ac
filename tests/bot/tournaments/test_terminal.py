"""`dmhost tournament create|join|start|status|result|play|leave` on a real SQLite file, in fresh processes."""

from __future__ import annotations

import json
from pathlib import Path

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
