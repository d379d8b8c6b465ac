"""A correspondence match ends out loud, on a simulated Discord over simulated days (issue 48, points 2-3):
the result is a new message that mentions both players (an edit of a days-old board tells nobody), its
rematch offer lasts as long as a move, a move posted after the end is answered with the result, the
finished board keeps no stale "your move is waiting" or vacation line, and the end of a vacation is a new
message too."""

from __future__ import annotations

import simcord

from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_messages, resign, start

DAY = 86400
SLOW = "kind=correspondence move=2d"


def offer_open(w: World, room: simcord.ChannelHandle, offer_id: int) -> bool:
    """Whether the rematch offer's message still has its button."""
    (offer,) = [m for m in bot_messages(w, room) if m.id == offer_id]
    return "Rematch" in str(offer.components)


async def test_the_loss_on_time_is_a_new_message_to_both_and_the_offer_lasts_a_move(world: World) -> None:
    w = world
    match_id, room = await start(w, room="public", options="rows=2 cols=2", clock=SLOW)
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(2.1 * DAY)  # bob never moves: reminded at 80 %, then he loses on time
    live = w.bot.service.live.get(match_id)
    assert live is None
    told = [m for m in bot_messages(w, room) if "**Result:" in m.content and not m.content.startswith("**Match")]
    (result,) = [m for m in told if f"<@{w.alice.id}>" in m.content and f"<@{w.bob.id}>" in m.content]
    assert result.content.startswith(f"<@{w.alice.id}> <@{w.bob.id}> **Result:")
    assert "on time" in result.content
    board = board_of(w, room, match_id).content
    assert "is waiting" not in board and "left, time runs out" not in board  # the stale reminder line is gone
    assert "**The match is over.**" in board
    (offer,) = [m for m in bot_messages(w, room) if m.content.startswith("Play a rematch")]
    assert "within 2 days" in offer.content
    await w.env.advance_time(1.8 * DAY)  # still open after most of two days (it ended 0.1 day ago)
    assert offer_open(w, room, offer.id)
    await w.env.advance_time(0.2 * DAY)
    assert not offer_open(w, room, offer.id)


async def test_a_move_after_the_end_is_answered_and_chat_is_not(world: World) -> None:
    w = world
    match_id, room = await start(w, room="public", options="rows=2 cols=2", clock=SLOW)
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(2.1 * DAY)
    before = len(bot_messages(w, room))
    await w.bob.send(room, "gg, I was away")  # chat: no answer
    await w.env.advance_time(5)
    assert len(bot_messages(w, room)) == before
    await w.bob.send(room, "A2-B2")  # a move, days after the end
    await w.env.advance_time(5)
    (reply,) = bot_messages(w, room)[before:]
    assert reply.content.startswith(f"Match {match_id} is over: alice wins on time.")
    assert "No more moves are taken" in reply.content


async def test_the_end_of_a_vacation_is_a_new_message_and_leaves_the_finished_board(world: World) -> None:
    w = world
    match_id, room = await start(w, room="public", options="rows=2 cols=2", clock=SLOW)
    answer(await w.alice.slash(w.lobby, "dm event vacation", days=1))
    await w.env.advance_time(1.05 * DAY)  # the vacation's time came: both are told in a new message
    (back,) = [m for m in bot_messages(w, room) if "is back from vacation" in m.content and m.content.startswith("<@")]
    assert f"<@{w.alice.id}>" in back.content and f"<@{w.bob.id}>" in back.content
    answer(await w.alice.slash(w.lobby, "dm event vacation", days=1))
    await resign(w.alice, room, text=True)
    await w.env.advance_time(60)
    board = board_of(w, room, match_id).content
    assert "vacation" not in board  # the match is over: no line says a clock stands still
