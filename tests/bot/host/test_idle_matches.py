"""Correspondence matches kept unloaded after a restart (`bot/host/idle.py`, issue 41 item 6), through the real
service and store on SQLite and PostgreSQL, on the event loop's clock (looptime): nothing is built at start-up,
a look-up builds the match it finds, each deadline builds its match and is ruled on time, a reminder comes
once across restarts, and a lost shard lets idle matches go too."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from bot.host.service import MatchService, PlayerRef
from bot.store.matches import MatchStore
from tests.bot.conftest import Recorder, make_service
from tests.buses import hear

ALICE, BOB = PlayerRef("a", "alice"), PlayerRef("b", "bob")
DAY = 86400
GUILD = 7
T0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
pytestmark = pytest.mark.looptime


async def _service(db_url: str, rec: Recorder) -> MatchService:
    return await make_service(
        db_url, rec, heartbeat_seconds=3600.0, wall=lambda: T0 + dt.timedelta(seconds=asyncio.get_running_loop().time())
    )


async def _stop(service: MatchService) -> None:
    await service.close()
    await service.store.close()


async def _corr(service: MatchService, channel: int, move: str = "2d") -> int:
    clock = {"kind": "correspondence", "move": move}
    return await service.create_match(
        "boxes", [ALICE, BOB], options={"rows": 2, "cols": 2}, clock=clock, guild_id=GUILD, channel_id=channel
    )


async def test_idle_matches_are_built_on_look_up_and_at_their_deadlines(db_url: str) -> None:
    first = await _service(db_url, Recorder())
    one, two, three = [await _corr(first, channel) for channel in (11, 12, 13)]
    four = await _corr(first, 14, move="3d")
    blitz = await first.create_match("boxes", [ALICE, BOB], options={"rows": 2, "cols": 2}, guild_id=GUILD)
    await first.submit(two, ALICE.id, "A1-B1")
    await _stop(first)

    rec = Recorder()
    again = await _service(db_url, rec)
    assert sorted(again.live.idle) == [one, two, three, four]  # nothing built: only the live match was resumed
    assert [lv.id for lv in again.live.awake()] == [blitz] and len(again.live) == 5
    assert [e.match_id for _t, e in rec.of("resumed")] == [blitz]
    assert two in again.live and again.rooms() == [11, 12, 13, 14]  # read without building anything

    found = again.matches_in_channel(12)  # a look-up builds the match it finds, and only that one
    assert [lv.id for lv in found] == [two] and found[0].ply == 1 and sorted(again.live.idle) == [one, three, four]
    result = await again.submit(two, BOB.id, "A2-B2")
    assert result.status == "accepted"
    assert [e.kind for _t, e in rec.events if e.match_id == two][:2] == ["resumed", "move"]
    log = await again.record(two)
    assert log is not None and [e.kind for e in log.events][-2:] == ["resumed", "move"]
    assert again.get(three).id == three and three not in again.live.idle  # get builds as well

    await asyncio.sleep(0.8 * 2 * DAY - 60)  # before the reminders nothing else was built
    assert sorted(again.live.idle) == [one, four]
    await asyncio.sleep(120)
    reminded = sorted(e.match_id for _t, e in rec.of("reminder"))
    assert reminded == [one, two, three]  # one built by its deadline (two's clock restarted at bob's move)
    assert four in again.live.idle  # three days a move: not due yet
    await _stop(again)

    rec = Recorder()
    third = await _service(db_url, rec)  # a restart after the reminder: none again, the loss on time comes
    assert sorted(third.live.idle) == [one, two, three, four]
    await asyncio.sleep(0.4 * DAY)
    losses = sorted(e.match_id for _t, e in rec.of("finished"))
    assert losses == [one, two, three] and not rec.of("reminder")
    for match_id in (one, two, three):
        stored = await third.store.load(match_id)
        assert stored is not None and stored.result_reason == "time" and stored.winner_seat == 2
    ruled = {e.match_id: t for t, e in rec.events if e.kind == "finished"}
    assert abs(ruled[one] - ruled[three]) < 1  # both at their deadline, 2 days after their start
    await _stop(third)


async def test_overdue_idle_matches_wait_for_the_catch_up_and_a_lost_shard_lets_them_go(db_url: str) -> None:
    first = await _service(db_url, Recorder())
    one = await _corr(first, 21, move="1h")
    other = await first.create_match(
        "boxes", [ALICE, BOB], clock={"kind": "correspondence", "move": "1h"}, guild_id=8, channel_id=22
    )
    await _stop(first)
    await asyncio.sleep(2 * 3600)  # both deadlines pass while no host runs

    rec = Recorder()
    service = MatchService(
        MatchStore(db_url),
        heartbeat_seconds=3600.0,
        wall=lambda: T0 + dt.timedelta(seconds=asyncio.get_running_loop().time()),
    )
    hear(service, rec)
    service.caught_up.clear()  # as Discord does: the rooms are read back first
    assert sorted(await service.start()) == [one, other]
    await asyncio.sleep(60)
    assert not rec.of("finished") and sorted(service.live.idle) == [one, other]
    service.owns_guild = lambda guild: guild == GUILD  # guild 8's shard was taken over
    assert service.abandon() == [other] and sorted(service.live) == [one]
    await service.rule_overdue()
    # the reminder nobody could tell is told late (nothing left) rather than never, then the loss (issue 47)
    assert [e.kind for _t, e in rec.events] == ["resumed", "reminder", "finished"]
    assert rec.of("reminder")[0][1].data["left"] == 0
    assert [e.match_id for _t, e in rec.of("finished")] == [one] and not service.live
    await _stop(service)


async def test_a_casual_match_stays_idle_and_a_practice_one_is_built(db_url: str) -> None:
    """A casual correspondence match waits unloaded like a rated one (its snapshot is not decoded when it names
    no practice opponent); one a practice opponent plays is built at start so the opponent can watch it."""
    first = await _service(db_url, Recorder())
    clock = {"kind": "correspondence", "move": "2d"}
    two = {"rows": 2, "cols": 2}
    casual = await first.create_match(
        "boxes", [ALICE, BOB], options=two, clock=clock, guild_id=GUILD, channel_id=21, rated=False
    )
    practice = await first.create_match(
        "boxes", [ALICE, BOB], options=two, clock=clock, guild_id=GUILD, channel_id=22, rated=False, practice=True
    )
    await _stop(first)

    again = await _service(db_url, Recorder())
    assert sorted(again.live.idle) == [casual]
    assert [lv.id for lv in again.live.awake()] == [practice]
    await _stop(again)
