"""Messages posted while the bot is away are read back from the room when it returns (issue 18)."""

from __future__ import annotations

import pytest
from simcord.env import _attach_bot  # the documented way to bring a detached bot back (ECOSYSTEM.md)

from bot.adapters.discord.app import create_bot
from bot.ops.apps import discord_app
from bot.settings import Settings
from tests.bot.adapters.discord.conftest import World, board_of, bot_messages, now, start


async def go_away(w: World) -> None:
    """The bot process stops (timers and heartbeat stop with it); the world carries on."""
    await w.env._settle_internal()
    with w.env._bot_scope():
        await w.bot.service.close()
        await w.bot.service.store.close()
    await w.env._detach_bot()


async def come_back(w: World, settings: Settings) -> None:
    """A fresh bot process starts against the same database and the same Discord."""
    await _attach_bot(w.env, create_bot(settings, discord_app(settings), sync_commands=True))
    await w.env._settle_internal()


async def test_a_move_posted_while_away_is_taken_and_charged_only_up_to_its_time(
    world: World, settings: Settings
) -> None:
    w = world
    match_id, room = await start(w, room="public", clock="move=60 reserve=300")
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(20)  # bob thinks 20 s ...
    await go_away(w)
    await w.env.advance_time(30)  # the bot is away for a while ...
    await w.bob.send(room, "A2-B2")  # ... bob moves meanwhile ...
    await w.alice.send(room, "hello?")  # (chat is still chat)
    await w.env.advance_time(45)  # ... and the bot is away a while longer
    await come_back(w, settings)
    live = w.bot.service.live[match_id]
    assert live.ply == 2 and live.ruleset.to_move(live.state) == 1
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    (bobs,) = [e for e in stored.events if e.kind == "move" and e.seat == 2]
    # 20 s before the bot left and the 30 s until he posted: not the 45 s of downtime after his message
    assert bobs.data["used"] == pytest.approx(50, abs=1)
    board = board_of(w, room, match_id)  # the same board message, kept current
    assert "Moves: `1. A1-B1  2. A2-B2`" in board.content and "alice to move" in board.content
    assert len([m for m in bot_messages(w, room) if f"**Match {match_id} · " in m.content]) == 1
    assert live.clocks.remaining(1, now(w))["move"] == pytest.approx(60, abs=1)


