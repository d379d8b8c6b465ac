"""`dmhost log` says when a match's log and its snapshot disagree (#38 item 3), and says nothing when they agree."""

from __future__ import annotations

import json
import sqlite3
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
    assert cli.main(["log", "1", "--db", db]) == 0
    err = capsys.readouterr().err
    assert "dmhost: warning: match 1's log and snapshot disagree: its log replays to ply 0" in err
