"""One event stream, two rooms: the Discord board and the terminal room subscribe to the same host core
and word its events with the same `bot.wording`, so a game reads the same in both."""

from __future__ import annotations

import io
import json

from bot.adapters.terminal.room import Room, RoomConfig
from bot.compose import build_host
from tests.bot.adapters.discord.conftest import World, board_of, start


async def test_the_discord_board_and_the_terminal_room_hear_the_same_events(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=1 cols=2")
    out = io.StringIO()
    terminal = Room(
        RoomConfig(db_url="sqlite://", events_json=True), build_host(service=w.bot.service), out, shared=True
    )
    terminal.match_id = match_id
    for who, move in [(w.alice, "A1-B1"), (w.bob, "A2-B2"), (w.alice, "A1-A2"), (w.bob, "B1-B2")]:
        await who.send(room, move)
    heard = [json.loads(line) for line in out.getvalue().splitlines()]
    moves = [e for e in heard if e["event"] == "move"]
    assert [e["move"] for e in moves] == ["A1-B1", "A2-B2", "A1-A2", "B1-B2"]
    assert moves[-1]["text"] == "bob played B1-B2. bob takes 1 box and moves again."
    board = board_of(w, room, match_id).content
    record = "  ".join(f"{n}. {e['move']}" for n, e in enumerate(moves, 1))
    assert f"Moves: `{record}`" in board  # every move on the record ...
    assert f"> {moves[-1]['text']}" in board  # ... and what the last one did: the same sentence, from the same event
    turn = [e for e in heard if e["event"] == "turn"][-1]
    assert f"**{turn['text']}**" in board
