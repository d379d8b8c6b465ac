"""Shards over one PostgreSQL database: each host process owns the clocks of its shards' guilds.

Real processes (`python -m bot.shardhost`): one is killed with SIGKILL and replaced; every match's
timeout must then be in the log exactly once — never twice, never lost.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.ops.shardhost import owner, shard_of
from bot.store.matches import MatchStore
from tests import ROOT, seeds

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
COUNT = 2


class Shard:
    """One `bot.shardhost` process and the JSON events it printed."""

    def __init__(self, url: str, ids: list[int], tmp: Path) -> None:
        self.err = (tmp / f"shard-{'-'.join(map(str, ids))}.txt").open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.shardhost", "--db", url, "--shard-count", str(COUNT), "--shard-ids"]
            + [str(i) for i in ids]
            + ["--heartbeat", "0.2", "--lease", "1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            text=True,
            bufsize=1,
            env=ENV,
        )
        self.events: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        self.ready = self.wait("ready")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cond:
                self.events.append(json.loads(line))
                self._cond.notify_all()

    def wait(self, kind: str, n: int = 1, timeout: float = 20) -> dict[str, Any]:
        end = time.monotonic() + timeout
        with self._cond:
            while len(found := [e for e in self.events if e["event"] == kind]) < n:
                assert self.proc.poll() is None, f"shard host died: {self.events}"
                assert time.monotonic() < end, f"no {kind}: {self.events}"
                self._cond.wait(0.05)
            return found[n - 1]

    def send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def create(self, guild: int, move: float) -> int:
        n = len([e for e in self.events if e["event"] == "created"]) + 1
        players = [[f"{guild}a", "alice"], [f"{guild}b", "bob"]]
        clock = {"move": move, "reserve": 0}
        self.send({"create": {"game": "boxes", "players": players, "guild_id": guild, "clock": clock}})
        return int(self.wait("created", n)["match"])

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.err.close()

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)
        self.err.close()


def logs(url: str) -> dict[int, list[str]]:
    """Every match's log kinds, read in a thread of its own (the test itself is synchronous)."""

    async def read() -> dict[int, list[str]]:
        store = MatchStore(url)
        try:
            out = {}
            for mid in range(1, 200):
                stored = await store.load(mid, with_events=True)
                if stored is None:
                    break
                out[mid] = [e.kind for e in stored.events]
            return out
        finally:
            await store.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, read()).result()


def test_owner_follows_discords_shard_formula() -> None:
    assert shard_of(None, 4) == 0 and shard_of(5 << 22, 4) == 1 and shard_of((8 << 22) + 12345, 4) == 0
    owns = owner([1, 3], 4)
    assert [owns(g << 22) for g in range(6)] == [False, True, False, True, False, True]
    assert owner(None, None)(123) and not owner([1], 2)(None)


def _guilds(shard: int, n: int) -> list[int]:
    return [(g << 22) + 7 for g in range(1, 100) if g % COUNT == shard][:n]


@pytest.mark.pg
@pytest.mark.parametrize("seed", seeds(1))
def test_a_killed_shard_is_replaced_and_every_clock_fires_exactly_once(pg_url: str, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    a = Shard(pg_url, [0], tmp_path)
    b = Shard(pg_url, [1], tmp_path)
    owned: dict[int, int] = {}
    created_at: dict[int, tuple[float, float]] = {}
    try:
        for i, guild in enumerate(_guilds(0, 4)):
            mid = a.create(guild, 0.8 + 0.3 * i)
            owned[mid] = 0
            created_at[mid] = (a.events[-1]["t"], 0.8 + 0.3 * i)
        for i, guild in enumerate(_guilds(1, 6)):
            owned[b.create(guild, 0.6 + 0.25 * i)] = 1
        # B dies somewhere among its own deadlines: some timeouts are committed, some not yet due.
        time.sleep(rng.uniform(0.5, 1.6))
        b.kill()
        time.sleep(0.5)
        b2 = Shard(pg_url, [1], tmp_path)
        resumed = set(b2.ready["resumed"])
        assert resumed <= {m for m, s in owned.items() if s == 1}
        finished_by_b = {e["match"] for e in b.events if e["event"] == "finished"}
        assert not resumed & finished_by_b, "a match announced as finished was resumed"
        for shard, n in ((a, 4), (b2, len(resumed))):
            if n:
                shard.wait("finished", n, timeout=20)
        a.stop()
        b2.stop()
    finally:
        for s in (a, b):
            if s.proc.poll() is None:
                s.kill()
    by_match = logs(pg_url)
    assert sorted(by_match) == sorted(owned)
    for mid, kinds in by_match.items():
        counts = Counter(kinds)
        assert counts["timeout"] == 1 and counts["finished"] == 1, (mid, kinds)
    # Shard A never touched shard B's matches, and its clocks fired on time despite B's death.
    assert {e["match"] for e in a.events if "match" in e} <= {m for m, s in owned.items() if s == 0}
    for e in a.events:
        if e["event"] == "finished":
            t0, move = created_at[e["match"]]
            assert e["t"] - t0 == pytest.approx(move, abs=0.1)
    # Every B match ended either in B (announced before the kill or committed just before it) or in B2.
    ended_by = {e["match"] for e in b2.events if e["event"] == "finished"} | finished_by_b
    committed_not_announced = {m for m, s in owned.items() if s == 1} - ended_by
    assert all(by_match[m][-1] == "finished" for m in committed_not_announced)
