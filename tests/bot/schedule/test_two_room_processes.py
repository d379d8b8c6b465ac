"""Two real `dmhost room --scheduled` processes for one DM (#38 item 3), on SQLite and PostgreSQL: the first
holds the DM's lease and hosts it, the second waits as a standby. A `here` typed in the standby counts (no
false no-show), one match is played, the standby leaves once it began, and the match's log replays to its
snapshot. A standby whose host stops before the start takes the DM over."""

from __future__ import annotations

import asyncio
import json
import sys

from sqlalchemy import func, select

from bot.records.agreement import disagreement
from bot.store.db import Match
from bot.store.matches import MatchStore
from tests.bot.jsonproc import JsonLinesProcess, by_kind
from tests.bot.schedule.test_scheduled_room import BOB_WINS, status
from tests.bot.tournaments.test_start_kills import ROOT, dmhost


def room_process(url: str, sid: int) -> JsonLinesProcess:
    """One `dmhost room --scheduled ID --events-json` process and the JSON lines it printed."""
    args = [sys.executable, "-m", "bot.ops.cli", "room", "--db", url, "--scheduled", str(sid), "--events-json"]
    return JsonLinesProcess(args, ROOT, kind=by_kind, timeout=180)


START_IN_S = 10
"""When the DM of a test starts. The match begins once both players are here and its time has come, so these
seconds are waited for in real time; a start the two rooms' start-ups overran on a busy machine changes nothing,
as a `here` counts until the no-show ruling, ten minutes after the start."""


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
    sid = add(db_url, START_IN_S)
    host = room_process(db_url, sid)
    try:
        host.wait_for("waiting_room")  # said once it holds the DM's lease
        standby = room_process(db_url, sid)
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
            standby.kill()
        host.type(*BOB_WINS)
        finished = host.wait_for("finished")
        assert (finished["winner"], finished["reason"]) != (None, "no_show")
        code, err = host.end()
        assert code == 0 and "Traceback" not in err, err
    finally:
        host.kill()
    s = asyncio.run(status(db_url, sid))
    assert (s.public_status, s.winner_seat) == ("finished", 2)
    assert asyncio.run(matches(db_url)) == [s.match_id]
    assert started["event"] in ("started", "schedule")


def test_a_standby_takes_the_dm_over_when_its_host_stops(db_url: str) -> None:
    sid = add(db_url, START_IN_S)
    host = room_process(db_url, sid)
    try:
        host.wait_for("waiting_room")
        standby = room_process(db_url, sid)
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
            standby.kill()
    finally:
        host.kill()
    s = asyncio.run(status(db_url, sid))
    assert (s.public_status, s.winner_seat) == ("finished", 2)
    assert asyncio.run(matches(db_url)) == [s.match_id]


def add_opening(url: str, checkin_in_s: int) -> int:
    """A DM whose check-in opens `checkin_in_s` seconds from now (a minute before its start)."""
    code, out, err = dmhost(
        "schedule", "add", "boxes", "--player", "alice", "--player", "bob", "--opt", "rows=1", "cols=1",
        "--at", f"in {checkin_in_s + 60} seconds", "--checkin", "1", "--db", url,
    )  # fmt: skip
    assert code == 0, err
    return int(json.loads(out)["schedule"])


def test_the_standby_says_the_check_in_opened_too(db_url: str) -> None:
    """The check-in opens in both rooms (issue 47, 5): the standby runs no job, yet says it as the host does."""
    sid = add_opening(db_url, 20)
    host = room_process(db_url, sid)
    try:
        host.wait_for("waiting_room")
        standby = room_process(db_url, sid)
        try:
            assert "Check-in opens" in standby.wait_for("waiting_room")["text"]
            standby.wait_for("standby")
            opened = host.wait_for("checkin_open", timeout=60)
            said = standby.wait_for("checkin_open", timeout=30)
            assert said["text"] == opened["text"] and said["schedule"] == sid
            standby.type("bob: here")  # and a `here` typed there counts
            assert standby.wait_for("checked_in")["seat"] == 2
            assert [line["kind"] for line in standby.lines].count("checkin_open") == 1
            assert [line["kind"] for line in host.lines].count("checkin_open") == 1
        finally:
            standby.kill()
    finally:
        host.kill()
