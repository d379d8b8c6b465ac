"""Claims that die with their process, jobs that go to their host (issue 47, 1-3), on a real SQLite file and a
real PostgreSQL schema, on the loop's clock: a claim a dead process left is taken over at once (a process of
this machine that no longer runs; one whose heartbeat is old), not after the lease; a live one's claim is
not; a runner given `keys` takes only those jobs; `Later` leaves a job due at its time for its own runner."""

from __future__ import annotations

import asyncio
import datetime as dt
import socket
import subprocess
import sys

import pytest
from sqlalchemy import insert, update

from bot.jobs import Job, JobQueue, Later
from bot.jobs.queue import LEASE_S
from bot.jobs.table import JOBS
from bot.store.db import Heartbeat
from tests.bot.jobs.test_queue import BASE, Ran, make_queue, shut, url, virtual_wall  # noqa: F401

pytestmark = pytest.mark.looptime


def gone_pid() -> int:
    """The id of a process of this machine that ran and is over (reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


async def claim_as(q: JobQueue, key: str, token: str, at: dt.datetime) -> None:
    """The job claimed under `token` at `at` (as another runner would have, before it died or while it lives)."""
    async with q.engine.begin() as conn:
        await conn.execute(update(JOBS).where(JOBS.c.key == key).values(claimed_by=token, claimed_at=at))


async def beat(q: JobQueue, instance: str, at: dt.datetime) -> None:
    async with q.engine.begin() as conn:
        done = await conn.execute(update(Heartbeat).where(Heartbeat.instance == instance).values(at=at))
        if not done.rowcount:
            await conn.execute(insert(Heartbeat).values(instance=instance, loop_time=0.0, at=at))


def seconds(at: dt.datetime) -> float:
    return (at - BASE).total_seconds()


async def test_a_claim_left_by_a_process_of_this_machine_that_died_is_taken_over_at_once(url: str) -> None:  # noqa: F811
    wall = virtual_wall()
    q = await make_queue(url, wall)
    ran = Ran(wall)
    q.register("t", ran)
    try:
        await q.add("t", "t:dead", BASE + dt.timedelta(seconds=10))
        dead = f"host:{socket.gethostname()[:24]}:{gone_pid()}:abcd1234:0123456789ab"
        await claim_as(q, "t:dead", dead, BASE + dt.timedelta(seconds=10))
        await asyncio.sleep(9)
        q.start()
        await asyncio.sleep(11)
        assert ran.keys() == ["t:dead"]
        assert seconds(ran.items[0][0]) < 10.5  # at its time: not when the claim would go stale (25 s)
        job = await q.get("t:dead")
        assert job is not None and job.done and job.claimed_by is not None and job.claimed_by.startswith(q.owner)
    finally:
        await shut(q)


async def test_a_claim_of_a_process_whose_heartbeat_is_old_is_taken_over_a_live_ones_is_not(url: str) -> None:  # noqa: F811
    wall = virtual_wall()
    q = await make_queue(url, wall)
    ran = Ran(wall)
    q.register("t", ran)
    alive = True

    async def beating() -> None:  # a live runner elsewhere: its process's heartbeat, its claim kept alive
        while alive:
            await beat(q, "far-alive", wall())
            if wall() >= BASE + dt.timedelta(seconds=10):
                await claim_as(q, "t:b", "far-alive:0123456789ab", wall())
            await asyncio.sleep(1)

    beats = asyncio.create_task(beating())
    try:
        await beat(q, "far-dead", BASE)  # its last sign of life: at the start
        for key in ("t:a", "t:b"):
            await q.add("t", key, BASE + dt.timedelta(seconds=10))
        await claim_as(q, "t:a", "far-dead:0123456789ab", BASE + dt.timedelta(seconds=10))
        await claim_as(q, "t:b", "far-alive:0123456789ab", BASE + dt.timedelta(seconds=10))
        await asyncio.sleep(9)
        q.start()
        await asyncio.sleep(4)
        assert ran.keys() == ["t:a"] and seconds(ran.items[0][0]) < 10.5  # dead (its heartbeat 10 s old): at once
        await asyncio.sleep(2 * LEASE_S)
        assert ran.keys() == ["t:a"]  # alive: its claim is its own while it keeps it
        alive = False
        stopped = seconds(wall())
        await asyncio.sleep(10)
        assert ran.keys() == ["t:a", "t:b"]  # it died: taken over once its heartbeat is 5 s old, not after the lease
        assert stopped + 4 <= seconds(ran.items[1][0]) <= stopped + 6.5
    finally:
        alive = False
        beats.cancel()
        await asyncio.gather(beats, return_exceptions=True)
        await shut(q)


async def test_a_runner_given_keys_takes_only_those(url: str) -> None:  # noqa: F811
    wall = virtual_wall()
    q = await make_queue(url, wall)
    ran = Ran(wall)
    hosted = {"corr:1"}
    q.register("corr", ran, together=True, keys=lambda: hosted)
    q.start()
    try:
        for key in ("corr:1", "corr:2"):
            await q.add("corr", key, BASE + dt.timedelta(seconds=5))
        await asyncio.sleep(60)
        assert ran.keys() == ["corr:1"]
        other = await q.get("corr:2")
        assert other is not None and not other.done and other.attempts == 0 and other.claimed_by is None
        hosted.add("corr:2")  # now hosted here (a match resumed): taken at the next look
        q.wake()
        await asyncio.sleep(1)
        assert ran.keys() == ["corr:1", "corr:2"]
    finally:
        await shut(q)


async def test_later_leaves_the_job_due_at_its_time_for_its_own_runner(url: str) -> None:  # noqa: F811
    wall = virtual_wall()
    elsewhere, host = await make_queue(url, wall), await make_queue(url, wall)
    tries: list[float] = []

    async def not_mine(job: Job) -> None:
        tries.append(seconds(wall()))
        raise Later(30.0)

    ran = Ran(wall)
    elsewhere.register("m", not_mine)
    elsewhere.start()
    try:
        await elsewhere.add("m", "m:1", BASE + dt.timedelta(seconds=10))
        await asyncio.sleep(12)
        assert tries == [10.0]
        job = await host.get("m:1")
        assert job is not None and job.due == BASE + dt.timedelta(seconds=10) and job.claimed_by is None
        host.register("m", ran)
        host.start()
        await asyncio.sleep(1)
        assert ran.keys() == ["m:1"] and seconds(ran.items[0][0]) < 13.5  # at once: never pushed to 40 s
        await asyncio.sleep(60)
        assert tries == [10.0]  # the other runner left it alone meanwhile, and it is done now
    finally:
        await shut(elsewhere, host)
