"""`dmhost room --scheduled ID`: a DM stored with `dmhost schedule add` is hosted in the terminal — it waits
for the time, opens the check-in (`NAME: here`), starts the match, applies the no-show rules and records the
result for `dmhost schedule list`. On a real database (SQLite file and PostgreSQL) and the loop's clock
(looptime), and once through the real command line."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.terminal.room import RoomConfig
from bot.adapters.terminal.scheduled import ScheduledRoom
from bot.compose import build_host
from bot.host.match import PlayerRef
from bot.host.service import HostError, MatchService
from bot.ratings.service import Ratings
from bot.schedule import Scheduler, ScheduleStore
from bot.store.matches import MatchStore
from tests import dmhost

BASE = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
ALICE, BOB = PlayerRef("local:alice", "alice"), PlayerRef("local:bob", "bob")
HOUR = 3600.0
BOB_WINS = ["alice: A1-B1", "bob: A2-B2", "alice: A1-A2", "bob: B1-B2"]  # 1×1 Boxes: bob closes the box


def wall() -> Callable[[], dt.datetime]:
    loop = asyncio.get_running_loop()
    return lambda: BASE + dt.timedelta(seconds=loop.time())


class Terminal:
    """A scheduled room on a queue of lines, its JSON output kept with the wall time of each line."""

    def __init__(self, url: str, schedule_id: int, clock: Callable[[], dt.datetime]) -> None:
        self.clock = clock
        self.out = io.StringIO()
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        service = MatchService(MatchStore(url), heartbeat_seconds=10 * 86400, wall=clock)
        config = RoomConfig(db_url=url, events_json=True, scheduled=schedule_id)
        self.room = ScheduledRoom(config, build_host(service=service), self.out, shared=True, wall=clock)
        self.task = asyncio.create_task(self.room.run(self.lines))

    def type(self, *lines: str) -> None:
        for line in lines:
            self.lines.put_nowait(line + "\n")

    def events(self) -> list[dict[str, Any]]:
        """The JSON lines, without the reminders (the room says those too, at their times)."""
        every = [json.loads(line) for line in self.out.getvalue().splitlines() if line.strip()]
        return [e for e in every if e.get("kind") != "reminder"]

    def reminders(self) -> list[int]:
        every = [json.loads(line) for line in self.out.getvalue().splitlines() if line.strip()]
        return [e["offset_s"] for e in every if e.get("kind") == "reminder"]

    def kinds(self) -> list[str]:
        return [e["kind"] if e["event"] == "schedule" else e["event"] for e in self.events()]


async def add(url: str, clock: Callable[[], dt.datetime], *, hours: float = 1, prize: str | None = None) -> int:
    store = MatchStore(url)
    await store.open()
    try:
        scheduler = Scheduler(ScheduleStore(store.engine), None, wall=clock)
        at = BASE + dt.timedelta(hours=hours)
        s = await scheduler.add("boxes", [ALICE, BOB], at, options={"rows": 1, "cols": 1}, prize=prize)
        return s.id
    finally:
        await store.close()


async def status(url: str, schedule_id: int) -> Any:
    store = MatchStore(url)
    try:
        return await ScheduleStore(store.engine).get(schedule_id)
    finally:
        await store.close()


async def until(clock: Callable[[], dt.datetime], at: dt.datetime) -> None:
    await asyncio.sleep(max(0.0, (at - clock()).total_seconds()))


@pytest.mark.looptime
async def test_waits_checks_in_plays_and_records(migrated_db_url: str) -> None:
    clock = wall()
    sid = await add(migrated_db_url, clock, hours=2, prize="3 garnets")
    start = BASE + dt.timedelta(hours=2)
    t = Terminal(migrated_db_url, sid, clock)
    t.type("alice: here", *BOB_WINS[:1])  # typed long before: held until the check-in opens / the match begins
    await until(clock, start - dt.timedelta(minutes=16))
    assert t.kinds() == ["waiting_room"] and t.reminders() == [3600] and not t.task.done()
    await until(clock, start - dt.timedelta(minutes=14))
    assert t.kinds() == ["waiting_room", "checkin_open", "checked_in"]
    t.type("carol: here", "here", "bob: here", "bob: here")
    await until(clock, start - dt.timedelta(minutes=13))
    events = t.events()
    assert [e["event"] for e in events[3:]] == ["ignored", "ignored", "schedule", "rejected"]
    assert (events[3]["player"], events[3]["reason"]) == ("carol", "stranger") and "NAME: here" in events[4]["reason"]
    assert events[6]["reason"] == "You are already checked in."
    assert "started" not in t.kinds()  # both here, but not before the start time
    await until(clock, start + dt.timedelta(seconds=1))
    begun = next(e for e in t.events() if e["event"] == "started")
    match_id = begun["match"]
    moved = [e["move"] for e in t.events() if e["event"] == "move"]
    assert moved == ["A1-B1"]  # the held move was played as soon as the match began
    t.type(*BOB_WINS[1:])
    assert await t.task == 0
    assert t.reminders() == [3600, 600]
    events = t.events()
    assert events[-1] == {
        "event": "finished",
        "match": match_id,
        "winner": "bob",
        "reason": "score",
        "text": events[-1]["text"],
    }
    s = await status(migrated_db_url, sid)
    assert (s.public_status, s.match_id, s.winner_seat, s.result_reason) == ("finished", match_id, 2, "score")


@pytest.mark.looptime
async def test_no_show_forfeits_in_the_terminal(migrated_db_url: str) -> None:
    clock = wall()
    sid = await add(migrated_db_url, clock)
    start = BASE + dt.timedelta(hours=1)
    t = Terminal(migrated_db_url, sid, clock)
    await until(clock, start - dt.timedelta(minutes=5))
    t.type("bob: here")
    await until(clock, start + dt.timedelta(minutes=1))
    waiting = [e for e in t.events() if e.get("kind") == "waiting"]
    assert len(waiting) == 1 and waiting[0]["missing"] == [1] and "type `NAME: here`" in waiting[0]["text"]
    assert await t.task == 0
    assert clock() == start + dt.timedelta(minutes=10)  # the ruling ends the room
    last = t.events()[-1]
    assert (last["event"], last["winner"], last["reason"]) == ("finished", "bob", "no_show")
    s = await status(migrated_db_url, sid)
    assert (s.public_status, s.match_id, s.winner_seat) == ("forfeited", last["match"], 2)
    store = MatchStore(migrated_db_url)
    try:
        table = {st.name: st for st in await Ratings(store).table(None, "boxes")}  # terminal matches: no guild
    finally:
        await store.close()
    assert table["bob"].wins == 1 and table["alice"].losses == 1


@pytest.mark.looptime
async def test_both_absent_cancels_and_a_finished_dm_is_not_hosted_again(migrated_db_url: str) -> None:
    clock = wall()
    sid = await add(migrated_db_url, clock)
    t = Terminal(migrated_db_url, sid, clock)
    assert await t.task == 0
    last = t.events()[-1]
    assert (last["event"], last["kind"], last["reason"]) == ("schedule", "cancelled", "no_show")
    assert clock() == BASE + dt.timedelta(hours=1, minutes=10)
    assert (await status(migrated_db_url, sid)).public_status == "cancelled"
    again = Terminal(migrated_db_url, sid, clock)
    with pytest.raises(HostError, match="is cancelled; nothing to host"):
        await again.task
    unknown = Terminal(migrated_db_url, 999, clock)
    with pytest.raises(HostError, match="no scheduled DM 999"):
        await unknown.task


@pytest.mark.looptime
async def test_stopped_mid_match_goes_on_with_the_same_command(migrated_db_url: str) -> None:
    clock = wall()
    sid = await add(migrated_db_url, clock)
    start = BASE + dt.timedelta(hours=1)
    t = Terminal(migrated_db_url, sid, clock)
    t.type("alice: here", "bob: here", *BOB_WINS[:2])
    t.lines.put_nowait(None)  # end of input before the start: the room still waits for the DM
    assert await t.task == 0
    assert clock() == start
    assert t.events()[-1]["event"] == "eof"
    match_id = (await status(migrated_db_url, sid)).match_id
    assert (await status(migrated_db_url, sid)).public_status == "started"
    t2 = Terminal(migrated_db_url, sid, clock)
    t2.type(*BOB_WINS[2:])
    assert await t2.task == 0
    assert t2.events()[0]["event"] == "resumed" and t2.events()[0]["match"] == match_id
    assert t2.events()[-1]["winner"] == "bob"
    assert (await status(migrated_db_url, sid)).public_status == "finished"


async def _analysis(db: str, match_id: int) -> list[dict[str, Any]] | None:
    from bot.records.analysis_store import load_analysis

    store = MatchStore(f"sqlite+aiosqlite:///{db}")
    await store.open()
    try:
        return await load_analysis(store, match_id)
    finally:
        await store.close()


def test_command_line(tmp_path: Path) -> None:
    db = str(tmp_path / "dm.db")
    added = dmhost(
        "schedule", "add", "boxes", "--player", "alice", "--player", "bob", "--at", "in 8s",
        "--opt", "rows=1", "cols=1", "--db", db, cwd=tmp_path,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    sid = json.loads(added.stdout)["schedule"]
    room = dmhost(
        "room", "--db", db, "--scheduled", str(sid), "--events-json",
        stdin="\n".join(["alice: here", "bob: here", *BOB_WINS]) + "\n", cwd=tmp_path,
        env={"DMHOST_ANALYSIS": "true"},
    )  # fmt: skip
    assert room.returncode == 0, room.stderr
    events = [json.loads(line) for line in room.stdout.splitlines()]
    assert events[-1]["event"] == "finished" and events[-1]["winner"] == "bob"
    assert asyncio.run(_analysis(db, events[-1]["match"])) is not None  # analysed before the room closed
    listed = json.loads(dmhost("schedule", "list", "--db", db, "--json", cwd=tmp_path).stdout)
    assert [(r["schedule"], r["status"], r["match"]) for r in listed] == [(sid, "finished", events[-1]["match"])]
    again = dmhost("room", "--db", db, "--scheduled", str(sid), cwd=tmp_path)
    assert again.returncode == 2 and again.stderr.strip() == f"dmhost: DM #{sid} is finished; nothing to host"
    mixed = dmhost("room", "boxes", "--db", db, "--scheduled", str(sid), cwd=tmp_path)
    assert mixed.returncode == 2 and "give only --db" in mixed.stderr


@pytest.mark.looptime
async def test_a_match_that_ended_while_no_room_listened_is_recorded(migrated_db_url: str) -> None:
    clock = wall()
    sid = await add(migrated_db_url, clock)
    store = MatchStore(migrated_db_url)
    try:  # the DM's match ended (here: as a win for bob) but the room stopped before the schedule heard of it
        service = MatchService(store, wall=clock)
        match_id = await service.record_forfeit("boxes", [ALICE, BOB], 2, "resign", options={"rows": 1, "cols": 1})
        assert await ScheduleStore(store.engine).change(sid, {"status": "started", "match_id": match_id})
    finally:
        await store.close()
    t = Terminal(migrated_db_url, sid, clock)
    assert await t.task == 0
    s = await status(migrated_db_url, sid)
    assert (s.public_status, s.match_id, s.winner_seat, s.result_reason) == ("finished", match_id, 2, "resign")
