"""Messages read back late (`submit(..., posted_at=…)`): charged up to their own time, on the loop clock."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from bot.host.service import MatchService, PlayerRef
from bot.store.matches import MatchStore

ALICE, BOB = PlayerRef("a", "alice"), PlayerRef("b", "bob")
EPOCH = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
pytestmark = pytest.mark.looptime


def wall() -> dt.datetime:
    """A wall clock that runs with the (fast-forwarded) loop clock."""
    return EPOCH + dt.timedelta(seconds=asyncio.get_running_loop().time())


async def fresh(url: str) -> MatchService:
    service = MatchService(MatchStore(url), heartbeat_seconds=3600, wall=wall)
    await service.start()
    return service


async def stop(service: MatchService) -> None:
    await service.close()
    await service.store.close()


async def bob_to_move_then_away(url: str, think: float) -> tuple[int, dt.datetime]:
    """Alice moves, bob thinks `think` s, then the host stops: the match and when it stopped."""
    first = await fresh(url)
    mid = await first.create_match("boxes", [ALICE, BOB], clock={"move": 60, "reserve": 30})
    assert (await first.submit(mid, ALICE.id, "A1-B1")).status == "accepted"
    await asyncio.sleep(think)
    gone = wall()
    await stop(first)
    return mid, gone


async def used_by_bob(service: MatchService, mid: int) -> float:
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    (move,) = [e for e in stored.events if e.kind == "move" and e.seat == 2]
    return float(move.data["used"])


async def test_a_move_posted_during_the_outage_is_charged_up_to_its_time(migrated_sqlite_url: str) -> None:
    mid, gone = await bob_to_move_then_away(migrated_sqlite_url, 20)
    await asyncio.sleep(100)  # the host is away 100 s; bob posted 15 s into it
    second = await fresh(migrated_sqlite_url)
    try:
        result = await second.submit(mid, BOB.id, "A2-B2", posted_at=gone + dt.timedelta(seconds=15))
        assert result.status == "accepted"
        assert await used_by_bob(second, mid) == pytest.approx(35, abs=0.01)
        live = second.get(mid)
        assert live.clocks.running == 1 and live.clocks.remaining(1, second.now())["move"] == pytest.approx(60)
    finally:
        await stop(second)


async def test_a_move_posted_after_the_time_ran_out_during_the_outage_loses_on_time(migrated_sqlite_url: str) -> None:
    mid, gone = await bob_to_move_then_away(migrated_sqlite_url, 20)
    await asyncio.sleep(100)
    second = await fresh(migrated_sqlite_url)
    try:
        result = await second.submit(mid, BOB.id, "A2-B2", posted_at=gone + dt.timedelta(seconds=71))  # 91 s
        assert result.status == "rejected" and result.kind == "time"
        stored = await second.store.load(mid)
        assert stored is not None and (stored.winner_seat, stored.result_reason) == (1, "time")
    finally:
        await stop(second)


async def test_without_a_late_message_the_outage_is_not_charged(migrated_sqlite_url: str) -> None:
    mid, _gone = await bob_to_move_then_away(migrated_sqlite_url, 20)
    await asyncio.sleep(500)
    second = await fresh(migrated_sqlite_url)
    try:
        await asyncio.sleep(5)
        assert second.get(mid).clocks.remaining(2, second.now())["move"] == pytest.approx(35, abs=0.01)
        assert (await second.submit(mid, BOB.id, "A2-B2")).status == "accepted"
        assert await used_by_bob(second, mid) == pytest.approx(25, abs=0.01)
    finally:
        await stop(second)


async def test_a_message_missed_while_the_host_ran_counts_back_from_now(migrated_sqlite_url: str) -> None:
    service = await fresh(migrated_sqlite_url)
    try:
        mid = await service.create_match("boxes", [ALICE, BOB], clock={"move": 60, "reserve": 30})
        assert (await service.submit(mid, ALICE.id, "A1-B1")).status == "accepted"
        await asyncio.sleep(40)  # a gateway outage: bob posted 12 s ago, the host only reads it now
        result = await service.submit(mid, BOB.id, "A2-B2", posted_at=wall() - dt.timedelta(seconds=12))
        assert result.status == "accepted"
        assert await used_by_bob(service, mid) == pytest.approx(28, abs=0.01)
        # never before the action started, never after now
        assert (await service.submit(mid, ALICE.id, "A2-A3", posted_at=EPOCH)).status == "accepted"
        stored = await service.store.load(mid, with_events=True)
        assert stored is not None
        assert [e.data["used"] for e in stored.events if e.kind == "move"][-1] == 0
    finally:
        await stop(service)
