"""Who may do what, at the service level: a seat belongs to one player id, a match to its two players,
a room to its channel. (Host-only commands are checked by the Discord layer, which owns roles.)"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.host.service import HostError, MatchService, PlayerRef
from tests.bot.conftest import Recorder, make_service
from tests.bot.host.test_host_flows import R, W, _trax_until_win

ALICE, BOB, CAROL, DAVE = (PlayerRef(str(i), n) for i, n in enumerate(["alice", "bob", "carol", "dave"], 1))
STRANGER = PlayerRef("999", "mallory")
pytestmark = pytest.mark.looptime


def snapshot(service: MatchService, mid: int) -> Any:
    live = service.get(mid)
    return (live.ruleset.to_json(live.state), live.ply, live.status, live.clocks.running, live.provisional(), live.seq)


async def test_a_player_cannot_move_for_the_opponent(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("boxes", [ALICE, BOB])
    live = service.get(mid)
    for text in ["A1-B1", "1: A1-B1", "alice: A1-B1", "seat 1 A1-B1"]:
        result = await service.submit(mid, BOB.id, text)
        assert result.status != "accepted", text
    assert live.ply == 0 and live.clocks.running == 1
    assert (await service.submit(mid, ALICE.id, "A1-B1")).status == "accepted"
    assert (await service.submit(mid, ALICE.id, "B1-C1")).kind == "turn"
    assert live.ply == 1


async def test_strangers_are_ignored_and_cannot_use_player_actions(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("trax", [ALICE, BOB], clock={"kind": "grace", "move": 10, "grace": 600})
    before = snapshot(service, mid)
    for text in ["@0+", "resign", "take back", "mulligan", "decline", "ready", "here", "confirm", "first"]:
        assert (await service.submit(mid, STRANGER.id, text)).status == "ignored", text
    for action in ("resign", "mulligan", "decline", "ready", "here"):
        with pytest.raises(HostError):
            await service.act(mid, STRANGER.id, action)
    assert (await service.withdraw(mid, STRANGER.id, message_id=None, via="delete")).status == "ignored"
    assert snapshot(service, mid) == before  # not even a log entry


async def test_players_cannot_act_in_a_match_they_are_not_in(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    m1 = await service.create_match("boxes", [ALICE, BOB], guild_id=1 << 22, channel_id=11)
    m2 = await service.create_match("boxes", [CAROL, DAVE], guild_id=2 << 22, channel_id=22)
    before = snapshot(service, m2)
    assert (await service.submit(m2, ALICE.id, "A1-B1")).status == "ignored"
    assert (await service.submit(m2, ALICE.id, "resign")).status == "ignored"
    with pytest.raises(HostError):
        await service.resign(m2, ALICE.id)
    assert snapshot(service, m2) == before
    # Rooms are found by channel, so one guild's room never lists another guild's match.
    assert [m.id for m in service.matches_in_channel(11)] == [m1]
    assert [m.id for m in service.matches_in_channel(22)] == [m2]
    assert service.matches_in_channel(33) == []
    # A finished match still refuses strangers quietly and tells its players it is over.
    assert (await service.submit(m1, ALICE.id, "resign")).status == "accepted"
    assert (await service.submit(m1, CAROL.id, "A1-B1")).status == "ignored"
    assert (await service.submit(m1, BOB.id, "A1-B1")).kind == "finished"
    with pytest.raises(HostError):
        await service.submit(123456, ALICE.id, "A1-B1")


async def test_only_the_author_takes_a_move_back(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("trax", [W, R])
    assert (await service.submit(mid, W.id, "@0+", message_id="m1")).status == "accepted"
    refused = await service.submit(mid, R.id, "take back")
    assert refused.status == "rejected"
    refused = await service.withdraw(mid, R.id, message_id="m1", via="delete")
    assert refused.status == "rejected"
    assert service.get(mid).provisional() is not None
    assert (await service.withdraw(mid, W.id, message_id="m1", via="delete")).status == "accepted"
    assert service.get(mid).ply == 0


async def test_only_the_loser_may_use_or_decline_the_mulligan(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await _trax_until_win(service)
    offer = await rec.wait("mulligan_offer")
    winner = W if offer.data["winner"] == 1 else R
    loser = R if winner is W else W
    for text in ("mulligan", "decline"):
        assert (await service.submit(mid, winner.id, text)).status == "rejected", text
    with pytest.raises(HostError):
        await service.act(mid, winner.id, "mulligan")
    with pytest.raises(HostError):
        await service.act(mid, STRANGER.id, "decline")
    assert service.get(mid).status == "held"
    assert (await service.submit(mid, loser.id, "mulligan")).status == "accepted"


async def test_ready_is_for_the_mover_in_grace_and_here_for_the_opponent(
    host: tuple[MatchService, Recorder],
) -> None:
    service, rec = host
    mid = await service.create_match("boxes", [ALICE, BOB], clock={"kind": "grace", "move": 60, "grace": 600})
    assert (await service.submit(mid, ALICE.id, "ready")).status == "rejected"  # not in grace yet
    await asyncio.sleep(61)
    assert (await service.submit(mid, BOB.id, "ready")).status == "rejected"  # not his turn
    assert (await service.submit(mid, BOB.id, "here")).status == "rejected"  # nobody asked
    assert (await service.submit(mid, ALICE.id, "ready")).status == "accepted"
    assert (await service.submit(mid, ALICE.id, "here")).status == "rejected"  # cannot confirm herself
    with pytest.raises(HostError):
        await service.act(mid, STRANGER.id, "here")
    assert not rec.of("presence_ok")
    assert (await service.submit(mid, BOB.id, "here")).status == "accepted"
    assert rec.of("presence_ok")


async def test_only_the_player_with_advantage_chooses(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("boxes", [ALICE, BOB], advantage=1)
    assert (await service.submit(mid, STRANGER.id, "first")).status == "ignored"
    assert (await service.submit(mid, BOB.id, "first")).status == "rejected"
    assert service.get(mid).status == "held"
    assert (await service.submit(mid, ALICE.id, "second")).status == "accepted"
    assert service.get(mid).players[1] == BOB


async def test_a_shard_resumes_only_its_own_guilds(migrated_db_url: str) -> None:
    shard = {g: g << 22 for g in range(4)}  # guild g falls in shard g % 2 of 2
    s1 = await make_service(migrated_db_url)
    mids = {g: await s1.create_match("boxes", [ALICE, BOB], guild_id=gid) for g, gid in shard.items()}
    await s1.close()
    await s1.store.close()
    s2 = await make_service(migrated_db_url, owns_guild=lambda gid: gid is not None and (gid >> 22) % 2 == 1)
    try:
        assert sorted(s2.live) == sorted(mids[g] for g in (1, 3))
        with pytest.raises(HostError):
            s2.get(mids[0])
    finally:
        await s2.close()
        await s2.store.close()
