"""The scheduled room tells things in their order (issue 48, point 10): "DM #N begins" before any move held
for the match is played, and after a no-show the room knows the forfeit's match (what it suggests for
`dmhost log N --analyse` names it, never -1). On a real database and the loop's clock (looptime)."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import pytest
from sqlalchemy.engine import make_url

from bot.host.service import MatchService
from bot.store.matches import MatchStore
from tests.bot.schedule.test_scheduled_room import ALICE, BASE, BOB, BOB_WINS, Terminal, add, status, until, wall


@pytest.mark.looptime
async def test_the_dm_begins_before_the_held_moves_are_played(migrated_db_url: str) -> None:
    clock = wall()
    sid = await add(migrated_db_url, clock)
    t = Terminal(migrated_db_url, sid, clock)
    t.type("alice: here", "bob: here", *BOB_WINS)  # the whole DM piped in long before its time
    assert await t.task == 0
    events = t.events()
    begins = next(i for i, e in enumerate(events) if e["event"] == "schedule" and e["kind"] == "started")
    moves = [i for i, e in enumerate(events) if e["event"] == "move"]
    started = next(i for i, e in enumerate(events) if e["event"] == "started")
    assert len(moves) == len(BOB_WINS) and started < begins < moves[0], [e.get("kind", e["event"]) for e in events]
    assert events[-1]["event"] == "finished" and events[-1]["winner"] == "bob"


@pytest.mark.looptime
async def test_after_a_no_show_the_room_names_the_forfeits_match(migrated_db_url: str) -> None:
    clock = wall()
    sid = await add(migrated_db_url, clock)
    t = Terminal(migrated_db_url, sid, clock)
    await until(clock, BASE + dt.timedelta(minutes=55))
    t.type("bob: here")
    assert await t.task == 0
    last = t.events()[-1]
    assert (last["event"], last["reason"]) == ("finished", "no_show")
    forfeit = (await status(migrated_db_url, sid)).match_id
    assert forfeit == last["match"] and t.room.match_id == forfeit  # `dmhost log {forfeit} --analyse`, not -1


@pytest.mark.slow  # starts `dmhost log`
async def test_the_analysis_of_a_match_without_moves_says_so(migrated_sqlite_url: str) -> None:
    store = MatchStore(migrated_sqlite_url)
    try:
        service = MatchService(store)
        match_id = await service.record_forfeit("boxes", [ALICE, BOB], 2, "no_show", options={"rows": 1, "cols": 1})
    finally:
        await store.close()
    db = make_url(migrated_sqlite_url).database
    assert db is not None
    shown = subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", "log", str(match_id), "--analyse", "--db", db],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    last = shown.stdout.strip().splitlines()[-1]
    assert last == "Analysis: no move was played in this match (it ended before the first one), so there is none."
