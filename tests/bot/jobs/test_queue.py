"""The durable jobs module (`bot/jobs`) on a real SQLite file and a real PostgreSQL schema, on the event
loop's clock (looptime): a job runs at its time, once, however many runners share the database; a job
due while no process ran runs at the next start; a key added twice is one job; a failing handler is
retried; an ambiguous claim never runs a job twice."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from bot.jobs import Job, JobQueue, Later, NewJob, Scope
from bot.jobs import store as job_store
from bot.store.db import make_engine, migrate
from tests import heard

pytestmark = pytest.mark.looptime

BASE = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)


def virtual_wall() -> Callable[[], dt.datetime]:
    """Wall time moving with the loop's clock (looptime starts each test at loop time 0 = BASE)."""
    loop = asyncio.get_running_loop()
    return lambda: BASE + dt.timedelta(seconds=loop.time())


class Ran:
    """A handler that notes (wall time, key) of every job it runs."""

    def __init__(self, wall: Callable[[], dt.datetime], who: str = "") -> None:
        self.wall, self.who = wall, who
        self.items: list[tuple[dt.datetime, str, str]] = []

    async def __call__(self, job: Job) -> None:
        self.items.append((self.wall(), job.key, self.who))

    def keys(self) -> list[str]:
        return [k for _, k, _ in self.items]


@pytest.fixture
async def url(db_url: str) -> AsyncIterator[str]:
    await migrate(db_url)
    yield db_url


async def make_queue(url: str, wall: Callable[[], dt.datetime], **kw: Any) -> JobQueue:
    return JobQueue(make_engine(url), clock=wall, poll_s=None, **kw)


async def shut(*queues: JobQueue) -> None:
    for q in queues:
        await q.close()
        await q.engine.dispose()


async def test_a_job_runs_at_its_time_once(url: str) -> None:
    wall = virtual_wall()
    q = await make_queue(url, wall)
    ran = Ran(wall)
    q.register("ping", ran)
    q.start()
    try:
        await q.add("ping", "ping:1", BASE + dt.timedelta(hours=2), {"n": 1})
        await q.add("ping", "ping:0", BASE + dt.timedelta(hours=1))  # earlier than the runner sleeps: it wakes
        await asyncio.sleep(3 * 3600)
        assert ran.items == [
            (BASE + dt.timedelta(hours=1), "ping:0", ""),
            (BASE + dt.timedelta(hours=2), "ping:1", ""),
        ]
        done = await q.get("ping:1")
        assert done is not None and done.done and done.attempts == 1 and done.payload == {"n": 1}
    finally:
        await shut(q)


async def test_the_same_key_twice_is_one_job(url: str) -> None:
    wall = virtual_wall()
    q = await make_queue(url, wall)
    ran = Ran(wall)
    q.register("ping", ran)
    q.start()
    try:
        await q.add("ping", "ping:a", BASE + dt.timedelta(minutes=10), {"v": 1})
        await q.add("ping", "ping:a", BASE + dt.timedelta(minutes=20), {"v": 2})  # moved, not doubled
        assert [(j.due, j.payload) for j in await q.listing("ping:")] == [(BASE + dt.timedelta(minutes=20), {"v": 2})]
        await asyncio.sleep(3600)
        assert ran.items == [(BASE + dt.timedelta(minutes=20), "ping:a", "")]
        await q.add("ping", "ping:a", BASE + dt.timedelta(hours=2))  # added again once run: pending anew
        await asyncio.sleep(2 * 3600)
        assert ran.keys() == ["ping:a", "ping:a"] and len(await q.listing("ping:")) == 1
        await q.add("ping", "ping:b", BASE + dt.timedelta(hours=5))
        assert await q.cancel("ping:b") and not await q.cancel("ping:b")
        await asyncio.sleep(3 * 3600)
        assert ran.keys() == ["ping:a", "ping:a"]
    finally:
        await shut(q)


