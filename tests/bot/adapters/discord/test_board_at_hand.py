"""The board stays at hand (simulated Discord): every reply in the room links to the board, and once more
than 10 messages pile up below it, its next update posts it at the bottom (the old one shrinks to a link)."""

from __future__ import annotations

import re

from bot.settings import Settings
from tests.bot.adapters.discord.conftest import World, board_of, bot_messages, start
from tests.bot.adapters.discord.test_catch_up import come_back, go_away
from tests.bot.adapters.terminal.test_room_games import scripted_game

LINK = re.compile(r"\[↑ board\]\(<(https://discord\.com/channels/\d+/\d+/\d+)>\)")


async def test_every_reply_in_the_room_links_to_the_board(world: World) -> None:
    w = world
    match_id, room = await start(w, room="public")
    before = len(bot_messages(w, room))
    for who, text in [(w.alice, "A1-C1"), (w.alice, "A1-Z"), (w.bob, "A1-B1")]:  # illegal, unreadable, not his turn
        await who.send(room, text)
    replies = bot_messages(w, room)[before:]
    assert len(replies) == 3
    board = board_of(w, room, match_id)
    for reply in replies:
        link = LINK.search(reply.content)
        assert link is not None and link.group(1) == board.jump_url, reply.content


async def test_the_board_moves_down_when_messages_pile_up_below_it(world: World) -> None:
    w = world
    lines, _outcome = scripted_game("boxes")
    players = {"ann": w.alice, "ben": w.bob}
    match_id, room = await start(w, room="public", options="rows=3 cols=3", clock="move=600 reserve=600")
    first = board_of(w, room, match_id)
    moves = iter(line.split(": ", 1) for line in lines)
    for _ in range(4):  # 4 moves and 7 chat lines: 11 messages below the board, not yet moved
        name, text = next(moves)
        await players[name].send(room, text)
    for i in range(7):
        await w.dave.send(room, f"nice game {i}")
    assert board_of(w, room, match_id).id == first.id
    for _ in range(6):  # ... an update moves it once it showed 10 moves since it was posted
        name, text = next(moves)
        await players[name].send(room, text)
    board = board_of(w, room, match_id)
    assert board.id != first.id
    newest = room.history()[-1]
    messages_below = [m for m in room.history() if m.id > board.id]
    assert len(messages_below) <= 1 and newest.id in (board.id, *[m.id for m in messages_below])
    shrunk = next(m for m in room.history() if m.id == first.id)
    link = re.search(r"\[↓ board\]\(<(.+?)>\)", shrunk.content)
    assert link is not None and link.group(1) == board.jump_url and not shrunk.attachments
    assert board.attachments and "Moves: `1. " in board.content
    await w.alice.send(room, "A1-A1")  # a reply now links to the board at the bottom
    assert LINK.search(bot_messages(w, room)[-1].content).group(1) == board.jump_url  # type: ignore[union-attr]
    for name, text in moves:  # to the end: the result is on the board at hand
        await players[name].send(room, text)
    final = board_of(w, room, match_id)
    assert "Result:" in final.content and final.id >= board.id


async def test_after_a_restart_the_pile_below_the_board_is_counted_from_the_room(
    world: World, settings: Settings
) -> None:
    w = world
    match_id, room = await start(w, room="public", options="rows=3 cols=3", clock="move=600 reserve=600")
    await w.alice.send(room, "A1-B1")
    first = board_of(w, room, match_id)
    for i in range(11):
        await w.dave.send(room, f"chat {i}")
    await go_away(w)
    await come_back(w, settings)  # the new process finds its board and the 11 messages below: it moves down
    board = board_of(w, room, match_id)
    assert board.id != first.id and not [m for m in room.history() if m.id > board.id]
    await w.bob.send(room, "A2-B2")
    assert board_of(w, room, match_id).id == board.id  # one message below it now: edited in place
    assert "Moves: `1. A1-B1  2. A2-B2`" in board_of(w, room, match_id).content
    assert "the board has moved down" in next(m for m in room.history() if m.id == first.id).content
