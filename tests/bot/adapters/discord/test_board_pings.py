"""Quiet clocks on a simulated Discord: at most one ping per player and turn (the first warning), later
warnings only change the board, and a ping speaks to the player it mentions without naming them again.
The scenarios and the exact pings are in `tests/data/board/clock_pings.json`."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests import DATA
from tests.bot.adapters.discord.conftest import World, board_of, bot_messages, start

SCENARIOS: list[dict[str, Any]] = json.loads((DATA / "board" / "clock_pings.json").read_text())
LINK = re.compile(r" · \[↑ board\]\(<(https://discord\.com/channels/\d+/\d+/\d+)>\)$")


@pytest.mark.parametrize("case", SCENARIOS, ids=[c["game"] for c in SCENARIOS])
async def test_one_ping_per_player_and_turn_through_a_whole_timeout(world: World, case: dict[str, Any]) -> None:
    w = world
    players = {"alice": w.alice, "bob": w.bob}
    match_id, room = await start(w, case["game"], options=case["options"], clock=case["clock"])
    first = len(bot_messages(w, room))  # the board's first post mentions both players: it is not a ping
    for step in case["steps"]:
        if "post" in step:
            who, text = step["post"]
            await players[who].send(room, text)
        else:
            await w.env.advance_time(step["wait"])
        board = board_of(w, room, match_id)
        lines = [ln for ln in board.content.splitlines() if ln.startswith("> ")]
        if step.get("board") is not None:
            assert any(ln.startswith(step["board"]) for ln in lines[-2:]), (step, lines)
        assert len([ln for ln in lines if re.match(r"> \S+: \d+ s left", ln)]) <= 1, lines  # one clock line
    assert match_id not in w.bot.service.live, "the match ended on time"

    pings = [m for m in bot_messages(w, room)[first:] if m.mentions]
    board = board_of(w, room, match_id)
    seen = []
    for ping in pings:
        (user,) = ping.mentions
        name = user.name
        text = ping.content
        assert text.startswith(f"<@{user.id}> "), text
        link = LINK.search(text)
        assert link is not None and link.group(1) == board.jump_url, text
        said = text[len(f"<@{user.id}> ") : link.start()]
        assert not said.startswith(name), f"the mention is followed by the same name: {text!r}"
        seen.append([name, said])
    assert seen == case["pings"]
    per_player = [name for name, _said in seen]
    assert len(per_player) == len(set(per_player)), "at most one ping per player in the turn"
