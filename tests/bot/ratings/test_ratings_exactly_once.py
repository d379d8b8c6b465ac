"""Ratings exactly once, in every face (issue 38, point 1): `tournament play` on a `--rated` tournament
rates its matches; a process killed right after a match's last move, a failed and an ambiguous ratings
commit leave the rating owed, never lost nor doubled: it is caught up (by a retry, or at the next start
of any face), and `dmhost ratings rebuild` then reports `changed 0`. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from bot.compose import build_host
from bot.host.events import PlayerRef
from bot.ratings.models import RatingChange
from bot.store.matches import MatchStore
from tests import ROOT, dmhost

ROOM = ["room", "boxes", "--player", "alice", "--player", "bob", "--events-json"]
A, B = PlayerRef("p:alice", "alice"), PlayerRef("p:bob", "bob")

KILLED_AFTER_THE_LAST_MOVE = """
import os, signal, sys
from bot.ratings.service import Ratings

async def die(self, match_ids):  # the match's end is committed; the process dies before rating it
    os.kill(os.getpid(), signal.SIGKILL)

Ratings.settle_many = die  # the subscriber's batch (after the commit)
from bot.ops.cli import main
sys.exit(main(sys.argv[1:]))
"""


async def rating_rows(url: str) -> int:
    store = MatchStore(url)
    try:
        async with store.engine.connect() as conn:
            return int((await conn.execute(select(func.count()).select_from(RatingChange))).scalar_one())
    finally:
        await store.close()


def rebuild_changed(url: str) -> int:
    done = dmhost("ratings", "rebuild", "--db", url)
    assert done.returncode == 0, done.stderr
    return int(json.loads(done.stdout)["changed"])


async def test_a_room_killed_after_the_last_move_is_rated_at_the_next_start(migrated_db_url: str) -> None:
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_THE_LAST_MOVE, *ROOM, "--db", migrated_db_url],
        input="alice: A1-B1\nbob: resign\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert await rating_rows(migrated_db_url) == 0, "the kill came before the rating"
    again = dmhost("room", "--resume", "1", "--db", migrated_db_url)  # the next start of a face catches up
    assert again.returncode == 2 and "nothing to resume" in again.stderr
    assert await rating_rows(migrated_db_url) == 2
    assert rebuild_changed(migrated_db_url) == 0
    assert await rating_rows(migrated_db_url) == 2


async def test_tournament_play_on_a_rated_tournament_rates_its_matches(migrated_db_url: str) -> None:
    db = migrated_db_url
    made = dmhost(
        "tournament", "create", "Cup", "--game", "boxes", "--format", "swiss", "--rounds", "2",
        "--opt", "rows=2 cols=2", "--rated", "--db", db,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert dmhost("tournament", "join", "1", "ann", "ben", "cid", "dot", "--db", db).returncode == 0
    assert dmhost("tournament", "start", "1", "--db", db).returncode == 0
    played = dmhost("tournament", "play", "1", "--json", "--db", db)
    assert played.returncode == 0, played.stderr
    state = json.loads(played.stdout)
    matches = [g["match"] for rnd in state["rounds"] for g in rnd if g.get("match")]
    assert state["tournament"]["status"] == "finished" and len(matches) == 4
    assert await rating_rows(db) == 2 * len(matches), "rated by `play` itself, not by a later catch-up"
    assert rebuild_changed(db) == 0
    shown = dmhost("ratings", "--json", "--db", db)
    assert sorted(r["player"] for r in json.loads(shown.stdout)) == ["ann", "ben", "cid", "dot"]


async def _finish(host: Any) -> int:
    mid = await host.service.create_match("boxes", [A, B])
    await host.service.submit(mid, A.id, "A1-B1")
    await host.service.submit(mid, B.id, "resign")
    return int(mid)


@pytest.mark.looptime
@pytest.mark.parametrize("fault", ["failed", "ambiguous"])
async def test_a_ratings_commit_that_fails_or_lies_is_caught_up_once(migrated_db_url: str, fault: str) -> None:
    host = build_host(migrated_db_url)
    await host.open()
    await host.service.start()
    real = host.ratings.settle_many
    faults = [1]

    async def settle_many(match_ids: Any) -> int:  # the subscriber's batch, after the commit
        if not faults:
            return await real(match_ids)
        faults.pop()
        if fault == "ambiguous":
            await real(match_ids)  # the rating commits, then the connection drops
        raise OperationalError("COMMIT", {}, ConnectionError("injected: the commit's answer was lost"))

    host.ratings.settle_many = settle_many  # type: ignore[method-assign]
    try:
        mid = await _finish(host)
        assert host.service.store is not None and mid
        await host.service.drained()  # the batch ran (and failed): the rating is owed
        assert not faults and await rating_rows(migrated_db_url) == (2 if fault == "ambiguous" else 0)
        await asyncio.sleep(5)  # the retry catches up (the looptime clock: no wall time)
        assert await rating_rows(migrated_db_url) == 2
        second = await _finish(host)  # the next match is rated by its batch, exactly once
        await host.service.drained()
        assert second != mid and await rating_rows(migrated_db_url) == 4
        report = await host.ratings.rebuild()
        assert report.changed == 0
    finally:
        await host.close()
