"""Operator mistakes at the `dmhost` command line: one clear line, exit 2, no traceback, nothing created.

Real subprocesses against a real SQLite file and the real PostgreSQL server of the test machine.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import http.server
import logging
import os
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlalchemy.engine import make_url

from bot.ops import cli
from bot.store.db import Heartbeat, sqlite_url_for
from bot.store.matches import MatchStore
from tests import DMHOST
from tests import dmhost as run_dmhost


def dmhost(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real CLI with a clean DMHOST_* environment (and no .env: it runs in `cwd`)."""
    return run_dmhost(*args, cwd=cwd, env=env, clean=True, timeout=120)


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit 2, no traceback anywhere, and one `dmhost:` line that contains every word given."""
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert "Traceback" not in out, out
    lines = [line for line in proc.stderr.splitlines() if line.startswith("dmhost:")]
    assert len(lines) == 1, out
    for word in words:
        assert word.lower() in lines[0].lower(), lines[0]
    return lines[0]


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- SQLite ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["log", "1"],
        ["db", "current"],
        ["db", "upgrade"],
        ["room", "boxes", "--player", "alice", "--player", "bob"],
        ["room", "--resume", "1"],
    ],
)
def test_db_in_a_missing_folder(tmp_path: Path, command: list[str]) -> None:
    missing = tmp_path / "no-such-folder" / "dmhost.db"
    proc = dmhost(*command, "--db", str(missing), cwd=tmp_path)
    assert_one_line_error(proc, str(missing.parent), "does not exist")
    assert not missing.parent.exists()


@pytest.mark.parametrize("command", [["log", "1"], ["db", "current"], ["room", "--resume", "1"], ["db", "downgrade"]])
def test_reading_commands_never_create_a_database(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "typo.db"
    proc = dmhost(*command, "--db", str(db), cwd=tmp_path)
    assert_one_line_error(proc, str(db), "no database")
    assert list(tmp_path.iterdir()) == []


def test_log_names_the_database_it_looked_in(tmp_path: Path) -> None:
    db = tmp_path / "dmhost.db"
    assert dmhost("db", "upgrade", "--db", str(db), cwd=tmp_path).returncode == 0
    proc = dmhost("log", "7", "--db", str(db), cwd=tmp_path)
    assert_one_line_error(proc, "no match 7", str(db))
    resume = dmhost("room", "--resume", "7", "--db", str(db), cwd=tmp_path)
    assert_one_line_error(resume, "no match 7", str(db))
    current = dmhost("db", "current", "--db", str(db), cwd=tmp_path)
    assert current.returncode == 0
    assert str(db) in current.stderr


def test_an_output_file_in_a_missing_folder_is_named(tmp_path: Path) -> None:
    db = tmp_path / "dmhost.db"
    base = {k: v for k, v in os.environ.items() if not k.startswith("DMHOST_")}
    room = subprocess.run(
        [*DMHOST, "room", "boxes", "--player", "alice", "--player", "bob", "--db", str(db)],
        input="alice: A1-B1\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=base,
        timeout=120,
    )
    assert room.returncode == 0, room.stderr
    gif = tmp_path / "no-such-folder" / "replay.gif"
    proc = dmhost("log", "1", "--db", str(db), "--gif", str(gif), cwd=tmp_path)
    line = assert_one_line_error(proc, str(gif), "No such file")
    assert "database" not in line


def test_downgrade_to_base_needs_yes(tmp_path: Path) -> None:
    db = tmp_path / "dmhost.db"
    head = dmhost("db", "upgrade", "--db", str(db), cwd=tmp_path)
    assert head.returncode == 0, head.stderr
    revision = head.stdout.strip()
    assert revision not in ("", "empty")
    for args in (["db", "downgrade"], ["db", "downgrade", "base"]):
        proc = dmhost(*args, "--db", str(db), cwd=tmp_path)
        assert_one_line_error(proc, "--yes", "every table")
        assert dmhost("db", "current", "--db", str(db), cwd=tmp_path).stdout.strip() == revision
    done = dmhost("db", "downgrade", "--yes", "--db", str(db), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "empty"


def test_unsupported_url(tmp_path: Path) -> None:
    proc = dmhost("db", "current", "--db", "mysql://someone@localhost/dmhost", cwd=tmp_path)
    assert_one_line_error(proc, "unsupported database URL", "postgresql+asyncpg")


# -- PostgreSQL ------------------------------------------------------------------------------------


@pytest.mark.pg
@pytest.mark.parametrize("command", [["db", "current"], ["db", "upgrade"], ["log", "1"]])
def test_postgres_database_that_does_not_exist(tmp_path: Path, pg_server: str, command: list[str]) -> None:
    url = make_url(pg_server).set(database="dmhost_no_such_db").render_as_string(hide_password=False)
    proc = dmhost(*command, "--db", url, cwd=tmp_path)
    assert_one_line_error(proc, "dmhost_no_such_db", "does not exist", "createdb")


@pytest.mark.pg
def test_postgres_server_that_is_not_there(tmp_path: Path, pg_server: str) -> None:
    port = unused_port()
    url = make_url(pg_server).set(host="127.0.0.1", port=port).difference_update_query(["host"])
    url = url.render_as_string(hide_password=False)
    proc = dmhost("db", "upgrade", "--db", url, cwd=tmp_path)
    assert_one_line_error(proc, f"127.0.0.1:{port}", "cannot be reached")


@pytest.mark.pg
def test_run_checks_the_database_before_discord(tmp_path: Path, pg_server: str) -> None:
    url = make_url(pg_server).set(database="dmhost_no_such_db").render_as_string(hide_password=False)
    proc = dmhost("run", cwd=tmp_path, env={"DMHOST_TOKEN": "not-a-token", "DMHOST_DATABASE_URL": url})
    assert_one_line_error(proc, "dmhost_no_such_db", "does not exist")


# -- Discord token and network ----------------------------------------------------------------------


def test_run_with_a_database_in_a_missing_folder(tmp_path: Path) -> None:
    missing = tmp_path / "gone" / "dmhost.db"
    proc = dmhost(
        "run", cwd=tmp_path, env={"DMHOST_TOKEN": "not-a-token", "DMHOST_DATABASE_URL": sqlite_url_for(missing)}
    )
    assert_one_line_error(proc, str(missing.parent), "does not exist")
    assert not missing.parent.exists()


def test_run_with_a_bad_token_and_no_network(tmp_path: Path) -> None:
    """Here there is no network: the line says Discord cannot be reached (with a network, Discord refuses
    the token: both are one line naming the problem)."""
    db = tmp_path / "dmhost.db"
    proc = dmhost(
        "run", cwd=tmp_path, env={"DMHOST_TOKEN": "obviously.bad.token", "DMHOST_DATABASE_URL": sqlite_url_for(db)}
    )
    line = assert_one_line_error(proc)
    assert "cannot reach Discord" in line or "refused the token" in line, line


class _Refuses(http.server.BaseHTTPRequestHandler):
    """Discord's answer to a wrong or revoked token: 401 on every route."""

    def do_GET(self) -> None:
        body = b'{"message": "401: Unauthorized", "code": 0}'
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def refusing_discord(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A local HTTP server in Discord's place that refuses every token (discord.py's API base points at it)."""
    import discord.http

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refuses)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{server.server_address[1]}/api/v10")
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def _run_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    """`dmhost run` in this process (so discord.py's API base can point at a local server)."""
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))  # `run` installs discord.py's log handler
    monkeypatch.setattr(root, "level", root.level)
    monkeypatch.chdir(tmp_path)
    for key in [k for k in os.environ if k.startswith("DMHOST_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("DMHOST_TOKEN", "revoked.token.value")
    monkeypatch.setenv("DMHOST_DATABASE_URL", sqlite_url_for(tmp_path / "dmhost.db"))
    assert cli.main(["run"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("dmhost:")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.usefixtures("refusing_discord")
def test_run_with_a_revoked_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _run_in_process(tmp_path, monkeypatch, capsys)
    assert "refused the token" in line and "DMHOST_TOKEN" in line


def test_run_when_discord_cannot_be_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import discord.http

    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{unused_port()}/api/v10")
    line = _run_in_process(tmp_path, monkeypatch, capsys)
    assert "cannot reach Discord" in line


# -- health ---------------------------------------------------------------------------------------


def test_health_follows_the_heartbeat(tmp_path: Path) -> None:
    db = tmp_path / "dmhost.db"
    missing = dmhost("health", "--db", str(db), cwd=tmp_path)
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert not db.exists()

    async def beat(age_s: float) -> None:
        store = MatchStore(sqlite_url_for(db))
        await store.open()
        await store.heartbeat("host-a", 1.0)
        async with store.engine.begin() as conn:
            at = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=age_s)
            await conn.execute(update(Heartbeat).values(at=at))
        await store.close()

    assert dmhost("db", "upgrade", "--db", str(db), cwd=tmp_path).returncode == 0
    none_yet = dmhost("health", "--db", str(db), cwd=tmp_path)
    assert none_yet.returncode == 1 and "Traceback" not in none_yet.stderr
    asyncio.run(beat(2))
    assert dmhost("health", "--db", str(db), "--max-age", "30", cwd=tmp_path).returncode == 0
    asyncio.run(beat(120))
    stale = dmhost("health", "--db", str(db), "--max-age", "30", cwd=tmp_path)
    assert stale.returncode == 1
    age = re.search(r"heartbeat is (\d+) s old", stale.stderr)
    assert age is not None and 120 <= int(age.group(1)) < 240, stale.stderr
