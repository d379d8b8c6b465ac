"""Clock behaviour through the real service, on the event loop's clock (looptime: no real waiting)."""

from __future__ import annotations

import asyncio

import pytest

from bot.host.service import MatchService, PlayerRef
from bot.wording import reason_text
from tests.bot.conftest import Recorder

ALICE, BOB = PlayerRef("a", "alice"), PlayerRef("b", "bob")
pytestmark = pytest.mark.looptime


async def test_never_moving_loses_after_exactly_move_plus_reserve(
    host: tuple[MatchService, Recorder],
) -> None:
    service, rec = host
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    mid = await service.create_match("boxes", [ALICE, BOB], clock={"move": 60, "reserve": 300})
    ev = await rec.wait("finished")
    t_end = rec.of("finished")[0][0]
    assert ev.data["winner"] == 2 and ev.data["reason"] == "time"
    assert t_end - t0 == pytest.approx(360, abs=0.01)
    notices = [(round(t - t0, 2), e.data["notice"]) for t, e in rec.of("clock")]
    assert (60.0, "reserve_started") in notices
    assert (330.0, "warn30") in notices and (350.0, "warn10") in notices
    stored = await service.store.load(mid)
    assert stored is not None and stored.status == "finished" and stored.result_reason == "time"


async def test_completing_a_box_gives_a_fresh_action_timer(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match(
        "boxes", [ALICE, BOB], options={"rows": 1, "cols": 2}, clock={"move": 60, "reserve": 300}
    )
    for who, move in [(ALICE, "A1-B1"), (BOB, "A2-B2"), (ALICE, "A1-A2")]:
        assert (await service.submit(mid, who.id, move)).status == "accepted"
    # bob closes box A1 after 50 s, then has a fresh 60 s for his extra move.
    await asyncio.sleep(50)
    result = await service.submit(mid, BOB.id, "B1-B2")
    assert result.status == "accepted"
    live = service.get(mid)
    assert live.clocks.running == 2
    await asyncio.sleep(59)
    assert live.clocks.remaining(2, service.now())["reserve"] == pytest.approx(300)
    assert not [e for _, e in rec.of("clock") if e.data["notice"] == "reserve_started"]
    await asyncio.sleep(2)
    assert live.clocks.remaining(2, service.now())["reserve"] == pytest.approx(299, abs=0.01)


async def test_reserve_drains_and_carries_over(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("boxes", [ALICE, BOB], clock={"move": 10, "reserve": 30})
    await asyncio.sleep(25)
    assert (await service.submit(mid, ALICE.id, "A1-B1")).status == "accepted"
    live = service.get(mid)
    assert live.clocks.reserve_left[1] == pytest.approx(15, abs=0.01)
    assert live.clocks.remaining(1, service.now()) == {"move": 10, "reserve": pytest.approx(15, abs=0.01)}


async def test_grace_once_then_second_overrun_concedes(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    loop = asyncio.get_running_loop()
    mid = await service.create_match(
        "boxes", [ALICE, BOB], clock={"kind": "grace", "move": 60, "grace": 600, "presence": 30}
    )
    await asyncio.sleep(100)
    assert [e.data["notice"] for _, e in rec.of("clock")][-1] == "grace_started"
    # A move from grace needs `ready` and the opponent's confirmation first.
    refused = await service.submit(mid, ALICE.id, "A1-B1")
    assert refused.status == "rejected" and "ready" in (reason_text(refused) or "")
    assert (await service.submit(mid, ALICE.id, "ready")).status == "accepted"
    assert rec.of("presence")[-1][1].data["confirmer"] == 2
    assert (await service.submit(mid, ALICE.id, "A1-B1")).status == "rejected"
    assert (await service.submit(mid, BOB.id, "here")).status == "accepted"
    assert (await service.submit(mid, ALICE.id, "A1-B1")).status == "accepted"
    assert (await service.submit(mid, BOB.id, "A2-B2")).status == "accepted"
    # Alice's second overrun concedes at exactly 60 s.
    t1 = loop.time()
    ev = await rec.wait("finished")
    assert ev.data == {"winner": 2, "winner_name": "bob", "reason": "time"}
    assert rec.of("finished")[0][0] - t1 == pytest.approx(60, abs=0.01)


async def test_grace_is_capped(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    t0 = asyncio.get_running_loop().time()
    await service.create_match("boxes", [ALICE, BOB], clock={"kind": "grace", "move": 60, "grace": 600})
    ev = await rec.wait("finished")
    assert ev.data["reason"] == "time" and ev.data["winner"] == 2
    assert rec.of("finished")[0][0] - t0 == pytest.approx(660, abs=0.01)


async def test_presence_timeout_lets_the_mover_go_on(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match(
        "boxes", [ALICE, BOB], clock={"kind": "grace", "move": 60, "grace": 600, "presence": 30}
    )
    await asyncio.sleep(70)
    await service.submit(mid, ALICE.id, "ready")
    await asyncio.sleep(31)
    assert rec.of("presence_ok")
    assert (await service.submit(mid, ALICE.id, "A1-B1")).status == "accepted"


async def test_pause_stops_both_clocks_and_resume_continues(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    mid = await service.create_match("boxes", [ALICE, BOB], clock={"move": 10, "reserve": 20})
    await asyncio.sleep(5)
    await service.pause(mid, by="host")
    assert (await service.submit(mid, ALICE.id, "A1-B1")).kind == "paused"
    await asyncio.sleep(1000)
    assert not rec.of("finished")
    live = service.get(mid)
    assert live.clocks.remaining(1, service.now())["move"] == pytest.approx(5, abs=0.01)
    await service.resume(mid, by="host")
    await rec.wait("finished")
    # 5 s before the pause + 25 s after it; the 1000 s pause is not charged.
    assert rec.of("finished")[0][0] - t0 == pytest.approx(1005 + 25, abs=0.05)


async def test_host_time_adjustments(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    t0 = asyncio.get_running_loop().time()
    mid = await service.create_match("boxes", [ALICE, BOB], clock={"move": 10, "reserve": 20})
    await service.adjust_time(mid, 1, 30, by="host")
    await service.adjust_time(mid, 1, -5, by="host")
    await rec.wait("finished")
    assert rec.of("finished")[0][0] - t0 == pytest.approx(55, abs=0.05)


async def test_award_abort_and_resign(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    m1 = await service.create_match("boxes", [ALICE, BOB])
    await service.award(m1, 2, by="host")
    m2 = await service.create_match("boxes", [ALICE, BOB])
    await service.abort(m2, by="host")
    m3 = await service.create_match("boxes", [ALICE, BOB])
    assert (await service.submit(m3, BOB.id, "resign")).status == "accepted"
    results = {}
    for m in (m1, m2, m3):
        stored = await service.store.load(m)
        assert stored is not None
        results[m] = (stored.status, stored.winner_seat, stored.result_reason)
    assert results == {
        m1: ("finished", 2, "award"),
        m2: ("aborted", None, "aborted"),
        m3: ("finished", 1, "resign"),
    }
    after = await service.submit(m3, ALICE.id, "A1-B1")
    assert after.status == "rejected" and after.kind == "finished"


async def test_advantage_player_chooses(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("boxes", [ALICE, BOB], advantage=2)
    assert (await service.submit(mid, ALICE.id, "A1-B1")).status == "rejected"
    assert (await service.submit(mid, ALICE.id, "second")).status == "rejected"
    assert (await service.submit(mid, BOB.id, "second")).status == "accepted"
    live = service.get(mid)
    assert live.players[1] == ALICE and live.players[2] == BOB
    assert (await service.submit(mid, ALICE.id, "A1-B1")).status == "accepted"
    m2 = await service.create_match("boxes", [ALICE, BOB], advantage=2)
    assert (await service.submit(m2, BOB.id, "first")).status == "accepted"
    assert service.get(m2).players[1] == BOB
    stored = await service.store.load(m2)
    assert stored is not None and stored.players[1] == ("b", "bob")
