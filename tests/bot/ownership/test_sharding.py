"""Shards over one PostgreSQL database: each host process owns the clocks of its shards' guilds.

Real processes (`python -m bot.shardhost`): one is killed with SIGKILL and replaced; every match's
timeout must then be in the log exactly once — never twice, never lost.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from bot.ops.shardhost import owner, shard_of
from bot.store.matches import MatchStore
from tests import ROOT, seeds
from tests.bot.jsonproc import JsonLinesProcess

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
COUNT = 2


class Shard(JsonLinesProcess):
    """One `bot.shardhost` process and the JSON events it printed."""

    def __init__(self, url: str, ids: list[int], tmp: Path) -> None:
        args = [sys.executable, "-m", "bot.shardhost", "--db", url, "--shard-count", str(COUNT), "--shard-ids"]
        args += [str(i) for i in ids] + ["--heartbeat", "0.2", "--lease", "1"]
        err = tmp / f"shard-{'-'.join(map(str, ids))}.txt"
        super().__init__(args, env=ENV, stderr=err, timeout=20, name="shard host")
        self.ready = self.wait_for("ready")

    def create(self, guild: int, move: float) -> int:
        n = len(self.of("created")) + 1
        players = [[f"{guild}a", "alice"], [f"{guild}b", "bob"]]
        clock = {"move": move, "reserve": 0}
        self.send({"create": {"game": "boxes", "players": players, "guild_id": guild, "clock": clock}})
        return int(self.wait_for("created", n)["match"])

    def stop(self) -> None:
        self.end(30)


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
@pytest.mark.slow  # `bot.shardhost` processes, one killed
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
            created_at[mid] = (a.lines[-1]["t"], 0.8 + 0.3 * i)
        for i, guild in enumerate(_guilds(1, 6)):
            owned[b.create(guild, 0.6 + 0.25 * i)] = 1
        # B dies somewhere among its own deadlines: some timeouts are committed, some not yet due.
        time.sleep(rng.uniform(0.5, 1.6))
        b.kill()
        time.sleep(0.5)
        b2 = Shard(pg_url, [1], tmp_path)
        resumed = set(b2.ready["resumed"])
        assert resumed <= {m for m, s in owned.items() if s == 1}
        finished_by_b = {e["match"] for e in b.lines if e["event"] == "finished"}
        assert not resumed & finished_by_b, "a match announced as finished was resumed"
        for shard, n in ((a, 4), (b2, len(resumed))):
            if n:
                shard.wait_for("finished", n, timeout=20)
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
    assert {e["match"] for e in a.lines if "match" in e} <= {m for m, s in owned.items() if s == 0}
    for e in a.lines:
        if e["event"] == "finished":
            t0, move = created_at[e["match"]]
            assert e["t"] - t0 == pytest.approx(move, abs=0.1)
    # Every B match ended either in B (announced before the kill or committed just before it) or in B2.
    ended_by = {e["match"] for e in b2.lines if e["event"] == "finished"} | finished_by_b
    committed_not_announced = {m for m, s in owned.items() if s == 1} - ended_by
    assert all(by_match[m][-1] == "finished" for m in committed_not_announced)
