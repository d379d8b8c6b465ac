"""An owner frozen inside a write transaction cannot block a takeover (issue 38, point 6): real
`bot.shardhost` processes, the owner stopped (SIGSTOP) while it holds the lease row's lock (PostgreSQL) or the
database's write lock (SQLite), in the middle of storing a move. The standby takes over within 15 s — on
PostgreSQL because the server ends a transaction left idle for 5 s, on SQLite because a writer that is stopped
while its leases have expired is ended — the leases do not flap back, and on PostgreSQL the old owner, resumed,
tells the player the truth: another host took the match over, the move did not count there."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path

from bot import wording
from bot.host.events import Refusal
from bot.store.leases import stopped
from tests.bot.ownership.test_ownership import LEASE, Host, guild, hosts, url  # noqa: F401 (fixtures)
from tests.bot.ownership.test_sharding import logs


def _until_stopped(host: Host) -> float:
    """Wait until the process is stopped; the monotonic time it was seen so."""
    end = time.monotonic() + 20
    while not stopped(host.proc.pid):
        assert host.proc.poll() is None, host.errors()
        assert time.monotonic() < end, f"{host.name} never froze: {host.lines}"
        time.sleep(0.02)
    return time.monotonic()


def test_an_owner_frozen_inside_a_write_is_taken_over_within_15_s(url: str, tmp_path: Path, hosts: list[Host]) -> None:  # noqa: F811
    trigger = tmp_path / "freeze"
    owner = Host(url, tmp_path, "owner", module="tests.bot.freezepoint", env={"DMHOST_TEST_FREEZE_FILE": str(trigger)})
    hosts.append(owner)
    owner.wait_for("ready")
    standby = Host(url, tmp_path, "standby")
    hosts.append(standby)
    standby.wait_for("standby")
    g = guild(0, 0)
    mid = owner.create(g, move=60.0)
    assert owner.submit(mid, f"{g}a", "A1-B1")["status"] == "accepted"
    trigger.touch()
    owner.send({"submit": {"match": mid, "player": f"{g}b", "text": "A1-A2"}})  # frozen while storing it
    frozen = _until_stopped(owner)
    ready = standby.wait_for("ready", timeout=15)
    assert ready["seen"] - frozen < 15
    assert ready["resumed"] == [mid]
    assert standby.submit(mid, f"{g}b", "A1-A2")["status"] == "accepted"  # the frozen write never counted
    if url.startswith("sqlite"):
        # Nothing frees SQLite's write lock but the end of the process that holds it.
        assert owner.proc.wait(10) == -signal.SIGKILL
        assert f"process {owner.proc.pid} holds the database's write lock while stopped" in standby.errors()
    else:
        os.kill(owner.proc.pid, signal.SIGCONT)
        told = owner.wait_for("submitted", 2, timeout=15)
        assert told["status"] == "rejected"
        assert told["reason"] == wording.refusal_text(Refusal("taken_over")), told  # not "The match is over."
        assert owner.wait_for("lost", timeout=15)["matches"] == [mid]
        owner.wait_for("standby", timeout=10)  # it waits again
        assert "Traceback" not in owner.errors()
    time.sleep(LEASE * 2)  # no flapping: the new owner keeps the shards, the old one never hosts again
    assert len(owner.of("ready")) == 1 and standby.of("ready") == [ready]
    assert standby.submit(mid, f"{g}a", "B1-B2")["status"] == "accepted"
    counts = Counter(logs(url)[mid])
    assert counts["move"] == 3, logs(url)[mid]  # each acknowledged move once, the frozen one never
