"""`dmhost room` under its match's lease (#38 item 3), real processes on a SQLite file: a second `room --resume`
of a match another process hosts is one line and exit 2; a room whose lease is taken over stops with one line
(exit 2) and writes nothing more; afterwards the match is resumed and finished, and its log replays."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

from sqlalchemy import update

from bot.ownership.scope import Scope, scope_key
from bot.records.agreement import disagreement
from bot.store.db import sqlite_url_for
from bot.store.leases import ShardLease, db_now
from bot.store.matches import MatchStore
from tests import DMHOST
from tests.bot.jsonproc import JsonLinesProcess


async def steal(url: str, mid: int, owner: str) -> None:
    """Another process takes the match's lease (its epoch rises), or (owner '') gives it up."""
    store = MatchStore(url)
    try:
        async with store.engine.begin() as conn:
            await conn.execute(
                update(ShardLease)
                .where(ShardLease.shard == scope_key(Scope.MATCH, mid))
                .values(owner=owner, epoch=ShardLease.epoch + 1, expires_at=db_now("sqlite", 3600 if owner else 0))
            )
    finally:
        await store.close()


async def agrees(url: str, mid: int) -> tuple[str, str | None]:
    store = MatchStore(url)
    try:
        stored = await store.load(mid, with_events=True)
        assert stored is not None
        return stored.status, disagreement(stored)
    finally:
        await store.close()


def resumed(db: str, mid: int, cwd: Path) -> JsonLinesProcess:
    """`dmhost room --resume ID --events-json` kept open, and its JSON lines."""
    return JsonLinesProcess([*DMHOST, "room", "--db", db, "--resume", str(mid), "--events-json"], cwd)


def test_a_hosted_match_is_refused_to_a_second_room_and_a_lost_lease_stops_the_room(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    url = sqlite_url_for(Path(db))
    made = subprocess.run(
        [*DMHOST, "room", "boxes", "--player", "alice", "--player", "bob", "--opt", "rows=1", "cols=1",
         "--events-json", "--db", db],
        input="alice: A1-B1\n", capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    mid = int(json.loads(made.stdout.splitlines()[0])["match"])
    first = resumed(db, mid, tmp_path)
    try:
        first.wait_for("resumed")  # it holds the match's lease now
        second = subprocess.run(
            [*DMHOST, "room", "--db", db, "--resume", str(mid)],
            input="", capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip
        assert second.returncode == 2, second.stderr
        assert second.stderr.strip().splitlines() == [
            f"dmhost: match {mid} is hosted by another process; try again when it stops"
        ], second.stderr
        asyncio.run(steal(url, mid, "another-process"))
        first.type("bob: A1-A2")  # refused by the fence: not stored
        gone = first.wait_for("elsewhere")
        assert gone["match"] == mid
        assert first.proc.wait(60) == 2
    finally:
        first.kill()
    assert not [e for e in first.lines if e["event"] == "move" and e.get("move") == "A1-A2"], first.lines
    asyncio.run(steal(url, mid, ""))
    done = subprocess.run(
        [*DMHOST, "room", "--db", db, "--resume", str(mid), "--events-json"],
        input="bob: A1-A2\nalice: A2-B2\nbob: B1-B2\n", capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["event"] == "finished", done.stdout
    assert asyncio.run(agrees(url, mid)) == ("finished", None)
