"""House rules per match, through the whole host (real engines, real database, looptime clocks):
a non-default rule set in each game, the grace-stall fix, pause freezing the rules' timers, the timed
advantage choice, and a match saved before rules had their own snapshot keys."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bot.adapters.discord.render import markdown
from bot.host.service import HostError, MatchService, PlayerRef
from bot.store.matches import MatchStore, NewEvent
from bot.wording import error_text, event_text, reason_text, status_lines
from tests import DATA
from tests.bot.conftest import Recorder, make_service
from tests.bot.host.test_host_flows import _trax_until_win

W, R = PlayerRef("w", "wendy"), PlayerRef("r", "rick")
pytestmark = pytest.mark.looptime


async def play(service: MatchService, mid: int, moves: list[tuple[PlayerRef, str]]) -> None:
    for who, text in moves:
        result = await service.submit(mid, who.id, text)
        assert result.status == "accepted", (text, reason_text(result))


def now() -> float:
    return asyncio.get_running_loop().time()


# -- a non-default rule set in each game --------------------------------------------------------------


async def test_dotdash_mulligan_after_losing_by_your_own_shift(host: tuple[MatchService, Recorder]) -> None:
    # The shifting case of test_host_flows, now with a mulligan: Wendy's own move hands Rick the win, so
    # only her turn is rewound (RULES.md, Trax: Mulligan; the Dot Dash rule card).
    service, rec = host
    mid = await service.create_match("dotdash", [W, R], rules={"mulligan": 1})
    await play(service, mid, [(W, "setup blue M13 red A1 I1"), (R, "take blue")])
    await play(service, mid, [(R, "M13-J13"), (W, "A1-D1"), (R, "J13-E13"), (W, "I1-E1"), (R, "G13-J13")])
    assert (await service.submit(mid, W.id, "C1-C4")).kind == "confirm"
    await play(service, mid, [(W, "confirm")])
    offer = await rec.wait("mulligan_offer")
    assert offer.data["loser"] == 1 and not rec.of("finished")
    await play(service, mid, [(W, "mulligan")])
    live = service.get(mid)
    assert rec.of("mulligan")[-1][1].data["rewound"] == 1
    assert live.ply == 7 and live.ruleset.to_move(live.state) == 1 and live.status == "ongoing"
    again = await service.submit(mid, W.id, "mulligan")
    assert again.status == "rejected" and "already used" in (reason_text(again) or "")


async def test_boxes_take_back_window(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("boxes", [W, R], rules={"takeback": 5})
    await play(service, mid, [(W, "A1-B1")])
    live = service.get(mid)
    assert rec.of("provisional") and service.pending_move(mid) is not None
    assert reason_text(await service.submit(mid, R.id, "A2-B2")) == "Wait: the last move is not final yet."
    await asyncio.sleep(2)
    await play(service, mid, [(W, "undo")])
    assert live.ply == 0 and service.pending_move(mid) is None
    await play(service, mid, [(W, "A1-B1")])
    t0 = now()
    await rec.wait("turn")
    assert now() - t0 == pytest.approx(5, abs=0.05) and live.clocks.running == 2


async def test_dots_one_grace_clock(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    opts = {"width": 5, "height": 5, "start": "empty"}
    mid = await service.create_match("dots", [W, R], options=opts, clock={"move": 10}, rules={"clock": "grace"})
    live = service.get(mid)
    assert live.clocks.tc.kind == "grace" and live.clocks.tc.grace == 600
    await asyncio.sleep(11)
    assert live.clocks.in_grace
    assert (await service.submit(mid, W.id, "C3")).kind == "grace"
    await play(service, mid, [(W, "ready"), (R, "here"), (W, "C3")])
    await asyncio.sleep(10.5)  # Rick overruns too: his grace starts
    await play(service, mid, [(R, "ready"), (W, "here"), (R, "D3")])
    await asyncio.sleep(10.5)  # Wendy's second overrun concedes
    ev = await rec.wait("finished")
    assert ev.data["winner"] == 2 and ev.data["reason"] == "time"


async def test_trax_without_take_backs(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("trax", [W, R], rules={"takeback": 0})
    await play(service, mid, [(W, "@0+"), (R, "B1+")])
    assert not rec.of("provisional") and service.get(mid).ply == 2


async def test_a_take_back_window_typed_with_the_clock_is_the_rule_setting(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("boxes", [W, R], clock={"move": "60", "takeback": "3"})
    live = service.get(mid)
    assert live.settings["takeback"] == 3.0 and "takeback" not in live.clocks.tc.to_json()
    chosen = await service.create_match("boxes", [W, R], clock={"takeback": "3"}, rules={"takeback": "0"})
    assert service.get(chosen).settings["takeback"] == 0.0  # the rule chosen by name wins
    await play(service, mid, [(W, "A1-B1")])
    t0 = now()
    await rec.wait("turn")
    assert now() - t0 == pytest.approx(3, abs=0.05)


async def test_a_rule_the_game_cannot_take_is_refused(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    with pytest.raises(HostError) as refused:
        await service.create_match("boxes", [W, R], rules={"threesame": "on"})
    assert "accepts takeback, mulligan, clock" in error_text(refused.value)


# -- the grace stall (issue 15) ----------------------------------------------------------------------------


async def test_ready_every_0_8_s_still_loses_at_the_grace_limit(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    t0 = now()
    mid = await service.create_match("trax", [W, R], clock={"move": 1, "grace": 20, "presence": 1})
    while mid in service.live:
        await service.submit(mid, W.id, "ready")
        await asyncio.sleep(0.8)
    finished = rec.of("finished")[0]
    assert finished[1].data["reason"] == "time" and finished[1].data["winner"] == 2
    # grace limit (1 s + 20 s) plus one presence window (1 s), never more
    assert finished[0] - t0 <= 1 + 20 + 1 + 0.01
    assert finished[0] - t0 == pytest.approx(22, abs=0.05)


# -- pause means pause -----------------------------------------------------------------------------------


async def test_pause_freezes_the_take_back_window(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("trax", [W, R])
    await play(service, mid, [(W, "@0+")])
    await asyncio.sleep(2)
    await service.pause(mid, "host")
    await asyncio.sleep(60)
    assert service.pending_move(mid) is not None and not any(e.data.get("final") for _, e in rec.of("move"))
    assert (await service.submit(mid, W.id, "take back")).kind == "paused"
    await service.resume(mid, "host")
    t1 = now()
    await rec.wait("turn")
    assert now() - t1 == pytest.approx(3, abs=0.05)


async def test_pause_freezes_the_presence_check(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("trax", [W, R], clock={"move": 5, "grace": 100, "presence": 10})
    await asyncio.sleep(6)
    await play(service, mid, [(W, "ready")])
    await service.pause(mid, "host")
    await asyncio.sleep(300)
    assert not rec.of("presence_ok") and not rec.of("finished")
    await service.resume(mid, "host")
    t1 = now()
    await rec.wait("presence_ok")
    assert now() - t1 == pytest.approx(10, abs=0.05)


async def test_pause_during_the_mulligan_offer(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await _trax_until_win(service)
    await rec.wait("mulligan_offer")
    t0 = rec.of("mulligan_offer")[0][0]
    await asyncio.sleep(10)
    await service.pause(mid, "host")
    await asyncio.sleep(200)
    assert not rec.of("finished")
    await service.resume(mid, "host")
    t1 = now()
    await rec.wait("finished")
    assert rec.of("finished")[0][0] - t1 == pytest.approx(60 - (t1 - 200 - t0), abs=0.1)


async def test_the_advantage_choice_is_timed_and_pausable(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("boxes", [W, R], advantage=2, clock={"move": 30})
    assert "within 30s" in markdown(event_text(rec.of("choose")[0][1]))
    await service.pause(mid, "host")
    await asyncio.sleep(100)
    assert service.get(mid).status == "paused"
    await service.resume(mid, "host")
    assert service.get(mid).status == "held"
    t1 = now()
    started = await rec.wait("started")
    assert now() - t1 == pytest.approx(30, abs=0.05)
    assert "did not choose in time" in " ".join(markdown(event_text(e)) for _, e in rec.of("choice_timeout"))
    assert started.data["players"] == {"1": "rick", "2": "wendy"}
    await play(service, mid, [(R, "A1-B1")])


# -- a match saved before this change still resumes -------------------------------------------------------


async def store_legacy(url: str, old: dict[str, Any]) -> int:
    """Store a match as an older version wrote it (`tests/data/host/legacy_snapshot_*.json`): its id."""
    store = MatchStore(url)
    await store.open()
    try:
        return await store.create_match(
            game=old["game"],
            options=old["options"],
            clock=old["clock"],
            status=old["status"],
            players={int(s): (p[0], p[1]) for s, p in old["players"].items()},
            guild_id=None,
            channel_id=None,
            snapshot=old["snapshot"],
            events=[NewEvent("created", data=old["created"])],
        )
    finally:
        await store.close()


async def test_a_match_saved_in_the_old_snapshot_format_resumes(migrated_db_url: str) -> None:
    old = json.loads((DATA / "host" / "legacy_snapshot_trax.json").read_text())
    assert {"flags", "timers", "pending"} <= set(old["snapshot"]) and "rules" not in old["snapshot"]
    mid = await store_legacy(migrated_db_url, old)
    rec = Recorder()
    service = await make_service(migrated_db_url, rec)
    try:
        live = service.get(mid)
        pending = service.pending_move(mid)
        assert pending is not None and pending.seat == 2 and pending.message_id == "m-legacy"
        used = await service.submit(mid, R.id, "mulligan")
        assert used.status == "rejected" and "already used" in (reason_text(used) or "")
        taken = await service.withdraw(mid, R.id, message_id="m-legacy", via="delete")
        assert taken.status == "accepted", reason_text(taken)
        assert live.ply == 1 and live.ruleset.to_move(live.state) == 2
        stored = await service.store.load(mid)
        assert stored is not None and "rules" in stored.snapshot and "flags" not in stored.snapshot
        assert stored.snapshot["rules"]["mulligan"]["state"]["used"] == {"1": 0, "2": 1}
    finally:
        await service.close()
        await service.store.close()


async def test_an_old_snapshot_whose_clock_carries_the_window_resumes_with_that_take_back_rule(
    migrated_db_url: str,
) -> None:
    # Before the window was only the take-back rule's, the time control stored it (`clocks.tc.takeback`),
    # and a snapshot without `settings` took it from there.
    old = json.loads((DATA / "host" / "legacy_snapshot_trax.json").read_text())
    old["snapshot"]["clocks"]["tc"]["takeback"] = 3.0
    assert "settings" not in old["snapshot"]
    old["clock"] = {**old["clock"], "takeback": 3.0}
    mid = await store_legacy(migrated_db_url, old)
    service = await make_service(migrated_db_url, Recorder())
    try:
        live = service.get(mid)
        assert live.settings["takeback"] == 3.0
        assert next(r for r in live.rules if r.key == "takeback").describe() == "takeback=3"
        assert "takeback" not in live.clocks.tc.to_json()
    finally:
        await service.close()
        await service.store.close()


async def test_a_match_held_under_the_old_status_names_resumes_held(db_url: str) -> None:
    # Before `held`, a held match stored the holding rule's own status: `mulligan_wait` (and the advantage's
    # `choosing`). Such a row and snapshot must read back as HELD, with the mulligan still waiting for its answer.
    rec = Recorder()
    service = await make_service(db_url, rec)
    try:
        mid = await _trax_until_win(service)
        await rec.wait("mulligan_offer")
        assert service.get(mid).status == "held"
        stored = await service.store.load(mid)
        assert stored is not None
    finally:
        await service.close()
        await service.store.close()
    snapshot = {**stored.snapshot, "status": "mulligan_wait"}
    store = MatchStore(db_url)
    await store.open()
    old = await store.create_match(
        game="trax",
        options=stored.options,
        clock=stored.clock,
        status="mulligan_wait",  # the name an older version wrote
        players=stored.players,
        guild_id=None,
        channel_id=None,
        snapshot=snapshot,
        events=[NewEvent("created", data={})],
    )
    await store.close()
    service = await make_service(db_url, Recorder())
    try:
        live = service.get(old)
        mulligan = next(rule for rule in live.rules if rule.key == "mulligan")
        assert live.status == "held" and mulligan.holding()
        assert status_lines(live, now())[0] == "Waiting for the mulligan answer."
        winner = mulligan.dump(now())["offer"][0]
        used = await service.act(old, live.players[3 - winner].id, "mulligan")
        assert used.status == "accepted" and live.status == "ongoing"
    finally:
        await service.close()
        await service.store.close()
