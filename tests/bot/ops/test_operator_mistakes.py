"""Operator mistakes of issue 27 at the real `dmhost` command line: exit 2, one line naming the setting
(or argument) and its fix, no traceback, and no file left behind. SIGTERM stops a terminal room cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.bot.ops.test_cli_errors import DMHOST, assert_one_line_error, dmhost


def nothing_created(folder: Path, before: set[str]) -> None:
    assert {p.name for p in folder.iterdir()} == before


def test_a_url_that_is_not_a_url(tmp_path: Path) -> None:
    proc = dmhost("log", "1", cwd=tmp_path, env={"DMHOST_DATABASE_URL": "garbage://::"})
    assert_one_line_error(proc, "garbage://::", "DMHOST_DATABASE_URL")
    nothing_created(tmp_path, set())


@pytest.mark.parametrize("action", ["upgrade", "downgrade"])
def test_an_unknown_migration(tmp_path: Path, action: str) -> None:
    db = tmp_path / "x.db"
    proc = dmhost("db", action, "zzzz", "--db", str(db), cwd=tmp_path)
    assert_one_line_error(proc, "no migration 'zzzz'", "0001", "head")
    nothing_created(tmp_path, set())


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"DMHOST_SHARD_IDS": "zz"}, ["DMHOST_SHARD_IDS", "JSON list"]),
        ({"DMHOST_HEARTBEAT_SECONDS": "-1"}, ["DMHOST_HEARTBEAT_SECONDS", "above 0"]),
        ({"DMHOST_ANNOUNCE_BATCH_SECONDS": "-5"}, ["DMHOST_ANNOUNCE_BATCH_SECONDS", "0 or more"]),
        ({"DMHOST_LOG_LEVEL": "BOGUS"}, ["DMHOST_LOG_LEVEL", "INFO"]),
        ({"DMHOST_SHARD_COUNT": "0"}, ["DMHOST_SHARD_COUNT", "at least 1"]),
        ({"DMHOST_SHARD_IDS": "[5]", "DMHOST_SHARD_COUNT": "4"}, ["DMHOST_SHARD_IDS", "not a shard of 4"]),
        ({"DMHOST_SHARD_IDS": "[1]"}, ["DMHOST_SHARD_IDS", "DMHOST_SHARD_COUNT"]),
        ({"DMHOST_LEASE_SECONDS": "0"}, ["DMHOST_LEASE_SECONDS", "above 0"]),
    ],
    ids=["ids-zz", "heartbeat-neg", "batch-neg", "log-level", "count-0", "id-out-of-range", "ids-no-count", "lease"],
)
def test_run_refuses_a_bad_setting_before_anything(tmp_path: Path, env: dict[str, str], words: list[str]) -> None:
    proc = dmhost("run", cwd=tmp_path, env={"DMHOST_TOKEN": "not-a-token", **env})
    assert_one_line_error(proc, *words, "set it to")
    nothing_created(tmp_path, set())  # the default dmhost.db was not created


@pytest.mark.parametrize(
    "command", [["log", "1"], ["db", "upgrade"], ["room", "boxes", "--player", "a", "--player", "b"]]
)
def test_db_naming_a_folder(tmp_path: Path, command: list[str]) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    proc = dmhost(*command, "--db", str(folder), cwd=tmp_path)
    assert_one_line_error(proc, str(folder), "is a folder")
    assert list(folder.iterdir()) == []
    nothing_created(tmp_path, {"data"})


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["nogame", "--player", "a", "--player", "b"], ["unknown game"]),
        (["boxes", "--player", "a", "--player", "b", "--opt", "zz=1"], ["zz"]),
        (["boxes", "--player", "a", "--player", "a"], ["two different players"]),
        (["boxes", "--player", "a", "--player", "b", "--rule", "zz=1"], ["no rule 'zz'"]),
    ],
    ids=["game", "opt", "same-player", "rule"],
)
def test_usage_errors_are_found_before_any_database(tmp_path: Path, args: list[str], words: list[str]) -> None:
    proc = dmhost("room", *args, "--db", str(tmp_path / "u.db"), cwd=tmp_path)
    assert_one_line_error(proc, *words)
    nothing_created(tmp_path, set())


def test_sigterm_stops_a_room_cleanly_and_the_match_stays_resumable(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    base = {k: v for k, v in os.environ.items() if not k.startswith("DMHOST_")}
    proc = subprocess.Popen(
        [*DMHOST, "room", "boxes", "--player", "alice", "--player", "bob", "--db", str(db), "--events-json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=base,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("alice: A1-B1\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if '"event": "move"' in line:
            break
    else:
        pytest.fail("the move was not accepted")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in out + err
    assert '"eof"' in out
    resumed = subprocess.run(
        [*DMHOST, "room", "--db", str(db), "--resume", "1", "--events-json"],
        input="",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=base,
        timeout=60,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert '"event": "resumed"' in resumed.stdout
