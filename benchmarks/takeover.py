"""Takeover time: from the owner's death (SIGKILL) or clean stop (SIGTERM) to the first move the standby
accepts — real `python -m bot.shardhost` processes on one database.

`python -m benchmarks.takeover [--rounds N] [--lease S] [--pg URL]`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KILL_TARGET_S = 15.0
TERM_TARGET_S = 2.0


class _Host:
    def __init__(self, url: str, lease: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.shardhost", "--db", url, "--heartbeat", "0.5", "--lease", str(lease)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.events.put(json.loads(line))

    def wait(self, *kinds: str, timeout: float = 60) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            ev = self.events.get(timeout=max(0.01, end - time.monotonic()))
            if ev["event"] in kinds:
                return ev

    def send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def one_takeover(url: str, lease: float, how: signal.Signals) -> float:
    """Seconds from the owner's end to the standby accepting a move of the owner's live match."""
    owner = _Host(url, lease)
    standby: _Host | None = None
    try:
        owner.wait("ready")
        players = [["1", "alice"], ["2", "bob"]]
        owner.send({"create": {"game": "boxes", "players": players, "clock": {"move": 600, "reserve": 0}}})
        mid = owner.wait("created")["match"]
        owner.send({"submit": {"match": mid, "player": "1", "text": "A1-B1"}})
        assert owner.wait("submitted")["status"] == "accepted"
        standby = _Host(url, lease)
        standby.wait("standby")
        t0 = time.monotonic()
        os.kill(owner.proc.pid, how)
        while True:  # bob keeps posting until the standby (now the host) takes his move
            standby.send({"submit": {"match": mid, "player": "2", "text": "A1-A2"}})
            ev = standby.wait("submitted", "error")
            if ev["event"] == "submitted" and ev["status"] == "accepted":
                return time.monotonic() - t0
            time.sleep(0.05)
    finally:
        owner.stop()
        if standby is not None:
            standby.stop()


@dataclass
class Figures:
    """Median and worst takeover seconds."""

    median: float
    worst: float
    rounds: int


def measure(url: str | None, rounds: int, lease: float, how: signal.Signals) -> Figures:
    """`rounds` takeovers (a fresh SQLite file each when `url` is None)."""
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(rounds):
            if url is None:
                times.append(one_takeover(f"sqlite+aiosqlite:///{Path(tmp) / f'takeover-{i}.db'}", lease, how))
                continue
            schema = f"takeover_{uuid.uuid4().hex[:10]}"
            asyncio.run(_pg(url, f'CREATE SCHEMA "{schema}"'))
            try:
                times.append(one_takeover(f"{url}{'&' if '?' in url else '?'}schema={schema}", lease, how))
            finally:
                asyncio.run(_pg(url, f'DROP SCHEMA "{schema}" CASCADE'))
    return Figures(statistics.median(times), max(times), rounds)


async def _pg(url: str, sql: str) -> None:
    """One statement on the PostgreSQL server of `url` (a schema of its own for each round)."""
    from sqlalchemy import text

    from bot.store.db import make_engine

    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text(sql))
    finally:
        await engine.dispose()


def main(argv: list[str] | None = None) -> int:
    """Print both figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.takeover")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lease", type=float, default=10.0)
    parser.add_argument("--pg", default=None)
    args = parser.parse_args(argv)
    for how in (signal.SIGKILL, signal.SIGTERM):
        f = measure(args.pg, args.rounds, args.lease, how)
        print(f"{how.name}: median {f.median:.2f} s, worst {f.worst:.2f} s over {f.rounds} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
