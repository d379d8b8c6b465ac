"""`dmhost log` says when a match's log and its snapshot disagree (#38 item 3): one line on stderr, the log
printed all the same, exit 1 (a failed check, as `dmhost doctor`); nothing said and exit 0 when they agree."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.ops import cli


def test_log_warns_when_the_snapshot_is_not_the_replayed_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "t.db")
    assert cli.main(["tournament", "create", "c", "--game", "boxes", "--opt", "rows=1", "cols=1",
                     "--format", "swiss", "--rounds", "1", "--db", db]) == 0  # fmt: skip
    assert cli.main(["tournament", "join", "1", "ann", "ben", "--db", db]) == 0
    assert cli.main(["tournament", "start", "1", "--db", db]) == 0
    capsys.readouterr()
    assert cli.main(["log", "1", "--db", db]) == 0
    assert "disagree" not in capsys.readouterr().err
    with sqlite3.connect(db) as con:
        (raw,) = con.execute("SELECT snapshot FROM matches WHERE id = 1").fetchone()
        snap = json.loads(raw)
        snap["ply"] = 3  # as if a move the log does not hold had been stored by another process
        con.execute("UPDATE matches SET snapshot = ? WHERE id = 1", (json.dumps(snap),))
    assert cli.main(["log", "1", "--db", db]) == 1
    said = capsys.readouterr()
    disagree = "its log replays to ply 0 but its snapshot is at ply 3"
    assert said.err == f"dmhost log: match 1's log and snapshot disagree: {disagree}\n"
    assert "Match 1" in said.out or "match 1" in said.out.lower()  # the log itself is printed all the same


@pytest.mark.slow  # `dmhost` processes
def test_a_tampered_position_is_flagged_by_the_real_command(tmp_path: Path) -> None:
    """The snapshot's position changed behind the log's back (same ply): the command line flags it, exit 1."""
    db = str(tmp_path / "t.db")
    assert cli.main(["tournament", "create", "c", "--game", "boxes", "--opt", "rows=1", "cols=1",
                     "--format", "swiss", "--rounds", "1", "--db", db]) == 0  # fmt: skip
    assert cli.main(["tournament", "join", "1", "ann", "ben", "--db", db]) == 0
    assert cli.main(["tournament", "start", "1", "--db", db]) == 0
    assert cli.main(["tournament", "play", "1", "--db", db]) == 0
    with sqlite3.connect(db) as con:
        (raw,) = con.execute("SELECT snapshot FROM matches WHERE id = 1").fetchone()
        snap = json.loads(raw)
        snap["state"] = json.loads(json.dumps(snap["state"]).replace("1", "2", 1))
        con.execute("UPDATE matches SET snapshot = ? WHERE id = 1", (json.dumps(snap),))
    ran = subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", "log", "1", "--db", db, "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 1, ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert line.startswith("dmhost log: match 1's log and snapshot disagree: "), line
    assert json.loads(ran.stdout)["match"] == 1
