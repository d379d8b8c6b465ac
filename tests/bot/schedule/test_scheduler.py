"""The scheduler core on a real database (SQLite file and PostgreSQL), on the event loop's clock (looptime):
reminders at their exact times, once each; check-in and start; no-shows; the host's extension; proposals;
cancels; a process away across a reminder and the start; two processes on one database."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from bot.compose import Stage
from bot.host.events import EventKind, HostEvent
from bot.host.match import PlayerRef
from bot.host.service import MatchService
from bot.schedule import ScheduleError, ScheduleEvent, Scheduler, ScheduleStore
from bot.schedule.core import RETURN_GRACE_S, STALE_S
from bot.text import plain
from bot.wording.schedule import result_line, say
from tests.bot.conftest import Recorder, make_service
from tests.buses import hear

pytestmark = pytest.mark.looptime

BASE = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
ALICE, BOB = PlayerRef("1001", "alice"), PlayerRef("1002", "bob")
HOUR = 3600.0


def virtual_wall() -> Callable[[], dt.datetime]:
    """Wall time that moves with the loop's clock: looptime starts each test at loop time 0, which is BASE."""
    loop = asyncio.get_running_loop()
    return lambda: BASE + dt.timedelta(seconds=loop.time())


class Events:
    def __init__(self, wall: Callable[[], dt.datetime]) -> None:
        self.wall = wall
        self.items: list[tuple[dt.datetime, ScheduleEvent]] = []

    def __call__(self, ev: ScheduleEvent) -> None:
        self.items.append((self.wall(), ev))

    def kinds(self) -> list[str]:
        return [e.kind for _, e in self.items]

    def of(self, kind: str) -> list[tuple[dt.datetime, ScheduleEvent]]:
        return [(t, e) for t, e in self.items if e.kind == kind]


@dataclass
class Rig:
    service: MatchService
    scheduler: Scheduler
    events: Events
    wall: Callable[[], dt.datetime]
    url: str
    started: bool = False

    async def restart(self) -> None:
        await self.scheduler.close()
        self.scheduler = make_scheduler(self.service, self.events, self.wall)
        await self.scheduler.start()


def make_scheduler(service: MatchService, events: Events, wall: Callable[[], dt.datetime]) -> Scheduler:
    scheduler = Scheduler(ScheduleStore(service.store.engine), service, wall=wall, poll_seconds=None)
    scheduler.publish = events
    hear(service, scheduler.on_host_event, Stage.FOLLOW)
    return scheduler


@pytest.fixture
async def rig(migrated_db_url: str) -> AsyncIterator[Rig]:
    service = await make_service(migrated_db_url, Recorder(), heartbeat_seconds=10 * 86400)
    wall = virtual_wall()
    events = Events(wall)
    scheduler = make_scheduler(service, events, wall)
    r = Rig(service, scheduler, events, wall, migrated_db_url)
    try:
        yield r
    finally:
        await r.scheduler.close()
        await service.close()
        await service.store.close()


async def until(rig: Rig, at: dt.datetime) -> None:
    """Let virtual time run to wall time `at`."""
    await asyncio.sleep(max(0.0, (at - rig.wall()).total_seconds()))


async def schedule(rig: Rig, hours: float = 30, **kw: Any) -> Any:
    if not rig.started:  # in the test, not the fixture: looptime's clock starts with the test
        rig.started = True
        await rig.scheduler.start()
    return await rig.scheduler.add(
        "boxes", [ALICE, BOB], BASE + dt.timedelta(hours=hours), options={"rows": 2, "cols": 2}, guild_id=7, **kw
    )


