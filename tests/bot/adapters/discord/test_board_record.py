"""The move record on the board (simulated Discord): the last 20 plies in the game's own notation,
numbered, apart from the event lines; a provisional move is one marker on its move."""

from __future__ import annotations

import re

from tests.bot.adapters.discord.conftest import World, board_of, start
from tests.bot.adapters.terminal.test_room_games import scripted_game

RECORD = re.compile(r"^Moves: `(.*)`(.*)$", re.MULTILINE)


def record_of(content: str) -> tuple[list[tuple[int, str]], bool, str]:
    """The board's record: (ply, move) pairs, whether earlier plies are left out, and what follows it."""
    m = RECORD.search(content)
    assert m is not None, content
    moves = m.group(1)
    earlier = moves.startswith("… ")
    pairs = [(int(n), mv) for n, mv in re.findall(r"(\d+)\. (\S+(?: \S+)*?)(?=  \d+\. |$)", moves.removeprefix("… "))]
    return pairs, earlier, m.group(2)


async def test_the_last_twenty_plies_stay_on_the_board_whatever_the_clocks_say(world: World) -> None:
    w = world
    lines, _outcome = scripted_game("boxes")  # 3×3: 24 moves, the notation as the engine writes it
    players = {"ann": w.alice, "ben": w.bob}
    match_id, room = await start(w, options="rows=3 cols=3", clock="move=60 reserve=120")
    board = board_of(w, room, match_id)
    assert "Moves:" not in board.content  # no moves yet, no record
    played = [line.split(": ", 1) for line in lines[:22]]
    for name, text in played:
        await players[name].send(room, text)
    pairs, earlier, _after = record_of(board_of(w, room, match_id).content)
    assert pairs == [(n, text) for n, (_name, text) in enumerate(played, 1)][-20:] and earlier
    await w.env.advance_time(51)  # 10 s left for this move ...
    await w.env.advance_time(10)  # ... the reserve runs ...
    await w.env.advance_time(95)  # ... 30 s before the loss on time: warnings are event lines
    content = board_of(w, room, match_id).content
    assert "s left before you lose on time" in content
    assert record_of(content)[0] == pairs, "the warnings never push the moves out"
    assert content.index("Moves:") < content.index("> ")


async def test_a_provisional_trax_move_is_one_marker_on_the_move(world: World) -> None:
    w = world
    match_id, room = await start(w, "trax", rules="takeback=30")
    await w.alice.send(room, "@0+")
    content = board_of(w, room, match_id).content
    pairs, _earlier, after = record_of(content)
    assert pairs == [(1, "@0+")] and re.fullmatch(r" \*\(final <t:\d+:R>\)\*", after), after
    assert not [ln for ln in content.splitlines() if ln.startswith("> ")], "no event line for the move"
    await w.env.advance_time(31)  # the window closes: the same move, final, without the marker
    content = board_of(w, room, match_id).content
    assert record_of(content) == ([(1, "@0+")], False, "")
    assert not [ln for ln in content.splitlines() if ln.startswith("> ")], "no second line either"
    await w.bob.send(room, "@1+")
    assert record_of(board_of(w, room, match_id).content)[0] == [(1, "@0+"), (2, "@1+")]
    await w.bob.send(room, "take back")  # a take-back takes the move off the record
    content = board_of(w, room, match_id).content
    assert record_of(content) == ([(1, "@0+")], False, "") and "took back @1+" in content


async def test_a_mulligan_rewinds_the_record_too(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules="mulligan=1")
    for who, move in [(w.alice, "A1-B1"), (w.bob, "C1-C2")]:
        await who.send(room, move)
    assert record_of(board_of(w, room, match_id).content)[0] == [(1, "A1-B1"), (2, "C1-C2")]
    await w.alice.send(room, "mulligan")  # her own last turn and bob's reply are undone
    content = board_of(w, room, match_id).content
    assert "Moves:" not in content and "mulligan" in content
    await w.alice.send(room, "B1-C1")
    assert record_of(board_of(w, room, match_id).content)[0] == [(1, "B1-C1")]


async def test_a_trax_move_ending_in_a_backslash_keeps_it_on_the_board(world: World) -> None:
    """Discord reads `\\.` as an escaped dot: the board's event line doubles the backslash so `@4\\` shows whole."""
    w = world
    match_id, room = await start(w, "trax", rules="takeback=0")
    moves = ["@0/", "A2\\", "B1/", "B0+", "B0/", "C3\\", "B4+", "@4\\"]  # the last one forces tiles: an event line
    for n, move in enumerate(moves):
        await (w.alice if n % 2 == 0 else w.bob).send(room, move)
    lines = [ln for ln in board_of(w, room, match_id).content.splitlines() if ln.startswith("> ")]
    assert any("played @4\\\\. forced:" in ln for ln in lines), lines