async def test_two_runners_on_one_database_run_each_job_once(url: str) -> None:
    wall = virtual_wall()
    a, b = await make_queue(url, wall, instance="a"), await make_queue(url, wall, instance="b")
    ran_a, ran_b = Ran(wall, "a"), Ran(wall, "b")
    a.register("ping", ran_a)
    b.register("ping", ran_b)
    await a.add_all([NewJob("ping", f"ping:{n}", BASE + dt.timedelta(seconds=n % 7)) for n in range(40)])
    await asyncio.sleep(10)
    counts = await asyncio.gather(a.run_due(), b.run_due(), a.run_due(), b.run_due())
    try:
        keys = sorted(ran_a.keys() + ran_b.keys())
        assert keys == sorted(f"ping:{n}" for n in range(40))  # every job, none twice
        assert sum(counts) == 40
        a.start()
        b.start()
        await a.add("ping", "ping:late", BASE + dt.timedelta(minutes=5))
        await asyncio.sleep(600)
        assert (ran_a.keys() + ran_b.keys()).count("ping:late") == 1
    finally:
        await shut(a, b)


async def test_a_job_due_while_no_process_ran_runs_at_the_next_start(url: str) -> None:
    wall = virtual_wall()
    first = await make_queue(url, wall)
    first.register("ping", Ran(wall))
    first.start()
    await first.add("ping", "ping:away", BASE + dt.timedelta(hours=1))
    await shut(first)  # the process stops before the job's time
    await asyncio.sleep(5 * 3600)
    second = await make_queue(url, wall)
    ran = Ran(wall)
    second.register("ping", ran)
    restart = wall()
    second.start()
    try:
        await asyncio.sleep(60)
        ((at, key, _),) = ran.items
        assert key == "ping:away" and restart <= at <= restart + dt.timedelta(seconds=1)
    finally:
        await shut(second)


async def test_a_failing_handler_is_retried_a_few_seconds_later(url: str) -> None:
    wall = virtual_wall()
    q = await make_queue(url, wall, retry_s=5.0)
    tries: list[dt.datetime] = []

    async def flaky(job: Job) -> None:
        tries.append(wall())
        if len(tries) < 3:
            raise ConnectionError("injected: the handler's work failed")

    q.register("flaky", flaky)
    q.start()
    try:
        await q.add("flaky", "flaky:1", BASE + dt.timedelta(minutes=1))
        await asyncio.sleep(600)
        start = BASE + dt.timedelta(minutes=1)
        assert tries == [start, start + dt.timedelta(seconds=5), start + dt.timedelta(seconds=10)]
        job = await q.get("flaky:1")
        assert job is not None and job.done and job.attempts == 3
    finally:
        await shut(q)


@pytest.mark.slow  # polls the database through a 300 s lease (on looptime's clock)
async def test_a_claim_left_by_a_stopped_runner_is_taken_up_after_the_lease(url: str) -> None:
    wall = virtual_wall()
    q = await make_queue(url, wall, lease_s=300.0)
    await q.add("ping", "ping:held", BASE)
    async with q.engine.begin() as conn:  # a runner claimed it, then its process stopped
        held = wall()
        (job,) = await job_store.due(conn, held, held, ["ping"], Scope(), 10)
        assert await job_store.claim(conn, job.id, "gone:1", held, held - q.lease)
    ran = Ran(wall)
    q.register("ping", ran)
    q.start()
    try:
        await asyncio.sleep(400)
        ((at, key, _),) = ran.items  # once the claim is 300 s old, not before
        assert key == "ping:held" and held + q.lease <= at <= held + q.lease + dt.timedelta(seconds=1)
    finally:
        await shut(q)


@pytest.mark.parametrize("fault", ["failed", "ambiguous"])
async def test_a_lost_claim_commit_never_runs_a_job_twice(url: str, fault: str) -> None:
    wall = virtual_wall()
    a, b = await make_queue(url, wall, instance="a"), await make_queue(url, wall, instance="b")
    ran_a, ran_b = Ran(wall, "a"), Ran(wall, "b")
    a.register("ping", ran_a)
    b.register("ping", ran_b)
    await a.add("ping", "ping:1", BASE)
    real, left = job_store.claim, [1]

    async def claim(conn: Any, job_id: int, token: str, now: dt.datetime, stale: dt.datetime) -> bool:
        if left and token.startswith("a:"):
            left.pop()
            if fault == "ambiguous":
                await real(conn, job_id, token, now, stale)
                await conn.commit()
            raise OperationalError("UPDATE", {}, ConnectionError("injected: the commit's answer was lost"))
        return await real(conn, job_id, token, now, stale)

    job_store.claim = claim  # type: ignore[assignment]
    try:
        with pytest.raises(OperationalError) if fault == "failed" else _nothing():
            await a.run_due()
        await b.run_due()
        await a.run_due()
    finally:
        job_store.claim = real  # type: ignore[assignment]
        await shut(a, b)
    assert left == []
    assert len(ran_a.items) + len(ran_b.items) == 1
    assert (ran_a.items if fault == "ambiguous" else ran_b.items)[0][1] == "ping:1"


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


