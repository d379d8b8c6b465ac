"""A finished match's consequences leave the move path (issue 38, point 9): an `@after_commit` listener
hears a committed event in its own task, off the match's lock, in batches; the move that ended the match
returns without waiting for it, other matches go on moving meanwhile, and the ratings rate every match
finished since their last batch in one transaction. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from sqlalchemy import func, select

from bot.compose import Stage, build_host
from bot.host.events import HostEvent, PlayerRef
from bot.host.subscribers import after_commit
from bot.ratings.models import RatingChange

A, B, C, D = (PlayerRef(f"p:{n}", n) for n in ("ann", "ben", "cid", "dot"))


class Slow:
    """A consequence that holds its batch until released, and keeps what it was given."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.batches: list[list[tuple[str, int]]] = []
        self.started = asyncio.Event()

    @after_commit("finished", batch=True)
    async def on_finished(self, events: Sequence[HostEvent]) -> None:
        self.started.set()
        await self.release.wait()
        self.batches.append([(ev.kind, ev.match_id) for ev in events])


async def test_a_slow_consequence_never_holds_up_a_move(db_url: str) -> None:
    host = build_host(db_url)
    await host.open()
    await host.service.start()
    slow, heard = Slow(), []
    host.bus.subscribe(slow.on_finished, Stage.RECORD)
    host.bus.subscribe(lambda ev: heard.append((ev.kind, ev.match_id)))  # inline: a face
    try:
        first = await host.service.create_match("boxes", [A, B])
        second = await host.service.create_match("boxes", [C, D])
        third = await host.service.create_match("boxes", [A, D])
        await host.service.submit(first, A.id, "A1-B1")
        done = await host.service.submit(first, B.id, "resign")
        assert done.status == "accepted" and ("finished", first) in heard, "the face heard the end at once"
        await slow.started.wait()  # the consequence runs, and is stuck ...
        assert (await host.service.submit(second, C.id, "A1-B1")).status == "accepted"  # ... moves go on
        assert (await host.service.submit(second, D.id, "resign")).status == "accepted"
        assert (await host.service.submit(third, A.id, "A1-B1")).status == "accepted"
        assert (await host.service.submit(third, D.id, "resign")).status == "accepted"
        assert slow.batches == []
        slow.release.set()
        await host.service.drained()
        assert slow.batches == [[("finished", first)], [("finished", second), ("finished", third)]]
        async with host.store.engine.connect() as conn:
            rated = (await conn.execute(select(func.count(func.distinct(RatingChange.match_id))))).scalar_one()
        assert rated == 3, "the ratings' own queue rated all three"
        assert (await host.ratings.rebuild()).changed == 0
    finally:
        await host.close()


async def test_the_ratings_rate_a_batch_in_one_call_and_a_face_may_ask_first(db_url: str) -> None:
    host = build_host(db_url)
    await host.open()
    await host.service.start()
    calls: list[list[int]] = []
    real = host.ratings.settle_many

    async def settle_many(match_ids: Sequence[int]) -> int:
        calls.append(list(match_ids))
        return await real(match_ids)

    host.ratings.settle_many = settle_many  # type: ignore[method-assign]
    try:
        ids = [await host.service.create_match("boxes", [A, B]) for _ in range(3)]
        for mid in ids:
            await host.service.submit(mid, A.id, "A1-B1")
            await host.service.submit(mid, B.id, "resign")
        asked = await host.ratings.settle(ids[0])  # a face reporting the end: rated now or already
        assert asked is not None and asked.match_id == ids[0]
        await host.service.drained()
        assert sorted(m for batch in calls for m in batch) == ids, "each finished match in exactly one batch"
        for mid in ids:
            rating = await host.ratings.of_match(mid)
            assert rating is not None and [c.seat for c in rating.changes] == [1, 2]
        assert (await host.ratings.rebuild()).changed == 0
    finally:
        await host.close()


class Gate:
    """An earlier-stage consequence that handles one batch per token given."""

    def __init__(self) -> None:
        self.tokens = asyncio.Semaphore(0)
        self.batches: list[list[int]] = []
        self.waiting = 0

    @after_commit("finished", batch=True)
    async def on_finished(self, events: Sequence[HostEvent]) -> None:
        self.waiting += 1
        await self.tokens.acquire()
        self.waiting -= 1
        self.batches.append([ev.match_id for ev in events])


class Follower:
    """A later-stage consequence: notes, for each event, what the earlier stage had handled by then."""

    def __init__(self, earlier: Gate) -> None:
        self.earlier = earlier
        self.seen: list[tuple[int, list[int]]] = []
        self.heard = asyncio.Event()

    @after_commit("finished")
    async def on_finished(self, ev: HostEvent) -> None:
        self.seen.append((ev.match_id, [m for batch in self.earlier.batches for m in batch]))
        self.heard.set()


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_a_later_stage_waits_for_the_earlier_one_and_is_never_starved(migrated_db_url: str) -> None:
    host = build_host(migrated_db_url)
    await host.open()
    await host.service.start()
    gate = Gate()
    follower = Follower(gate)
    host.bus.subscribe(follower.on_finished, Stage.FOLLOW)  # subscribed first, heard after the RECORD stage
    host.bus.subscribe(gate.on_finished, Stage.RECORD)
    try:
        ids = [await host.service.create_match("boxes", [A, B]) for _ in range(3)]
        await host.service.submit(ids[0], A.id, "resign")
        await host.ratings.settle(ids[0])  # the other RECORD listener's work, done
        await _settle()
        assert gate.waiting == 1 and follower.seen == [], "the follower waits while the earlier stage holds the end"
        await host.service.submit(ids[1], A.id, "resign")
        gate.tokens.release()  # the first end is handled; the second waits for its token
        await asyncio.wait_for(follower.heard.wait(), 30)  # (the ratings, also at RECORD, rate it meanwhile)
        await _settle()
        assert gate.batches == [[ids[0]]], "the earlier stage has not handled the second end yet ..."
        assert follower.seen == [(ids[0], [ids[0]])], "... and the follower went on with what it had caught up with"
        await host.service.submit(ids[2], A.id, "resign")
        gate.tokens.release()
        gate.tokens.release()
        await host.service.drained()
        assert [m for m, _ in follower.seen] == ids, "in commit order, each once"
        for match_id, handled_before in follower.seen:
            assert match_id in handled_before, "the earlier stage had handled each end first"
    finally:
        for _ in range(3):
            gate.tokens.release()  # never left waiting by a failed assertion
        await host.close()