async def test_reminders_checkin_start(rig: Rig) -> None:
    s = await schedule(rig, prize="15 garnets")
    start = s.at
    await until(rig, start - dt.timedelta(minutes=20))
    reminders = rig.events.of("reminder")
    assert [(t, e.data["offset_s"], e.data["late"]) for t, e in reminders] == [
        (start - dt.timedelta(hours=24), 86400, False),
        (start - dt.timedelta(hours=1), 3600, False),
    ]
    with pytest.raises(ScheduleError) as info:
        await rig.scheduler.check_in(s.id, ALICE.id)
    assert info.value.code == "too_early"
    await until(rig, start - dt.timedelta(minutes=5))
    assert [e.data["offset_s"] for _, e in rig.events.of("reminder")] == [86400, 3600, 600]
    assert rig.events.of("reminder")[2][0] == start - dt.timedelta(minutes=10)
    assert [t for t, _ in rig.events.of("checkin_open")] == [start - dt.timedelta(minutes=15)]
    await rig.scheduler.check_in(s.id, ALICE.id)
    await rig.scheduler.check_in(s.id, BOB.id)
    assert rig.events.of("started") == []  # both here, but not before the start time
    with pytest.raises(ScheduleError):
        await rig.scheduler.check_in(s.id, BOB.id)
    await until(rig, start + dt.timedelta(seconds=1))
    ((t, started),) = rig.events.of("started")
    assert t == start
    match_id = started.data["match"]
    assert match_id in rig.service.live
    assert (await rig.scheduler.get(s.id)).public_status == "started"
    # the match ends: the schedule records the result with its prize
    await rig.service.resign(match_id, BOB.id)
    # each reminder pinged once: nothing more after the start, however long we wait
    await until(rig, start + dt.timedelta(hours=2))
    assert len(rig.events.of("reminder")) == 3
    assert rig.events.kinds().count("waiting") == 0
    done = await rig.scheduler.get(s.id)
    assert done.public_status == "finished" and done.winner_seat == 1 and done.result_reason == "resign"
    assert plain(result_line(done)) == "alice wins the DM by resignation. Prize: 15 garnets."
    results = await rig.scheduler.results(7)
    assert [r.id for r in results] == [s.id]
    assert await rig.scheduler.results(8) == []
    # the same end heard again (a retry, the catch-up at a start): recorded once, nothing said twice
    told = rig.events.kinds().count("finished")
    await rig.scheduler.on_host_event([HostEvent(match_id, EventKind.FINISHED)] * 2)
    await rig.service.drained()
    assert await rig.scheduler.get(s.id) == done and rig.events.kinds().count("finished") == told == 1


async def test_checkin_after_start_begins_at_once(rig: Rig) -> None:
    s = await schedule(rig, hours=2)
    await until(rig, s.at + dt.timedelta(minutes=3))
    ((t, waiting),) = rig.events.of("waiting")
    assert t == s.at and waiting.data["missing"] == [1, 2]
    await rig.scheduler.check_in(s.id, BOB.id)
    assert rig.events.of("started") == []
    await rig.scheduler.check_in(s.id, ALICE.id)
    ((t, _),) = rig.events.of("started")
    assert t == s.at + dt.timedelta(minutes=3)


async def test_no_show_forfeit(rig: Rig) -> None:
    s = await schedule(rig, hours=2, prize="15 garnets")
    await until(rig, s.at - dt.timedelta(minutes=1))
    await rig.scheduler.check_in(s.id, BOB.id)
    await until(rig, s.at + dt.timedelta(minutes=30))
    ((t, ev),) = rig.events.of("forfeited")
    assert t == s.at + dt.timedelta(minutes=10)
    assert ev.data["winner"] == 2
    assert (
        plain(say("forfeited", ev.schedule, ev.data))
        == "alice did not check in. bob wins the DM by no-show. Prize: 15 garnets."
    )
    stored = await rig.service.store.load(ev.data["match"], with_events=True)
    assert stored is not None and stored.status == "finished" and stored.result_reason == "no_show"
    assert stored.players[stored.winner_seat or 0][0] == BOB.id
    assert [e.kind for e in stored.events] == ["created", "forfeit", "finished"]
    sched = await rig.scheduler.get(s.id)
    assert sched.public_status == "forfeited" and sched.match_id == ev.data["match"]
    assert rig.events.of("started") == []


async def test_both_absent_cancelled(rig: Rig) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at + dt.timedelta(hours=1))
    ((t, ev),) = rig.events.of("cancelled")
    assert t == s.at + dt.timedelta(minutes=10) and ev.data["reason"] == "no_show"
    sched = await rig.scheduler.get(s.id)
    assert sched.public_status == "cancelled" and sched.winner_seat is None and sched.match_id is None
    assert await rig.scheduler.results(7) == []


async def test_host_extends_then_start_anyway(rig: Rig) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at + dt.timedelta(minutes=5))
    await rig.scheduler.extend(s.id, 20, "host")
    await until(rig, s.at + dt.timedelta(minutes=25))
    assert rig.events.of("cancelled") == [] and rig.events.of("forfeited") == []
    ((_, ext),) = rig.events.of("extended")
    assert ext.data["until"] == s.at + dt.timedelta(minutes=30)
    await until(rig, s.at + dt.timedelta(minutes=31))
    assert [t for t, _ in rig.events.of("cancelled")] == [s.at + dt.timedelta(minutes=30)]

    s2 = await schedule(rig, hours=3)
    await until(rig, s2.at + dt.timedelta(minutes=2))
    started = await rig.scheduler.start_now(s2.id, "host")
    assert started.public_status == "started" and started.match_id in rig.service.live
    await until(rig, s2.at + dt.timedelta(hours=1))
    assert len(rig.events.of("started")) == 1 and len(rig.events.of("cancelled")) == 1