async def test_the_database_clock_is_aware_utc(url: str) -> None:
    q = JobQueue(make_engine(url))
    try:
        now = await q.now()
        real = dt.datetime.now(dt.UTC)
        assert now.tzinfo is not None and abs((now - real).total_seconds()) < 120
    finally:
        await q.engine.dispose()


async def test_a_runner_claims_only_its_kinds_and_its_shards(url: str) -> None:
    wall = virtual_wall()
    guild_on_0 = 4 << 22  # shard 0 of 2: (guild >> 22) % 2
    guild_on_1 = 5 << 22  # shard 1 of 2
    q = await make_queue(url, wall, scope=Scope(shards=(2, [1]), local=False))
    ran = Ran(wall)
    q.register("ping", ran)
    await q.add_all(
        [
            NewJob("ping", "ping:s0", BASE, scope=guild_on_0),
            NewJob("ping", "ping:s1", BASE, scope=guild_on_1),
            NewJob("ping", "ping:local", BASE),
            NewJob("other", "other:s1", BASE, scope=guild_on_1),
        ]
    )
    try:
        assert await q.run_due() == 1
        assert ran.keys() == ["ping:s1"]
    finally:
        await shut(q)


async def test_jobs_run_together_are_each_claimed_once_by_two_runners(url: str) -> None:
    wall = virtual_wall()
    a, b = await make_queue(url, wall, instance="a"), await make_queue(url, wall, instance="b")
    ran_a, ran_b = Ran(wall, "a"), Ran(wall, "b")
    a.register("many", ran_a, together=True)
    b.register("many", ran_b, together=True)
    try:
        due = BASE + dt.timedelta(minutes=5)
        await a.add_all([NewJob("many", f"many:{i}", due) for i in range(40)])
        a.start()
        b.start()
        await asyncio.sleep(600)
        keys = ran_a.keys() + ran_b.keys()
        assert sorted(keys) == sorted(f"many:{i}" for i in range(40))  # each once, by one of the two
        assert all(at == due for at, _k, _w in ran_a.items + ran_b.items)
        assert all(j.done and j.attempts == 1 for j in await a.listing("many:"))
    finally:
        await shut(a, b)


