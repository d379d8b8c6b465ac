"""Adjournment by agreement (`adjourn=on`), in the terminal room and through the host: a proposal, the
opponent's acceptance, both clocks stopped and moves refused until the agreed time, then the match
resumes by itself; a move instead of accepting lets the proposal lapse; a restart keeps the rest."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.terminal.room import Room
from bot.compose import build_host
from bot.host.service import PlayerRef
from bot.wording import reason_text, status_lines
from tests.bot.conftest import Recorder, make_service, room_config, typed

W, R = PlayerRef("w", "wendy"), PlayerRef("r", "rick")
pytestmark = pytest.mark.looptime


async def test_in_the_terminal_room(tmp_path: Path) -> None:
    config = room_config(tmp_path, options={"rows": "2", "cols": "2"}, rules={"adjourn": "on"})
    queue = typed("alice: adjourn for 1m", "bob: accept adjournment", "alice: A1-B1")
    out = io.StringIO()
    room = asyncio.create_task(Room(config, build_host(config.db_url), out=out).run(queue))
    await asyncio.sleep(70)  # past the agreed minute (loop time)
    queue.put_nowait("alice: A1-B1")
    queue.put_nowait(None)
    assert await room == 0
    heard = [json.loads(line) for line in out.getvalue().splitlines()]
    said = [(e["event"], e.get("text") or e.get("reason")) for e in heard[1:-1] if e["event"] != "turn"]
    assert said[:3] == [
        (
            "adjourn_offer",
            "alice proposes to adjourn the match for 1m, clocks stopped. bob, post `accept adjournment` to agree; "
            "your move declines it.",  # the terminal has no buttons: it never says "press"
        ),
        ("adjourned", "Adjourned by agreement for 1m: both clocks are stopped, and the match resumes by itself."),
        ("rejected", "The match is adjourned: it resumes by itself at the agreed time."),
    ]
    assert said[3][0] == "adjourn_over" and said[3][1].startswith("The adjournment is over: the match goes on.")
    assert said[4] == ("move", "alice played A1-B1.")


async def test_clocks_stop_and_the_match_resumes_by_itself(db_url: str) -> None:
    rec = Recorder()
    service = await make_service(db_url, rec, heartbeat_seconds=7 * 86400)
    try:
        mid = await service.create_match("boxes", [W, R], clock={"move": 60, "reserve": 300}, rules={"adjourn": "on"})
        live = service.get(mid)
        assert (await service.submit(mid, W.id, "adjourn")).refusal is not None  # for how long?
        assert (await service.submit(mid, W.id, "adjourn for 2h")).status == "accepted"
        assert (await service.act(mid, R.id, "accept_adjourn")).status == "accepted"
        assert live.status == "held" and status_lines(live, 0)[0].startswith("Adjourned by agreement")
        before = live.clocks.remaining(1, asyncio.get_running_loop().time())
        await asyncio.sleep(2 * 3600 - 10)
        assert live.status == "held" and not rec.of("finished")  # no clock ran out meanwhile
        assert live.clocks.remaining(1, asyncio.get_running_loop().time()) == before
        await rec.wait("adjourn_over")
        assert live.status == "ongoing"
        moved = await service.submit(mid, W.id, "A1-B1")
        assert moved.status == "accepted", reason_text(moved)
    finally:
        await service.close()
        await service.store.close()


async def test_a_move_instead_of_accepting_lets_it_lapse_and_a_restart_keeps_the_rest(db_url: str) -> None:
    rec = Recorder()
    service = await make_service(db_url, rec, heartbeat_seconds=7 * 86400)
    try:
        mid = await service.create_match("dots", [W, R], rules={"adjourn": "on"})
        await service.submit(mid, W.id, "adjourn for 30m")
        first = await service.submit(mid, W.id, service.get(mid).ruleset.format(*_first_move(service, mid)))
        assert first.status == "accepted", reason_text(first)
        second = await service.submit(mid, R.id, service.get(mid).ruleset.format(*_first_move(service, mid)))
        assert second.status == "accepted", reason_text(second)
        assert rec.of("adjourn_lapsed") and service.get(mid).status == "ongoing"
        refused = await service.submit(mid, R.id, "accept adjournment")
        assert "no proposal" in (reason_text(refused) or "")
        assert (await service.submit(mid, W.id, "adjourn for 1d")).status == "accepted"
        assert (await service.submit(mid, R.id, "accept adjournment")).status == "accepted"
    finally:
        await service.close()
    service = await make_service(db_url, rec, heartbeat_seconds=7 * 86400)
    try:
        live = service.get(mid)
        assert live.status == "held"
        refused = await service.submit(mid, W.id, live.ruleset.format(*_first_move(service, mid)))
        assert "adjourned" in (reason_text(refused) or "")
        await asyncio.sleep(86400 + 5)
        assert live.status == "ongoing" and rec.of("adjourn_over")
    finally:
        await service.close()
        await service.store.close()


def _first_move(service: Any, mid: int) -> tuple[Any, Any]:
    live = service.get(mid)
    return live.state, live.ruleset.legal_moves(live.state)[0]
