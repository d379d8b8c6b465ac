"""Adjournment by agreement on a simulated Discord: the proposal pings the opponent, who accepts with the
board's button; the board shows the rest and its end as a timestamp, moves are refused meanwhile, and the
match resumes by itself at the agreed time."""

from __future__ import annotations

import pytest

from tests.bot.adapters.discord.conftest import World, board_of, bot_text, start


@pytest.mark.slow  # a whole match adjourned over simulated days
async def test_adjourned_by_agreement_then_resumed(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules="adjourn=on")
    live = w.bot.service.live[match_id]
    await w.alice.send(room, "adjourn for 2h")
    assert f"<@{w.bob.id}>" in bot_text(w, room)  # the proposal pings the one who must answer
    assert "Accept adjournment" in str(board_of(w, room, match_id).components)
    await w.bob.click(board_of(w, room, match_id), label="Accept adjournment")
    board = board_of(w, room, match_id).content
    assert "Adjourned by agreement for 2h" in board and "The adjournment ends <t:" in board
    assert live.status == "held"
    await w.alice.send(room, "A1-B1")
    assert "The match is adjourned: it resumes by itself at the agreed time." in bot_text(w, room)
    await w.env.advance_time(2 * 3600 + 5)
    board = board_of(w, room, match_id).content
    assert "The adjournment is over" in board and "adjournment ends" not in board
    assert live.status == "ongoing"
    await w.alice.send(room, "A1-B1")
    assert "Moves: `1. A1-B1`" in board_of(w, room, match_id).content


async def test_refused_where_the_rule_is_off(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    await w.alice.send(room, "adjourn for 2h")
    assert "This match has no adjournments" in bot_text(w, room)
    assert w.bot.service.live[match_id].status == "ongoing"
