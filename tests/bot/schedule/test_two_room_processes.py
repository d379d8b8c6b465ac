"""Two real `dmhost room --scheduled` processes for one DM (#38 item 3), on SQLite and PostgreSQL: the first
holds the DM's lease and hosts it, the second waits as a standby. A `here` typed in the standby counts (no
false no-show), one match is played, the standby leaves once it began, and the match's log replays to its
snapshot. A standby whose host stops before the start takes the DM over."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from typing import Any

from sqlalchemy import func, select

from bot.records.agreement import disagreement
from bot.store.db import Match
from bot.store.matches import MatchStore
from tests.bot.schedule.test_scheduled_room import BOB_WINS, status
from tests.bot.tournaments.test_start_kills import ROOT, dmhost


class RoomProcess:
    """One `dmhost room --scheduled ID --events-json` process and the JSON lines it printed."""

    def __init__(self, url: str, sid: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.ops.cli", "room", "--db", url, "--scheduled", str(sid), "--events-json"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, bufsize=1,
        )  # fmt: skip
        self.lines: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cond:
                self.lines.append(json.loads(line))
                self._cond.notify_all()

    def kinds(self) -> list[str]:
        with self._cond:
            return [str(e.get("kind", e["event"])) for e in self.lines]

    def wait_for(self, kind: str, timeout: float = 180) -> dict[str, Any]:
        end = time.monotonic() + timeout
        with self._cond:
            while not (found := [e for e in self.lines if e.get("kind", e["event"]) == kind]):
                assert time.monotonic() < end, f"no {kind}: {self.lines}"
                self._cond.wait(0.05)
            return found[0]

    def type(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def end(self, timeout: float = 120) -> tuple[int, str]:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        code = self.proc.wait(timeout)
        return code, self.proc.stderr.read()


def add(url: str, seconds: int) -> int:
    code, out, err = dmhost(
        "schedule", "add", "boxes", "--player", "alice", "--player", "bob", "--opt", "rows=1", "cols=1",
        "--at", f"in {seconds} seconds", "--db", url,
    )  # fmt: skip
    assert code == 0, err
    return int(json.loads(out)["schedule"])


async def matches(url: str) -> list[int]:
    store = MatchStore(url)
    try:
        async with store.engine.connect() as conn:
            ids = list((await conn.execute(select(Match.id))).scalars())
            assert (await conn.execute(select(func.count()).select_from(Match))).scalar_one() == len(ids)
        for mid in ids:
            stored = await store.load(mid, with_events=True)
            assert stored is not None and disagreement(stored) is None, (mid, disagreement(stored))
    finally:
        await store.close()
    return ids


def test_a_here_in_the_standby_room_counts_and_one_match_is_played(db_url: str) -> None:
    sid = add(db_url, 30)
    host = RoomProcess(db_url, sid)
    try:
        host.wait_for("waiting_room")  # said once it holds the DM's lease
        standby = RoomProcess(db_url, sid)
        try:
            standby.wait_for("standby")
            host.type("alice: here")
            standby.type("bob: here")  # typed in the other room: counts all the same
            assert standby.wait_for("checked_in")["seat"] == 2
            started = host.wait_for("started")
            assert standby.wait_for("elsewhere")["status"] == "started"
            code, err = standby.end()
            assert code == 0 and "Traceback" not in err, err
            assert "no_show" not in json.dumps(host.lines + standby.lines)
        finally:
            standby.proc.kill()
            standby.proc.wait(30)
        host.type(*BOB_WINS)
        finished = host.wait_for("finished")
        assert (finished["winner"], finished["reason"]) != (None, "no_show")
        code, err = host.end()
        assert code == 0 and "Traceback" not in err, err
    finally:
        host.proc.kill()
        host.proc.wait(30)
    s = asyncio.run(status(db_url, sid))
    assert (s.public_status, s.winner_seat) == ("finished", 2)
    assert asyncio.run(matches(db_url)) == [s.match_id]
    assert started["event"] in ("started", "schedule")


def test_a_standby_takes_the_dm_over_when_its_host_stops(db_url: str) -> None:
    sid = add(db_url, 30)
    host = RoomProcess(db_url, sid)
    try:
        host.wait_for("waiting_room")
        standby = RoomProcess(db_url, sid)
        try:
            standby.wait_for("standby")
            host.type("alice: here")
            host.wait_for("checked_in")
            host.type("quit")  # the host leaves before the start: its lease is given up at once
            assert host.end()[0] == 0
            standby.wait_for("hosting")
            standby.type("bob: here")
            standby.wait_for("started")
            standby.type(*BOB_WINS)
            standby.wait_for("finished")
            code, err = standby.end()
            assert code == 0 and "Traceback" not in err, err
        finally:
            standby.proc.kill()
            standby.proc.wait(30)
    finally:
        host.proc.kill()
        host.proc.wait(30)
    s = asyncio.run(status(db_url, sid))
    assert (s.public_status, s.winner_seat) == ("finished", 2)
    assert asyncio.run(matches(db_url)) == [s.match_id]
