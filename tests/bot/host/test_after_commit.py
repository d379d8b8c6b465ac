"""A finished match's consequences leave the move path (issue 38, point 9): an `@after_commit` listener
hears a committed event in its own task, off the match's lock, in batches; the move that ended the match
returns without waiting for it, other matches go on moving meanwhile, and the ratings rate every match
finished since their last batch in one transaction. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from sqlalchemy import func, select

from bot.compose import build_host
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
    host.service.subscribe(slow.on_finished)
    host.service.subscribe(lambda ev: heard.append((ev.kind, ev.match_id)))  # inline: a face
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
