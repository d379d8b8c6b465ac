"""Never two hosts, never a stuck match (issue 27): real `python -m bot.shardhost` processes on one
PostgreSQL database (and on one SQLite file), with short leases so the tests stay quick.

A second process for the same shards waits as a standby; it takes over when the owner is killed (lease
expiry), stalled past its lease (the stalled owner's writes are then refused by the epoch, and it lets
go), or stopped cleanly (SIGTERM releases the leases at once). Clocks fire exactly once; no acknowledged
move is lost or written twice.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.store.db import sqlite_url_for
from tests.bot.jsonproc import JsonLinesProcess, Line
from tests.bot.ownership.test_sharding import ENV, logs

LEASE = 1.5
COUNT = 2


class Host(JsonLinesProcess):
    """One `bot.shardhost` process for shards 0 and 1 of 2, and the JSON events it printed (with the
    monotonic time each was read, `seen`)."""

    def __init__(
        self,
        url: str,
        tmp: Path,
        name: str,
        ids: tuple[int, ...] = (0, 1),
        *,
        module: str = "bot.shardhost",
        env: dict[str, str] | None = None,
    ) -> None:
        args = ["--db", url, "--shard-count", str(COUNT), "--shard-ids", *map(str, ids)]
        args = [sys.executable, "-m", module, *args, "--heartbeat", "0.2", "--lease", str(LEASE)]
        super().__init__(args, env={**ENV, **(env or {})}, stderr=tmp / f"{name}.txt", timeout=30, name=name)

    def line(self, raw: str) -> Line:
        return {**super().line(raw), "seen": time.monotonic()}

    def create(self, guild: int, move: float, reserve: float = 0) -> int:
        n = len(self.of("created")) + 1
        players = [[f"{guild}a", "alice"], [f"{guild}b", "bob"]]
        clock = {"move": move, "reserve": reserve}
        self.send({"create": {"game": "boxes", "players": players, "guild_id": guild, "clock": clock}})
        return int(self.wait_for("created", n)["match"])

    def submit(self, match: int, player: str, text: str) -> Line:
        n = len(self.of("submitted")) + 1
        self.send({"submit": {"match": match, "player": player, "text": text}})
        return self.wait_for("submitted", n)

    def signal(self, sig: signal.Signals) -> float:
        os.kill(self.proc.pid, sig)
        return time.monotonic()

    def finish(self) -> None:
        """Kill it, stopped (SIGSTOP) or not, if it still runs."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
        self.kill()


def guild(shard: int, i: int) -> int:
    """A guild id on `shard` of COUNT."""
    return ((COUNT * (i + 1) + shard) << 22) + 7