async def test_proposal_accepted_moves_reminders(rig: Rig) -> None:
    s = await schedule(rig, hours=30)
    later = s.at + dt.timedelta(hours=48)
    with pytest.raises(ScheduleError):
        await rig.scheduler.propose(s.id, "9999", later)
    await rig.scheduler.propose(s.id, ALICE.id, later)
    with pytest.raises(ScheduleError) as info:
        await rig.scheduler.accept(s.id, ALICE.id)
    assert info.value.code == "not_other"
    moved = await rig.scheduler.accept(s.id, BOB.id)
    assert moved.at == later and moved.proposed_at is None
    ((_, ev),) = rig.events.of("rescheduled")
    assert ev.data["before"] == s.at
    await until(rig, later + dt.timedelta(minutes=1))
    assert [t for t, _ in rig.events.of("reminder")] == [
        later - dt.timedelta(hours=24),
        later - dt.timedelta(hours=1),
        later - dt.timedelta(minutes=10),
    ]
    assert [t for t, _ in rig.events.of("waiting")] == [later]


async def test_cancel(rig: Rig) -> None:
    s = await schedule(rig, hours=2)
    other = await schedule(rig, hours=3)
    with pytest.raises(ScheduleError):
        await rig.scheduler.cancel(s.id, "host", guild_id=8)  # another server's DM is not there
    await rig.scheduler.cancel(s.id, "host", guild_id=7)
    with pytest.raises(ScheduleError):
        await rig.scheduler.cancel(s.id, "host")
    await until(rig, other.at + dt.timedelta(hours=1))
    assert all(e.schedule.id == other.id for _, e in rig.events.items if e.kind not in ("scheduled", "cancelled"))
    assert [e.schedule.id for _, e in rig.events.of("cancelled")] == [s.id, other.id]
    assert [u.id for u in await rig.scheduler.upcoming(7)] == []


async def test_away_across_a_reminder_and_the_start(rig: Rig) -> None:
    s = await schedule(rig, hours=5)
    await until(rig, s.at - dt.timedelta(hours=2))
    await rig.scheduler.close()  # the process stops 2 h before the start …
    await until(rig, s.at + dt.timedelta(minutes=30))  # … misses the 1 h and 10 min reminders and the start
    assert rig.events.of("reminder") == []
    await rig.restart()
    await asyncio.sleep(1)
    back = s.at + dt.timedelta(minutes=30)
    ((t, rem),) = rig.events.of("reminder")  # one late reminder, not two
    assert rem.data["late"] is True and rem.data["offset_s"] == 600 and t == back
    assert "missed while the host was away" in plain(say("reminder", rem.schedule, rem.data))
    assert [t for t, _ in rig.events.of("checkin_open")] == [back]
    # the deadline (start + 10 min) passed while the bot was away: absent players get the short return grace,
    # not the whole wait again
    assert (await rig.scheduler.get(s.id)).wait_until == back + dt.timedelta(seconds=RETURN_GRACE_S)
    await until(rig, back + dt.timedelta(seconds=RETURN_GRACE_S - 1))
    assert rig.events.of("cancelled") == []
    await rig.scheduler.check_in(s.id, ALICE.id)
    await rig.scheduler.check_in(s.id, BOB.id)
    assert len(rig.events.of("started")) == 1
    await until(rig, back + dt.timedelta(hours=1))
    assert len(rig.events.of("reminder")) == 1 and rig.events.of("cancelled") == []


async def test_two_processes_fire_each_job_once(rig: Rig) -> None:
    second_events = Events(rig.wall)
    second = make_scheduler(rig.service, second_events, rig.wall)
    try:
        schedules = [await schedule(rig, hours=h) for h in (2, 26, 50)]
        await second.start()
        await until(rig, BASE + dt.timedelta(hours=60))
        both = [(e.kind, e.schedule.id, e.data.get("offset_s")) for _, e in rig.events.items + second_events.items]
        reminders = [x for x in both if x[0] == "reminder"]
        assert len(reminders) == len(set(reminders)) == 2 + 3 + 3  # 2 h ahead: 1 h and 10 min; 26 h, 50 h: all three
        assert sorted(x[1] for x in both if x[0] == "cancelled") == [s.id for s in schedules]
    finally:
        await second.close()


