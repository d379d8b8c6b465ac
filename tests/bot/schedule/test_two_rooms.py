"""Two `room --scheduled` for one DM (#38 items 4 and 7): a `here` typed in either room counts (the check-in
lives in the database), one match is played, the other room says where and leaves; and a room waiting for
its appointment obeys SIGTERM (the real command line)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.store.db import Match
from bot.store.matches import MatchStore
from tests.bot.schedule.test_scheduled_room import BASE, BOB_WINS, Terminal, add, status, until, wall


@pytest.mark.looptime
async def test_a_here_in_either_room_counts_and_one_match_is_played(migrated_db_url: str) -> None:
    clock = wall()
    sid = await add(migrated_db_url, clock, hours=1)
    start = BASE + dt.timedelta(hours=1)
    a = Terminal(migrated_db_url, sid, clock)
    await asyncio.sleep(1)  # one process at a time runs Alembic's upgrade (its context is process-global)
    b = Terminal(migrated_db_url, sid, clock)
    await until(clock, start - dt.timedelta(minutes=14))
    a.type("alice: here")
    b.type("bob: here")
    await until(clock, start + dt.timedelta(minutes=1))
    playing = [t for t in (a, b) if any(e["event"] == "started" for e in t.events())]
    assert len(playing) == 1, (a.kinds(), b.kinds())
    other = b if playing[0] is a else a
    assert other.kinds()[-1] == "elsewhere" and await other.task == 0
    playing[0].type(*BOB_WINS)
    assert await playing[0].task == 0
    s = await status(migrated_db_url, sid)
    assert (s.public_status, s.winner_seat) == ("finished", 2)
    store = MatchStore(migrated_db_url)
    try:
        async with store.engine.connect() as conn:
            ids = set((await conn.execute(select(Match.id))).scalars())
    finally:
        await store.close()
    assert ids == {s.match_id}  # one match for the schedule


def test_a_waiting_room_obeys_sigterm(tmp_path: Path) -> None:
    db = str(tmp_path / "dm.db")
    env = {**os.environ}
    cli = [sys.executable, "-m", "bot.ops.cli"]
    added = subprocess.run(
        [*cli, "schedule", "add", "boxes", "--player", "alice", "--player", "bob", "--at", "in 2h", "--db", db],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    sid = json.loads(added.stdout)["schedule"]
    room = subprocess.Popen(
        [*cli, "room", "--db", db, "--scheduled", str(sid), "--events-json"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert room.stdout is not None
    first = json.loads(room.stdout.readline())  # the waiting room is said: the room is waiting now
    assert first["kind"] == "waiting_room"
    room.send_signal(signal.SIGTERM)
    out, err = room.communicate(timeout=30)
    assert room.returncode == 0, err
    assert json.loads(out.splitlines()[-1])["event"] == "eof" and "Traceback" not in err