@pytest.fixture(params=["postgresql", "sqlite"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return sqlite_url_for(tmp_path / "one.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def hosts() -> Any:
    started: list[Host] = []
    yield started
    for h in started:
        h.finish()


def test_a_standby_waits_while_the_owner_lives_and_takes_over_when_it_is_killed(
    url: str, tmp_path: Path, hosts: list[Host]
) -> None:
    owner = Host(url, tmp_path, "owner")
    hosts.append(owner)
    owner.wait_for("ready")
    standby = Host(url, tmp_path, "standby")  # started first: however long it takes, no clock runs meanwhile
    hosts.append(standby)
    standby.wait_for("standby")
    mids = [owner.create(guild(i % COUNT, i), move=30.0 if i == 0 else 7.0 + 0.4 * i) for i in range(4)]
    acked = [owner.submit(m, f"{guild(i % COUNT, i)}a", "A1-B1") for i, m in enumerate(mids)]
    assert all(a["status"] == "accepted" for a in acked)
    standby.send({"submit": {"match": mids[0], "player": f"{guild(0, 0)}b", "text": "A1-A2"}})
    refused = standby.wait_for("error")
    assert "standby" in refused["reason"]
    time.sleep(LEASE * 2)  # the owner lives on: its leases are renewed, the standby keeps waiting
    assert not standby.of("ready")
    killed = owner.signal(signal.SIGKILL)
    ready = standby.wait_for("ready", timeout=15)
    assert ready["seen"] - killed < 15
    assert sorted(ready["resumed"]) == mids
    moved = standby.submit(mids[0], f"{guild(0, 0)}b", "A1-A2")
    assert moved["status"] == "accepted", moved
    assert standby.submit(mids[0], f"{guild(0, 0)}a", "resign")["status"] == "accepted"
    standby.wait_for("finished", len(mids), timeout=30)  # every other clock fires, once
    standby.send({"create": {"game": "nope"}})  # still answering
    standby.wait_for("error", 2)
    by_match = logs(url)
    for mid in mids:
        counts = Counter(by_match[mid])
        assert counts["timeout"] == (0 if mid == mids[0] else 1) and counts["finished"] == 1, by_match[mid]
        assert counts["move"] == (2 if mid == mids[0] else 1), by_match[mid]  # acknowledged moves, once each
    assert not owner.of("finished")


def test_a_stalled_owner_is_fenced_off_by_the_epoch_and_lets_go(url: str, tmp_path: Path, hosts: list[Host]) -> None:
    owner = Host(url, tmp_path, "owner")
    hosts.append(owner)
    owner.wait_for("ready")
    standby = Host(url, tmp_path, "standby")  # started first: bob's 3 s must not run out while it starts
    hosts.append(standby)
    standby.wait_for("standby")
    mid = owner.create(guild(0, 0), move=3.0)
    assert owner.submit(mid, f"{guild(0, 0)}a", "A1-B1")["status"] == "accepted"
    owner.signal(signal.SIGSTOP)  # paused past its lease (and past bob's deadline)
    ready = standby.wait_for("ready", timeout=15)
    assert ready["resumed"] == [mid]
    assert standby.submit(mid, f"{guild(0, 0)}b", "A1-A2")["status"] == "accepted"
    time.sleep(3.5)  # the old owner's clock for bob was due long ago
    owner.signal(signal.SIGCONT)
    lost = owner.wait_for("lost", timeout=15)
    assert lost["shards"] == [0, 1] and lost["matches"] == [mid]
    assert not owner.of("timeout") and not owner.of("finished")  # its overdue clock never reached the log
    owner.wait_for("standby", timeout=10)  # and it waits again, as a standby
    owner.send({"submit": {"match": mid, "player": f"{guild(0, 0)}a", "text": "B1-B2"}})
    assert "standby" in owner.wait_for("error")["reason"]  # it hosts nothing now
    assert owner.errors().count("lost the lease") == 1  # said once, in one line
    assert "Traceback" not in owner.errors()
    standby.wait_for("finished", timeout=30)
    kinds = logs(url)[mid]
    counts = Counter(kinds)
    assert counts["move"] == 2 and counts["timeout"] == 1 and counts["finished"] == 1, kinds


def test_sigterm_hands_over_in_under_two_seconds(url: str, tmp_path: Path, hosts: list[Host]) -> None:
    owner = Host(url, tmp_path, "owner")
    hosts.append(owner)
    owner.wait_for("ready")
    mid = owner.create(guild(1, 0), move=60.0)
    assert owner.submit(mid, f"{guild(1, 0)}a", "A1-B1")["status"] == "accepted"
    standby = Host(url, tmp_path, "standby")
    hosts.append(standby)
    standby.wait_for("standby")
    stopped = owner.signal(signal.SIGTERM)
    assert owner.proc.wait(10) == 0
    ready = standby.wait_for("ready", timeout=10)
    assert ready["seen"] - stopped < 2.0
    assert ready["resumed"] == [mid]
    assert standby.submit(mid, f"{guild(1, 0)}b", "A1-A2")["status"] == "accepted"
    assert Counter(logs(url)[mid])["move"] == 2


def _moves(url: str) -> dict[int, list[str]]:
    """Every match's moves in the log, in order, read in a thread of its own."""
    import asyncio
    import concurrent.futures

    from bot.store.matches import MatchStore

    async def read() -> dict[int, list[str]]:
        store = MatchStore(url)
        try:
            out = {}
            for mid in range(1, 1000):
                stored = await store.load(mid, with_events=True)
                if stored is None:
                    break
                out[mid] = [str(e.data["move"]) for e in stored.events if e.kind == "move"]
            return out
        finally:
            await store.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, read()).result()


SEQUENCE = [("A1-B1", "a"), ("B1-C1", "b"), ("C1-D1", "a"), ("A2-B2", "b"), ("B2-C2", "a"), ("C2-D2", "b")]


@pytest.mark.pg
def test_a_rolling_restart_of_three_processes_with_100_live_matches_loses_no_acknowledged_move(
    pg_url: str, tmp_path: Path, hosts: list[Host]
) -> None:
    current = Host(pg_url, tmp_path, "p1")
    hosts.append(current)
    current.wait_for("ready")
    guild_of = {current.create(guild(i % COUNT, i), move=600): guild(i % COUNT, i) for i in range(100)}
    mids = sorted(guild_of)
    done = dict.fromkeys(mids, 0)  # moves the database holds, as far as the driver knows
    acked: dict[int, set[str]] = {m: set() for m in mids}

    def send_round(host: Host) -> int:
        """The next move of every match, all at once; the number of submits sent."""
        sent = 0
        for mid in mids:
            if done[mid] < len(SEQUENCE):
                text, who = SEQUENCE[done[mid]]
                host.send({"submit": {"match": mid, "player": f"{guild_of[mid]}{who}", "text": text}})
                sent += 1
        return sent

    def collect(host: Host) -> None:
        for ev in host.of("submitted"):
            mid = int(ev["match"])
            if ev["status"] == "accepted" and len(acked[mid]) < len(SEQUENCE):
                acked[mid].add(SEQUENCE[len(acked[mid])][0])  # a match's moves are accepted in order

    def play_round(host: Host) -> None:
        before = len(host.of("submitted"))
        host.wait_for("submitted", before + send_round(host))
        for mid in mids:
            done[mid] += 1

    play_round(current)
    for gen in (2, 3):
        following = Host(pg_url, tmp_path, f"p{gen}")
        hosts.append(following)
        following.wait_for("standby")
        play_round(current)
        send_round(current)  # moves in flight while the process is told to stop
        stopped = current.signal(signal.SIGTERM)
        assert current.proc.wait(15) == 0
        collect(current)
        ready = following.wait_for("ready", timeout=15)
        assert sorted(ready["resumed"]) == mids
        assert ready["seen"] - stopped < 5
        stored = _moves(pg_url)
        done.update({mid: len(stored[mid]) for mid in mids})
        current = following
    play_round(current)
    collect(current)
    stored = _moves(pg_url)
    for mid in mids:
        moves = stored[mid]
        assert moves == [text for text, _who in SEQUENCE[: len(moves)]], (mid, moves)  # in order, none twice
        assert acked[mid] <= set(moves), (mid, acked[mid], moves)  # every acknowledged move is there
    assert min(len(stored[m]) for m in mids) >= 4