async def test_two_moves_posted_while_away_only_the_first_legal_one_counts(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    await go_away(w)
    await w.alice.send(room, "A1-C1")  # illegal: answered when the bot is back
    await w.alice.send(room, "A1-B1")
    await w.alice.send(room, "B1-C1")  # a second move of the same turn: not her turn any more
    await come_back(w, settings)
    live = w.bot.service.live[match_id]
    assert live.ply == 1
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    assert [e.data["move"] for e in stored.events if e.kind == "move"] == ["A1-B1"]
    replies = [m.content for m in bot_messages(w, room) if m.reference is not None]
    assert any(r.startswith("Illegal move `A1-C1`") for r in replies)
    assert any("bob's turn" in r for r in replies)
    board = board_of(w, room, match_id)
    assert all(r.endswith(f"[↑ board](<{board.jump_url}>)") for r in replies), replies  # the board at hand


async def test_a_provisional_trax_move_deleted_while_away_never_happens(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, "trax", rules="takeback=30")  # a window longer than a slow test step
    await go_away(w)
    msg = await w.alice.send(room, "@0+")
    await w.alice.delete(msg)  # taken back inside its window, while the bot was away
    await w.alice.send(room, "@0/")
    await come_back(w, settings)
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    assert [e.data["move"] for e in stored.events if e.kind == "move"] == ["@0/"]


async def test_a_move_posted_after_the_movers_time_ran_out_while_away_loses_on_time(
    world: World, settings: Settings
) -> None:
    w = world
    match_id, room = await start(w, room="public", clock="move=60 reserve=30")
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(20)
    await go_away(w)
    await w.env.advance_time(75)  # 95 s in all: bob's 90 s ran out while the bot was away
    await w.bob.send(room, "A2-B2")
    await come_back(w, settings)
    assert match_id not in w.bot.service.live
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    assert (stored.status, stored.winner_seat, stored.result_reason) == ("finished", 1, "time")
    assert [e.data["move"] for e in stored.events if e.kind == "move"] == ["A1-B1"]
    replies = [m.content for m in bot_messages(w, room) if m.reference is not None]
    assert any(r.startswith("Too late") for r in replies)


async def test_a_move_posted_in_time_while_away_is_taken_even_if_the_bot_came_back_after_the_deadline(
    world: World, settings: Settings
) -> None:
    w = world
    match_id, room = await start(w, room="public", clock="move=60 reserve=30")
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(20)
    await go_away(w)
    await w.env.advance_time(50)  # 70 s: in his reserve, still in time
    await w.bob.send(room, "A2-B2")
    await w.env.advance_time(100)  # the deadline passes while the bot is still away
    await come_back(w, settings)
    live = w.bot.service.live[match_id]
    assert live.ply == 2
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    (bobs,) = [e for e in stored.events if e.kind == "move" and e.seat == 2]
    assert bobs.data["used"] == pytest.approx(70, abs=1)
    assert live.clocks.reserve_left[2] == pytest.approx(20, abs=1)


async def test_without_a_message_from_the_mover_the_downtime_is_not_charged(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, room="public", clock="move=60 reserve=30")
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(20)
    await go_away(w)
    await w.env.advance_time(500)
    await come_back(w, settings)
    live = w.bot.service.live[match_id]
    assert live.status == "ongoing"
    assert live.clocks.remaining(2, now(w))["move"] == pytest.approx(40, abs=1)


# -- issue 27: no read-back limit, one folded reply, clocks from the previous late action, no double handling --


async def test_a_move_followed_by_250_chat_lines_while_away_counts_with_one_folded_reply(
    world: World, settings: Settings
) -> None:
    w = world
    match_id, room = await start(w, room="public", clock="move=600 reserve=600")
    await w.alice.send(room, "A1-B1")
    await go_away(w)
    await w.bob.send(room, "A2-B2")
    for i in range(250):  # more than two pages of history; every 25th line looks like a move and gets a reply
        speaker = w.alice if i % 2 else w.bob
        await speaker.send(room, "B9-B10" if i % 25 == 0 else "hmm, nice")
    before = len(bot_messages(w, room))
    await come_back(w, settings)
    live = w.bot.service.live[match_id]
    assert live.ply == 2 and live.ruleset.to_move(live.state) == 1
    new = bot_messages(w, room)[before:]
    replies = [m for m in new if m.reference is not None]
    assert len(replies) == 1, [m.content for m in new]
    assert len(replies[0].content.splitlines()) == 10  # ten replies, folded into one message
    assert "It is alice's turn" in replies[0].content and "B9-B10" in replies[0].content


async def test_late_moves_are_charged_from_the_previous_late_actions_discord_time(
    world: World, settings: Settings
) -> None:
    w = world
    match_id, room = await start(w, room="public", clock="move=60 reserve=300")
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(10)  # bob thinks 10 s while the bot is there ...
    await go_away(w)
    await w.env.advance_time(10)  # ... and 10 s more after it left
    await w.bob.send(room, "A2-B2")
    await w.env.advance_time(5)  # alice answers 5 s after bob
    await w.alice.send(room, "B1-B2")
    await w.env.advance_time(40)  # the bot comes back later still
    await come_back(w, settings)
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    used = [(e.seat, e.data["used"]) for e in stored.events if e.kind == "move"]
    assert used[1:] == [(2, pytest.approx(20, abs=0.5)), (1, pytest.approx(5, abs=0.5))]
    live = w.bot.service.live[match_id]
    assert live.ply == 3 and live.clocks.running == 2  # bob's clock runs from the restart: the gap is nobody's
    assert live.clocks.remaining(2, now(w))["move"] == pytest.approx(60, abs=1)


async def test_a_keyword_handled_before_a_restart_is_not_handled_again(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, "trax", rules="takeback=30")
    await w.alice.send(room, "@0+")
    await w.alice.send(room, "take back")
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    takebacks = [e for e in stored.events if e.kind == "takeback"]
    assert len(takebacks) == 1 and takebacks[0].message_id is not None  # recorded with its message
    await go_away(w)
    before = len(bot_messages(w, room))
    await come_back(w, settings)
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    assert len([e for e in stored.events if e.kind == "takeback"]) == 1
    assert [m for m in bot_messages(w, room)[before:] if m.reference is not None] == []
    assert w.bot.service.live[match_id].ply == 0


async def test_a_refused_keyword_is_not_answered_again_after_a_restart(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, "trax", rules="takeback=30")
    await w.alice.send(room, "take back")  # nothing to take back: refused, with a reply
    replies = [m for m in bot_messages(w, room) if m.reference is not None]
    assert len(replies) == 1
    await go_away(w)
    await come_back(w, settings)
    assert len([m for m in bot_messages(w, room) if m.reference is not None]) == 1
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    assert [e.kind for e in stored.events if e.message_id is not None] == ["refused"]
