"""Shard leases and fencing in the store, on SQLite and PostgreSQL: all shards at once or none, a live
owner's shards are not taken, an expired or released lease is taken with a higher epoch, and a write
by a writer whose epoch is stale is refused in its own transaction — alone or inside a group commit."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import pytest
from sqlalchemy import select

from bot.host.service import MatchService, PlayerRef
from bot.store.leases import Fencing, LeaseLost, LeaseTable, db_now
from bot.store.matches import MatchStore
from tests.buses import hear

A, B, C, D = PlayerRef("a", "alice"), PlayerRef("b", "bob"), PlayerRef("c", "carol"), PlayerRef("d", "dave")
G0, G1 = (2 << 22) + 1, (3 << 22) + 1  # guilds on shard 0 and shard 1 of 2


@pytest.fixture
async def store(migrated_db_url: str) -> Any:
    s = MatchStore(migrated_db_url)
    await s.open()
    yield s
    await s.close()


async def test_all_shards_or_none_and_epochs_rise(store: MatchStore) -> None:
    first = LeaseTable(store.engine, "first", [0, 1], lease_seconds=60)
    second = LeaseTable(store.engine, "second", [1, 2], lease_seconds=60)
    assert await first.acquire() == {0: 1, 1: 1}
    assert await second.acquire() is None  # shard 1 is held: shard 2 is not taken either
    assert {h.shard: h.owner for h in await second.holders()} == {1: "first"}
    assert await first.renew({0: 1, 1: 1}) == set()
    await first.release({0: 1, 1: 1})
    assert await second.acquire() == {1: 2, 2: 1}
    assert await first.renew({0: 1, 1: 1}) == {0, 1}  # released, then taken: lost


async def test_an_expired_lease_is_taken_over(store: MatchStore) -> None:
    first = LeaseTable(store.engine, "first", [0], lease_seconds=0.2)
    second = LeaseTable(store.engine, "second", [0], lease_seconds=60)
    assert await first.acquire() == {0: 1}
    assert await second.acquire() is None
    await asyncio.sleep(0.3)
    assert await second.acquire() == {0: 2}
    assert await first.renew({0: 1}) == {0}


async def test_a_stale_epoch_is_refused_and_writes_nothing_even_in_a_group_commit(store: MatchStore) -> None:
    owner = LeaseTable(store.engine, "me", [0, 1], lease_seconds=60)
    epochs = await owner.acquire()
    assert epochs is not None
    store.fencing = Fencing("me", 2)
    store.fencing.hold(epochs)
    lost: list[set[int]] = []
    store.fencing.on_lost.append(lost.append)
    service = MatchService(store, owns_guild=store.fencing.holds)
    await service.start()
    try:
        m0 = await service.create_match("boxes", [A, B], guild_id=G0)
        m1 = await service.create_match("boxes", [C, D], guild_id=G1)
        # shard 0 is taken over behind this process's back (it was stalled past its lease)
        await owner.release({0: epochs[0]})
        thief = LeaseTable(store.engine, "thief", [0], lease_seconds=60)
        assert await thief.acquire() == {0: epochs[0] + 1}
        r0, r1 = await asyncio.gather(service.submit(m0, A.id, "A1-B1"), service.submit(m1, C.id, "A1-B1"))
        assert r0.status == "rejected" and r1.status == "accepted"
        assert r0.refusal is not None and r0.refusal.code == "taken_over"  # the truth, not "the match is over"
        assert lost == [{0}] and m0 not in service.live and m1 in service.live
        stored0 = await store.load(m0, with_events=True)
        assert stored0 is not None and [e.kind for e in stored0.events] == ["created"]  # nothing written
        with pytest.raises(LeaseLost):
            await store.create_match(
                game="boxes", options={}, clock={}, status="ongoing", players={1: ("x", "x"), 2: ("y", "y")},
                guild_id=G0, channel_id=None, snapshot={}, events=[],
            )  # fmt: skip
    finally:
        await service.close()


async def test_lease_times_are_the_databases_clock(store: MatchStore) -> None:
    table = LeaseTable(store.engine, "me", [0], lease_seconds=600)
    assert await table.acquire() == {0: 1}
    async with store.engine.connect() as conn:
        now = (await conn.execute(select(db_now(store.engine.dialect.name)))).scalar_one()
    [held] = await table.holders()
    assert abs((held.expires_at - now).total_seconds() - 600) < 5  # written as the database's now + the lease
    await table.release({0: 1})
    [released] = await table.holders()
    assert released.owner == "" and released.expires_at <= now + dt.timedelta(seconds=5)


@pytest.mark.pg
async def test_every_postgresql_session_has_lock_statement_and_idle_timeouts(pg_url: str) -> None:
    store = MatchStore(pg_url)
    try:
        async with store.engine.connect() as conn:
            shown = {
                name: (await conn.exec_driver_sql(f"SHOW {name}")).scalar_one()
                for name in ("lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout")
            }
    finally:
        await store.close()
    assert shown == {"lock_timeout": "10s", "statement_timeout": "1min", "idle_in_transaction_session_timeout": "5s"}


@pytest.mark.looptime
async def test_letting_go_never_cancels_a_timer_inside_its_action(store: MatchStore) -> None:
    owner = LeaseTable(store.engine, "me", [0, 1], lease_seconds=60)
    epochs = await owner.acquire()
    assert epochs is not None
    store.fencing = Fencing("me", 2)
    store.fencing.hold(epochs)
    service = MatchService(store, owns_guild=store.fencing.holds, heartbeat_seconds=86400)
    await service.start()
    inside, go_on = asyncio.Event(), asyncio.Event()
    finished: list[int] = []
    armed: list[bool] = []

    async def slow_listener(ev: Any) -> None:  # a subscriber writing in the timer's task (as ratings do)
        if armed and not inside.is_set():
            async with store.engine.begin() as conn:
                await conn.execute(select(1))
                inside.set()
                await go_on.wait()
                await conn.execute(select(1))
            finished.append(ev.match_id)

    hear(service, slow_listener)
    try:
        mid = await service.create_match("boxes", [A, B], guild_id=G0, clock={"move": 5.0, "reserve": 60.0})
        armed.append(True)
        await asyncio.wait_for(inside.wait(), 30)  # alice's move time ran out: the timer tells of her reserve
        task = service.live[mid].task
        assert task is not None and service.live[mid].acting
        store.fencing.drop({0})  # the shard is taken over now: the process lets go of its matches
        assert service.abandon() == [mid] and mid not in service.live
        go_on.set()
        await asyncio.sleep(1)
        assert finished == [mid], "the action under way was finished, not cut short"
        assert task.done() and not task.cancelled()
    finally:
        go_on.set()
        await service.close()