async def test_claims_are_exclusive(rig: Rig) -> None:
    s = await schedule(rig, hours=1)
    await rig.scheduler.close()
    await until(rig, s.at + dt.timedelta(hours=1))
    a = Scheduler(ScheduleStore(rig.service.store.engine), rig.service, wall=rig.wall, poll_seconds=None)
    b = Scheduler(ScheduleStore(rig.service.store.engine), rig.service, wall=rig.wall, poll_seconds=None)
    seen = Events(rig.wall)
    a.publish = seen
    b.publish = seen
    counts = await asyncio.gather(a.run_due(), b.run_due())
    jobs = await rig.scheduler.store.jobs_of(s.id)
    assert sum(counts) == len(jobs) == 4  # 10 min reminder, check-in, start, no-show: each claimed by one
    assert {state for *_, state in jobs} <= {"done", "dropped"}
    assert sorted(seen.kinds()) == ["cancelled", "checkin_open", "reminder", "waiting"]


# -- the no-show forfeit is a match result like any other ------------------------------------------------
async def test_no_show_forfeit_publishes_the_finished_event_and_is_rated_at_once(rig: Rig) -> None:
    from bot.ratings.service import Ratings

    ratings = Ratings(rig.service.store, clock=rig.wall)
    hear(rig.service, ratings.on_finished, Stage.RECORD)
    heard: list[tuple[dt.datetime, Any]] = []
    hear(rig.service, lambda ev: heard.append((rig.wall(), ev)) if ev.kind == "finished" else None)
    s = await schedule(rig, hours=1)
    await until(rig, s.at - dt.timedelta(minutes=2))
    await rig.scheduler.check_in(s.id, BOB.id)
    assert await ratings.table(7, "boxes") == []
    ruling = s.at + dt.timedelta(minutes=10)
    await until(rig, ruling + dt.timedelta(seconds=1))
    ((t, ev),) = heard  # the same event a finished match publishes, at the ruling itself
    assert t == ruling and ev.data["reason"] == "no_show" and ev.data["winner_name"] == "bob"
    assert ev.detail["unplayed"] is True
    assert ev.result is not None and ev.result.winner_id == BOB.id and ev.result.reason == "no_show"
    ((_, forfeited),) = rig.events.of("forfeited")
    assert ev.match_id == forfeited.data["match"]
    await rig.service.drained()  # the ratings rate after the commit, in their own task
    table = {st.player_id: st for st in await ratings.table(7, "boxes")}  # rated by then: no catch-up needed
    assert table[BOB.id].wins == 1 and table[ALICE.id].losses == 1
    assert table[BOB.id].rating > 1500 > table[ALICE.id].rating
    assert (await ratings.of_match(ev.match_id)) is not None


# -- a restart keeps the appointment's deadline ----------------------------------------------------------
async def test_restart_during_the_wait_keeps_the_deadline(rig: Rig) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at - dt.timedelta(minutes=1))
    await rig.scheduler.check_in(s.id, BOB.id)
    await until(rig, s.at + dt.timedelta(minutes=3))
    await rig.scheduler.close()  # down from 3 to 6 minutes after the start
    await until(rig, s.at + dt.timedelta(minutes=6))
    await rig.restart()
    assert (await rig.scheduler.get(s.id)).wait_until == s.at + dt.timedelta(minutes=10)
    await until(rig, s.at + dt.timedelta(minutes=30))
    ((t, ev),) = rig.events.of("forfeited")
    assert t == s.at + dt.timedelta(minutes=10) and ev.data["winner"] == 2  # not 10 minutes after the return


async def test_restart_keeps_the_hosts_extension(rig: Rig) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at + dt.timedelta(minutes=5))
    await rig.scheduler.extend(s.id, 20, "host")  # until start + 30 min, stored
    await until(rig, s.at + dt.timedelta(minutes=12))
    await rig.scheduler.close()
    await until(rig, s.at + dt.timedelta(minutes=14))
    await rig.restart()
    assert (await rig.scheduler.get(s.id)).wait_until == s.at + dt.timedelta(minutes=30)
    await until(rig, s.at + dt.timedelta(hours=1))
    ((t, ev),) = rig.events.of("cancelled")
    assert t == s.at + dt.timedelta(minutes=30) and ev.data["reason"] == "no_show"


# -- a process that stops between its claim and the match never leaves two matches ----------------------
async def _matches(rig: Rig) -> int:
    from sqlalchemy import func, select

    from bot.store.db import Match

    async with rig.service.store.engine.connect() as conn:
        return int((await conn.execute(select(func.count()).select_from(Match))).scalar_one())


