"""Game-specific host flows with the real engines and looptime clocks: Trax take-backs, mulligans and
grace; the Pathing penalty pick; Dot Dash setup and shifting confirmation; Dots stop and end."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.adapters.discord.render import markdown
from bot.host.service import MatchService, PlayerRef
from bot.wording import event_text, reason_text
from tests import DATA as TEST_DATA
from tests.bot.conftest import Recorder

W, R = PlayerRef("w", "wendy"), PlayerRef("r", "rick")
DATA = TEST_DATA / "host"
pytestmark = pytest.mark.looptime


async def play(service: MatchService, mid: int, moves: list[tuple[PlayerRef, str]], settle: float = 0.0) -> None:
    for who, text in moves:
        result = await service.submit(mid, who.id, text)
        assert result.status == "accepted", (text, reason_text(result))
        if settle:
            await asyncio.sleep(settle)


# -- Trax: the 5-second take-back window ------------------------------------------------------------


async def test_trax_move_is_provisional_then_final(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("trax", [W, R])
    t0 = asyncio.get_running_loop().time()
    await play(service, mid, [(W, "@0+")])
    assert rec.of("provisional")
    # Rick cannot move while Wendy's move is provisional, and his clock is not running.
    refused = await service.submit(mid, R.id, "B1+")
    assert refused.status == "rejected"
    live = service.get(mid)
    assert live.clocks.running == 1 and live.clocks.paused
    await asyncio.sleep(5.01)
    for _ in range(100):  # the window closed at 5 s; its write may still be on its way to the database
        if rec.of("move"):
            break
        await asyncio.sleep(0.01)
    final = [(t, e) for t, e in rec.of("move")]
    assert final and final[0][0] - t0 == pytest.approx(5, abs=0.05)
    assert live.clocks.running == 2 and not live.clocks.paused
    await play(service, mid, [(R, "B1+")])


async def test_trax_forced_tiles_are_announced_when_the_move_becomes_final(
    host: tuple[MatchService, Recorder],
) -> None:
    """While a move is provisional nothing is said of its forced tiles; once final, the sentence names them."""
    service, rec = host
    mid = await service.create_match("trax", [W, R])
    await play(service, mid, [(W, "@0/")], settle=6)
    await play(service, mid, [(R, "@1\\")], settle=6)
    await play(service, mid, [(W, "A0/")])
    provisional = rec.of("provisional")[-1][1]
    assert "forced" not in markdown(event_text(provisional))
    await asyncio.sleep(6)  # past the 5 s window, with room for the database's real time on a busy machine
    final = rec.of("move")[-1][1]
    assert final.data["move"] == "A0/"
    assert "wendy's move A0/ is final" in markdown(event_text(final)) and "forced: B1\\" in markdown(event_text(final))


@pytest.mark.parametrize("via", ["delete", "edit", "text"])
async def test_trax_take_back_within_five_seconds(host: tuple[MatchService, Recorder], via: str) -> None:
    service, rec = host
    mid = await service.create_match("trax", [W, R])
    await play(service, mid, [(W, "@0+")], settle=6)
    result = await service.submit(mid, R.id, "B1+", message_id="m2")
    assert result.status == "accepted"
    await asyncio.sleep(3)
    if via == "text":
        taken = await service.submit(mid, R.id, "take back")
    else:
        taken = await service.withdraw(mid, R.id, message_id="m2", via=via)
    assert taken.status == "accepted", reason_text(taken)
    live = service.get(mid)
    assert live.ruleset.extra(live.state)["tiles"] == 1
    assert live.ruleset.to_move(live.state) == 2 and live.clocks.running == 2
    assert rec.of("takeback")[-1][1].data["via"] == via
    await asyncio.sleep(10)
    assert [e.data["move"] for _, e in rec.of("move")] == ["@0+"]
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None and [e.kind for e in stored.events].count("takeback") == 1


async def test_trax_late_take_back_is_refused(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("trax", [W, R])
    await play(service, mid, [(W, "@0+")], settle=0)
    await asyncio.sleep(5.5)
    late = await service.submit(mid, W.id, "undo")
    assert late.status == "rejected"
    assert (await service.withdraw(mid, W.id, message_id=None, via="delete")).status == "rejected"
    # Deleting some other message is not a take-back.
    assert (await service.withdraw(mid, W.id, message_id="other", via="delete")).status == "ignored"
    live = service.get(mid)
    assert live.ruleset.extra(live.state)["tiles"] == 1


# -- Trax: mulligans -----------------------------------------------------------------------------------


async def test_trax_mulligan_during_play_rewinds_both_last_turns(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("trax", [W, R])
    refused = await service.submit(mid, W.id, "mulligan")
    assert refused.status == "rejected" and "no turn" in (reason_text(refused) or "")
    await play(service, mid, [(W, "@0+"), (R, "B1+"), (W, "A2+")], settle=5.5)
    live = service.get(mid)
    assert live.ruleset.extra(live.state)["tiles"] == 3
    # Rick rewinds his B1+ and Wendy's A2+; it is his turn again with a fresh clock.
    assert (await service.submit(mid, R.id, "mulligan")).status == "accepted"
    assert live.ruleset.extra(live.state)["tiles"] == 1
    assert live.ruleset.to_move(live.state) == 2 and live.clocks.running == 2
    again = await service.submit(mid, R.id, "mulligan")
    assert again.status == "rejected" and "already used" in (reason_text(again) or "")
    assert rec.of("mulligan")[0][1].data["rewound"] == 2


async def test_trax_mulligan_not_on_the_opponents_turn(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("trax", [W, R])
    await play(service, mid, [(W, "@0+"), (R, "B1+")], settle=5.5)
    refused = await service.submit(mid, R.id, "mulligan")
    assert refused.status == "rejected" and "own turn" in (reason_text(refused) or "")


LOOP_GAME = ["@0/", "@1/", "B0/", "B2/"]


async def test_trax_win_waits_for_the_losers_mulligan(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await _trax_until_win(service)
    offer = await rec.wait("mulligan_offer")
    loser = offer.data["loser"]
    loser_ref = W if loser == 1 else R
    assert not rec.of("finished")
    assert (await service.submit(mid, loser_ref.id, "mulligan")).status == "accepted"
    live = service.get(mid)
    assert live.ruleset.outcome(live.state) is None and live.ruleset.to_move(live.state) == loser


async def test_trax_declining_or_ignoring_the_mulligan_confirms_the_win(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await _trax_until_win(service)
    offer = await rec.wait("mulligan_offer")
    t0 = rec.of("mulligan_offer")[0][0]
    ev = await rec.wait("finished")
    assert ev.data["reason"] in ("loop", "line") and ev.data["winner"] == offer.data["winner"]
    assert rec.of("finished")[0][0] - t0 == pytest.approx(60, abs=0.1)
    stored = await service.store.load(mid)
    assert stored is not None and stored.status == "finished"
    mid2 = await _trax_until_win(service)
    loser = 3 - (await _last(rec, "mulligan_offer")).data["winner"]
    assert (await service.submit(mid2, (W if loser == 1 else R).id, "decline")).status == "accepted"
    assert (await service.store.load(mid2)).status == "finished"  # type: ignore[union-attr]


async def _last(rec: Recorder, kind: str):  # type: ignore[no-untyped-def]
    return rec.of(kind)[-1][1]


async def _trax_until_win(service: MatchService) -> int:
    """Play a short game that ends in a loop (found by a seeded random search over legal turns)."""
    from games import registry

    ruleset = registry.get("trax")
    import random

    rng = random.Random(7)
    for _attempt in range(200):
        state = ruleset.new_game(ruleset.parse_options({}))
        texts = []
        while ruleset.outcome(state) is None and len(texts) < 12:
            move = rng.choice(ruleset.legal_moves(state))
            texts.append(ruleset.format(state, move))
            state, _ = ruleset.apply(state, move)
        out = ruleset.outcome(state)
        if out is not None and len(texts) >= 3:
            break
    mid = await service.create_match("trax", [W, R])
    for i, text in enumerate(texts):
        who = W if i % 2 == 0 else R
        result = await service.submit(mid, who.id, text)
        assert result.status == "accepted", (text, reason_text(result))
        await asyncio.sleep(5.5)
    return mid


# -- Trax: one-grace clock and the three-same house rule ---------------------------------------------------


async def test_trax_grace_with_presence_and_the_ten_minute_cap(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    t0 = asyncio.get_running_loop().time()
    mid = await service.create_match("trax", [W, R])
    await asyncio.sleep(61)
    assert rec.of("clock")[-1][1].data["notice"] == "grace_started"
    assert (await service.submit(mid, W.id, "@0+")).status == "rejected"
    await service.submit(mid, W.id, "ready")
    presence = await rec.wait("presence")
    assert presence.data["confirmer_id"] == R.id
    await service.act(mid, R.id, "here")
    await play(service, mid, [(W, "@0+")], settle=5.5)
    # Rick's clock starts when Wendy's move is final; he uses his grace to the full 10 minutes and loses.
    t1 = rec.of("move")[-1][0]
    ev = await rec.wait("finished")
    assert ev.data["winner"] == 1 and ev.data["reason"] == "time"
    assert rec.of("finished")[0][0] - t1 == pytest.approx(660, abs=0.1)
    assert t1 - t0 > 61


async def test_trax_second_overrun_concedes(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("trax", [W, R])
    await asyncio.sleep(70)
    await service.submit(mid, W.id, "ready")
    await service.submit(mid, R.id, "here")
    await play(service, mid, [(W, "@0+")], settle=5.5)
    await play(service, mid, [(R, "B1+")], settle=5.5)
    t1 = rec.of("move")[-1][0]
    ev = await rec.wait("finished")
    assert ev.data["winner"] == 2 and ev.data["reason"] == "time"
    assert rec.of("finished")[0][0] - t1 == pytest.approx(60, abs=0.1)


async def test_trax_first_three_same_attempt_restarts_the_clock_once(host: tuple[MatchService, Recorder]) -> None:
    case = json.loads((DATA / "trax_three_same.json").read_text())
    service, _rec = host
    mid = await service.create_match("trax", [W, R])
    for i, text in enumerate(case["moves"]):
        await play(service, mid, [(W if i % 2 == 0 else R, text)], settle=5.5)
    mover = W if len(case["moves"]) % 2 == 0 else R
    live = service.get(mid)
    await asyncio.sleep(40)
    first = await service.submit(mid, mover.id, case["three_same"])
    assert first.status == "rejected" and first.kind == "illegal"
    assert any(e.kind == "clock" for e in first.events)
    assert live.clocks.remaining(live.clocks.running or 0, service.now())["move"] == pytest.approx(60, abs=0.1)
    await asyncio.sleep(20)
    second = await service.submit(mid, mover.id, case["three_same"])
    assert second.status == "rejected" and not any(e.kind == "clock" for e in second.events)
    assert live.clocks.remaining(live.clocks.running or 0, service.now())["move"] == pytest.approx(40, abs=0.1)
    await play(service, mid, [(mover, case["legal"])])


# -- Pathing, Dot Dash, Dots -----------------------------------------------------------------------------


async def test_pathing_penalty_pick_is_prompted_timed_and_validated(host: tuple[MatchService, Recorder]) -> None:
    from games import registry

    service, rec = host
    ruleset = registry.get("pathing")
    mid = await service.create_match("pathing", [W, R], clock={"move": 60, "reserve": 30})
    live = service.get(mid)
    names = {1: W, 2: R}
    while live.ruleset.extra(live.state)["phase"] == "move":
        seat = ruleset.to_move(live.state)
        move = ruleset.legal_moves(live.state)[0]
        await play(service, mid, [(names[seat], ruleset.format(live.state, move))])
        assert live.id in service.live
    assert "must now" in markdown(event_text(rec.of("move")[-1][1]))
    assert "must pick" in markdown(event_text(rec.of("turn")[-1][1]))
    picker = ruleset.to_move(live.state)
    refused = await service.submit(mid, names[picker].id, "A1-B1")
    assert refused.status == "rejected" and refused.kind == "illegal"
    # The pick is timed like any action: 60 s + reserve.
    t0 = asyncio.get_running_loop().time()
    ev = await rec.wait("finished")
    assert ev.data["reason"] == "time" and ev.data["winner"] == 3 - picker
    assert rec.of("finished")[0][0] - t0 == pytest.approx(90, abs=0.1)


async def test_dotdash_setup_choice_and_shift_confirmation(host: tuple[MatchService, Recorder]) -> None:
    # The moves of the replay case "shifting: red breaks its only five-row" (tests/data/replay/dotdash.jsonl).
    service, rec = host
    mid = await service.create_match("dotdash", [W, R])
    assert "`setup red F7 blue E5 G5`" in markdown(event_text(rec.of("started")[-1][1]))
    await play(service, mid, [(W, "setup blue M13 red A1 I1")])
    assert "`take red` or `take blue`" in markdown(event_text(rec.of("turn")[-1][1]))
    await play(service, mid, [(R, "take blue")])
    assert "plays blue" in markdown(event_text(rec.of("move")[-1][1]))
    await play(service, mid, [(R, "M13-J13"), (W, "A1-D1"), (R, "J13-E13"), (W, "I1-E1"), (R, "G13-J13")])
    first = await service.submit(mid, W.id, "C1-C4")
    assert first.status == "rejected" and first.kind == "confirm"
    live = service.get(mid)
    assert live.ply == 7
    assert reason_text(await service.submit(mid, R.id, "confirm")) == "There is nothing for you to confirm."
    assert (await service.submit(mid, W.id, "confirm")).status == "accepted"
    ev = await rec.wait("finished")
    assert ev.data["reason"] == "shift" and ev.data["winner"] == 2


async def test_dots_stop_then_free_moves_then_end(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("dots", [W, R], options={"width": 5, "height": 5, "start": "empty"})
    await play(service, mid, [(W, "C3"), (R, "stop")])
    assert "posts `end`" in markdown(event_text(rec.of("move")[-1][1]))
    assert "then post `end`" in markdown(event_text(rec.of("turn")[-1][1]))
    await play(service, mid, [(W, "A1"), (W, "B1")])
    refused = await service.submit(mid, R.id, "D4")
    assert refused.status == "rejected"
    await play(service, mid, [(W, "end")])
    ev = await rec.wait("finished")
    assert ev.data["reason"] == "stop"
