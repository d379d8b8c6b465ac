"""Correspondence deadlines as durable jobs (`bot/host/deadlines.py`, issue 41 item 2), through the real service
and store on SQLite and PostgreSQL, on the event loop's clock (looptime, the wall clock following it): the job
moves in the commit of the action that sets the clock (a move, a pause, a vacation, the end; and not when that
commit fails), a match stored without one gets it at start, a restart rules every deadline that passed
meanwhile and reminds once per move, two services on one database rule a deadline once, and deadlines claimed by
a process that died are ruled by the next within the jobs' short lease (not 300 s later)."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from sqlalchemy import delete, insert

from bot.host.deadlines import KIND, job_key
from bot.host.service import MatchService, PlayerRef
from bot.jobs import Job, JobQueue
from bot.jobs.table import JOBS
from bot.store.db import MatchEvent, make_engine
from tests.bot.conftest import Recorder, make_service

ALICE, BOB = PlayerRef("a", "alice"), PlayerRef("b", "bob")
HOUR = 3600
DAY = 86400
GUILD = 7
T0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
pytestmark = pytest.mark.looptime


def _wall() -> dt.datetime:
    return T0 + dt.timedelta(seconds=asyncio.get_running_loop().time())


async def _service(url: str, rec: Recorder) -> MatchService:
    return await make_service(url, rec, heartbeat_seconds=3600.0, wall=_wall)


async def _stop(service: MatchService) -> None:
    await service.close()
    await service.store.close()


async def _corr(service: MatchService, move: str, remind: str = "0.8") -> int:
    clock = {"kind": "correspondence", "move": move, "remind": remind}
    return await service.create_match(
        "boxes", [ALICE, BOB], options={"rows": 2, "cols": 2}, clock=clock, guild_id=GUILD, channel_id=11
    )


async def _job(service: MatchService, match_id: int) -> Job:
    job = await service.deadlines.queue.get(job_key(match_id))
    assert job is not None
    return job


def _near(a: dt.datetime, b: dt.datetime) -> bool:
    return abs((a - b).total_seconds()) < 1


async def test_the_job_moves_with_each_action_in_its_commit_and_not_when_the_commit_fails(
    migrated_db_url: str,
) -> None:
    service = await _service(migrated_db_url, Recorder())
    match_id = await _corr(service, "1d", remind="0")
    created = service.wall()
    job = await _job(service, match_id)
    assert (job.kind, job.scope, job.payload, job.done) == ("corr", GUILD, {"match": match_id}, False)
    assert _near(job.due, created + dt.timedelta(days=1))  # alice's day, stored with the match itself

    await asyncio.sleep(10 * HOUR)
    assert (await service.submit(match_id, ALICE.id, "A1-B1")).status == "accepted"
    moved = service.wall()
    assert _near((await _job(service, match_id)).due, moved + dt.timedelta(days=1))  # bob's day now

    # bob's move cannot be stored (its log entry's place is taken): neither is its new deadline
    async with service.store.engine.begin() as conn:
        live = service.get(match_id)
        await conn.execute(insert(MatchEvent).values(match_id=match_id, seq=live.seq, kind="chat", data={}))
    await asyncio.sleep(HOUR)
    assert (await service.submit(match_id, BOB.id, "A2-B2")).status == "rejected"
    assert _near((await _job(service, match_id)).due, moved + dt.timedelta(days=1))
    async with service.store.engine.begin() as conn:
        await conn.execute(delete(MatchEvent).where(MatchEvent.kind == "chat"))

    await service.pause(match_id, by="host")  # paused: no deadline
    assert (await _job(service, match_id)).done
    await asyncio.sleep(5 * DAY)
    await service.resume(match_id, by="host")  # the day goes on from where it stood
    job = await _job(service, match_id)
    assert not job.done and _near(job.due, service.wall() + dt.timedelta(days=1, hours=-1))
    deadline = job.due
    back = service.wall() + dt.timedelta(days=3)
    assert await service.set_away(BOB.id, GUILD, back) == [match_id]  # bob on move, on vacation: his clock stands
    assert _near((await _job(service, match_id)).due, back)
    await asyncio.sleep(HOUR)
    assert await service.set_away(BOB.id, GUILD, None) == [match_id]  # back early: his day runs on
    assert _near((await _job(service, match_id)).due, deadline + dt.timedelta(hours=1))
    await service.resign(match_id, BOB.id)  # over: the job is dropped with the result
    assert (await _job(service, match_id)).done
    await _stop(service)


async def test_a_restart_rules_what_passed_meanwhile_and_reminds_once_per_move(migrated_db_url: str) -> None:
    first = await _service(migrated_db_url, Recorder())
    match_id = await _corr(first, "1d", remind="0.5")
    started = first.wall()
    await _stop(first)
    await asyncio.sleep(13 * HOUR)  # the reminder (at 12 h) passes while no host runs

    rec = Recorder()
    second = await _service(migrated_db_url, rec)
    back = asyncio.get_running_loop().time()
    await asyncio.sleep(1)
    assert [e.kind for _t, e in rec.events] == ["resumed", "reminder"]
    assert rec.of("reminder")[0][0] - back < 1  # ruled at the start, not built by a look-up
    job = await _job(second, match_id)
    assert not job.done and _near(job.due, started + dt.timedelta(days=1))  # the loss on time is next
    await _stop(second)

    rec = Recorder()
    third = await _service(migrated_db_url, rec)  # after the reminder: none again, the loss on time comes
    assert third.live.idle.keys() == {match_id}
    await asyncio.sleep(12 * HOUR)
    assert [e.kind for _t, e in rec.events] == ["resumed", "finished"]
    ((at, finished),) = rec.of("finished")
    assert finished.data["reason"] == "time" and abs(at - (started + dt.timedelta(days=1) - T0).total_seconds()) < 1
    stored = await third.store.load(match_id, with_events=True)
    assert stored is not None and [e.kind for e in stored.events].count("reminder") == 1
    assert (await _job(third, match_id)).done
    await _stop(third)


async def test_two_services_on_one_database_rule_each_deadline_once(migrated_db_url: str) -> None:
    first = await _service(migrated_db_url, Recorder())
    match_id = await _corr(first, "1h")
    await _stop(first)

    one, two = Recorder(), Recorder()
    a = await _service(migrated_db_url, one)
    b = await _service(migrated_db_url, two)
    assert a.live.idle.keys() == b.live.idle.keys() == {match_id}
    await asyncio.sleep(2 * HOUR)
    ruled = [e.kind for rec in (one, two) for _t, e in rec.events if e.kind in ("reminder", "finished")]
    assert sorted(ruled) == ["finished", "reminder"]  # each by one of them
    stored = await a.store.load(match_id, with_events=True)
    assert stored is not None and stored.status == "finished" and stored.result_reason == "time"
    kinds = [e.kind for e in stored.events]
    assert kinds.count("reminder") == 1 and kinds.count("timeout") == 1
    job = await _job(a, match_id)
    assert job.done and job.attempts <= 1
    await _stop(a)
    await _stop(b)


async def test_a_match_stored_before_deadlines_were_jobs_gets_its_job_at_start(migrated_db_url: str) -> None:
    first = await _service(migrated_db_url, Recorder())
    match_id = await _corr(first, "1d", remind="0")
    paused = await _corr(first, "1d", remind="0")
    await first.pause(paused, by="host")
    started = first.wall()
    async with first.store.engine.begin() as conn:  # as an older version left them: no job
        await conn.execute(delete(JOBS))
    await _stop(first)

    rec = Recorder()
    second = await _service(migrated_db_url, rec)
    assert second.live.idle.keys() == {match_id, paused}  # neither built to stay idle
    assert _near((await _job(second, match_id)).due, started + dt.timedelta(days=1))
    assert await second.deadlines.queue.get(job_key(paused)) is None  # paused: nothing due
    await asyncio.sleep(DAY + 60)
    assert [(e.kind, e.match_id) for _t, e in rec.events] == [("resumed", match_id), ("finished", match_id)]
    await _stop(second)


async def test_deadlines_claimed_by_a_process_that_died_are_ruled_within_the_lease(migrated_db_url: str) -> None:
    first = await _service(migrated_db_url, Recorder())
    matches = [await _corr(first, "1h", remind="0") for _ in range(3)]
    await _stop(first)
    await asyncio.sleep(2 * HOUR)  # every deadline passes while no host runs

    # the next process's runner claims the overdue deadlines in one statement (as the service registers them)
    # and keeps the claims while it rules; it dies before ruling any
    dying = JobQueue(make_engine(migrated_db_url), clock=_wall, poll_s=None, instance="dying")
    ruling = asyncio.Event()
    claimed: list[str] = []

    async def never_ends(job: Job) -> None:
        claimed.append(job.key)
        await ruling.wait()

    dying.register(KIND, never_ends, together=True)
    dying.start()
    rec = Recorder()
    try:
        await asyncio.sleep(1)
        assert sorted(claimed) == sorted(job_key(m) for m in matches)
        later = await _service(migrated_db_url, rec)
        await asyncio.sleep(60)  # the dying process lives on a while: its claims are kept, nothing is ruled twice
        assert rec.of("finished") == []
        await dying.close(finish_s=0)  # SIGKILL: the claims stay, no longer refreshed
        died = asyncio.get_running_loop().time()
        await asyncio.sleep(60)
        ruled = rec.of("finished")
        assert sorted(e.match_id for _t, e in ruled) == sorted(matches)  # each once
        assert all(died < t <= died + dying.lease.total_seconds() for t, _e in ruled)  # not 300 s later
        assert all(e.data["reason"] == "time" for _t, e in ruled)
        for match_id in matches:
            job = await _job(later, match_id)
            assert job.done and job.attempts == 2
        await _stop(later)
    finally:
        await dying.close()
        await dying.engine.dispose()