def _other(rig: Rig, starter: Any = None, events: Events | None = None) -> Scheduler:
    other = Scheduler(
        ScheduleStore(rig.service.store.engine), rig.service, wall=rig.wall, poll_seconds=None, starter=starter
    )
    if events is not None:
        other.publish = events
    return other


async def test_killed_between_claim_and_match_starts_once(rig: Rig) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at - dt.timedelta(minutes=1))
    await rig.scheduler.check_in(s.id, ALICE.id)
    await rig.scheduler.check_in(s.id, BOB.id)
    await rig.scheduler.close()
    hung = asyncio.Event()

    async def never(_s: Any) -> int:  # the first process claims the start, then stops before the match
        await hung.wait()
        raise AssertionError("unreachable")

    first = _other(rig, never)
    await first.start()
    await until(rig, s.at + dt.timedelta(seconds=1))
    assert (await rig.scheduler.get(s.id)).status == "starting"
    await first.close()  # killed in the middle
    second_events = Events(rig.wall)
    second = _other(rig, events=second_events)
    hear(rig.service, second.on_host_event, Stage.FOLLOW)
    try:
        await second.start()
        await until(rig, s.at + dt.timedelta(minutes=4))
        assert second_events.of("started") == [] and await _matches(rig) == 0  # the claim is not stale yet
        await until(rig, s.at + dt.timedelta(seconds=STALE_S + 2))
        ((t, started),) = second_events.of("started")
        assert t == s.at + dt.timedelta(seconds=STALE_S)
        assert await _matches(rig) == 1 and started.data["match"] in rig.service.live
        sched = await rig.scheduler.get(s.id)
        assert sched.public_status == "started" and sched.match_id == started.data["match"]
        await until(rig, s.at + dt.timedelta(hours=1))
        assert len(second_events.of("started")) == 1 and await _matches(rig) == 1
    finally:
        await second.close()


async def test_slow_claim_taken_over_cannot_store_a_second_match(rig: Rig) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at - dt.timedelta(minutes=1))
    await rig.scheduler.check_in(s.id, ALICE.id)
    await rig.scheduler.check_in(s.id, BOB.id)
    await rig.scheduler.close()
    go = asyncio.Event()
    slow_events = Events(rig.wall)

    async def slow(sched: Any) -> int:  # claims, then stalls past STALE_S before it creates the match
        await go.wait()
        return int(await slow_scheduler.create_match(sched))

    slow_scheduler = _other(rig, slow, slow_events)  # a host's "start now" in a process that then stalls
    slow_start = asyncio.create_task(slow_scheduler.start_now(s.id, "host"))
    await asyncio.sleep(1)
    assert (await rig.scheduler.get(s.id)).status == "starting"
    second_events = Events(rig.wall)
    second = _other(rig, events=second_events)
    try:
        await second.start()
        await until(rig, s.at + dt.timedelta(minutes=3))
        assert second_events.of("started") == []
        await until(rig, s.at + dt.timedelta(minutes=6))  # the other process takes the stale claim over
        ((t, started),) = second_events.of("started")
        assert t == s.at - dt.timedelta(minutes=1) + dt.timedelta(seconds=STALE_S)  # the claim, 5 min on
        go.set()
        with pytest.raises(ScheduleError):
            await slow_start
        assert await _matches(rig) == 1  # the slow process's match was refused with its lost claim
        assert [e.data.get("match") for _, e in slow_events.of("started")] == []
        assert len(slow_events.of("start_failed")) == 1
        sched = await rig.scheduler.get(s.id)
        assert sched.public_status == "started" and sched.match_id == started.data["match"]
    finally:
        await slow_scheduler.close()
        await second.close()


async def test_killed_while_ruling_on_a_no_show_forfeits_once(rig: Rig) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at - dt.timedelta(minutes=1))
    await rig.scheduler.check_in(s.id, BOB.id)
    await rig.scheduler.close()
    # the first process claims the ruling and stops before recording the forfeit
    token = "0" * 32
    await until(rig, s.at + dt.timedelta(minutes=10))
    assert await rig.scheduler.store.change(
        s.id, {"status": "forfeiting", "start_token": token}, only_if={"status": "scheduled"}
    )
    second_events = Events(rig.wall)
    second = _other(rig, events=second_events)
    try:
        await second.start()
        await until(rig, s.at + dt.timedelta(hours=1))
        ((t, ev),) = second_events.of("forfeited")
        assert t == s.at + dt.timedelta(minutes=10, seconds=STALE_S) and ev.data["winner"] == 2
        assert await _matches(rig) == 1
    finally:
        await second.close()