async def test_a_job_given_back_for_another_process_waits_and_logs_no_error(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    wall = virtual_wall()
    q = await make_queue(url, wall)
    tries: list[dt.datetime] = []

    async def elsewhere(job: Job) -> None:
        tries.append(wall())
        if len(tries) < 3:
            raise Later(30.0)

    q.register("far", elsewhere, together=True)
    q.start()
    try:
        await q.add("far", "far:1", BASE + dt.timedelta(minutes=1))
        await asyncio.sleep(600)
        assert [(t - BASE).total_seconds() for t in tries] == [60.0, 90.0, 120.0]
        job = await q.get("far:1")
        assert job is not None and job.done and job.attempts == 3
        assert not [r for r in caplog.records if r.levelname == "ERROR"]
    finally:
        await shut(q)


class Hung:
    """A handler that notes when each run began and returns only once `go` is set (a job in the middle)."""

    def __init__(self, wall: Callable[[], dt.datetime]) -> None:
        self.wall = wall
        self.go = asyncio.Event()
        self.began: list[tuple[dt.datetime, str]] = []

    async def __call__(self, job: Job) -> None:
        self.began.append((self.wall(), job.key))
        await self.go.wait()


@pytest.mark.parametrize("together", [False, True])
async def test_a_runner_stopped_in_the_middle_of_a_job_leaves_it_to_another_within_the_lease(
    url: str, together: bool
) -> None:
    wall = virtual_wall()
    a, b = await make_queue(url, wall, instance="a"), await make_queue(url, wall, instance="b")
    hung, ran = Hung(wall), Ran(wall, "b")
    a.register("ping", hung, together=together)
    b.register("ping", ran, together=together)
    assert a.lease == dt.timedelta(seconds=15)  # the default: short, since the claims of a live runner are kept
    try:
        await a.add("ping", "ping:1", BASE + dt.timedelta(minutes=1))
        a.start()
        await asyncio.sleep(61)
        assert [k for _t, k in hung.began] == ["ping:1"]
        b.start()
        await asyncio.sleep(60)  # four leases: the claim of the live runner a is kept, b leaves the job alone
        assert ran.items == []
        await a.close(finish_s=0)  # the process stops (its task cancelled, the handler never ends)
        stopped = wall()
        await asyncio.sleep(60)
        ((at, key, _),) = ran.items  # taken up once the last refresh is a lease old, not 300 s later
        assert key == "ping:1" and stopped < at <= stopped + b.lease
        job = await b.get("ping:1")
        assert job is not None and job.done and job.attempts == 2
    finally:
        await shut(a, b)


@pytest.mark.parametrize("together", [False, True])
async def test_a_handler_running_longer_than_the_lease_keeps_its_job_and_runs_once(url: str, together: bool) -> None:
    wall = virtual_wall()
    a, b = await make_queue(url, wall, instance="a"), await make_queue(url, wall, instance="b")
    runs: list[tuple[dt.datetime, str]] = []

    def slow(who: str) -> Callable[[Job], Any]:
        async def handler(job: Job) -> None:
            runs.append((wall(), who))
            await asyncio.sleep(100)  # more than six leases

        return handler

    a.register("slow", slow("a"), together=together)
    b.register("slow", slow("b"), together=together)
    try:
        due = BASE + dt.timedelta(minutes=1)
        await a.add_all([NewJob("slow", "slow:1", due), NewJob("slow", "slow:2", due + dt.timedelta(seconds=30))])
        a.start()
        b.start()
        await asyncio.sleep(600)
        assert sorted(at for at, _who in runs) == [due, due + dt.timedelta(seconds=30)]  # each once, at its time
        assert [(j.done, j.attempts) for j in await a.listing("slow:")] == [(True, 1), (True, 1)]
        assert not a._held and not b._held
    finally:
        await shut(a, b)


async def test_a_claim_taken_from_a_frozen_runner_is_logged_and_never_run_twice_by_it(url: str) -> None:
    wall = virtual_wall()
    a, b = await make_queue(url, wall, instance="a"), await make_queue(url, wall, instance="b")
    hung, ran = Hung(wall), Ran(wall, "b")
    a.register("ping", hung)
    b.register("ping", ran)
    await a.add("ping", "ping:1", BASE)
    with heard("bot.jobs.queue", logging.INFO) as said:  # on the logger itself: no other test's set-up hides it
        try:
            running = asyncio.create_task(a.run_due())
            await asyncio.sleep(1)
            assert [k for _t, k in hung.began] == ["ping:1"]
            keeper = a._keeper
            assert keeper is not None
            keeper.cancel()  # a's process is frozen: its claim is not refreshed
            await asyncio.sleep(a.lease.total_seconds() + 1)
            assert await asyncio.wait_for(a.run_due(), 5) == 0  # stale, yet a runs it still: no second run here
            assert await b.run_due() == 1 and ran.keys() == ["ping:1"]  # another runner takes it over
            job = await a.get("ping:1")
            assert job is not None
            assert await a.refresh() == {job.id}  # a thaws: its next refresh finds its claim gone
            assert [r.levelname for r in said if "claim is gone" in r.getMessage()] == ["INFO"]
            hung.go.set()
            assert await running == 1  # its run ends quietly; the job stays b's (done under b's claim)
            job = await a.get("ping:1")
            assert job is not None and job.done and job.attempts == 2 and job.claimed_by is not None
            assert job.claimed_by.startswith("b:") and not a._held
            assert not [r for r in said if r.levelname == "ERROR"]
        finally:
            await shut(a, b)
