"""The draw-offer house rule on a simulated Discord: the buttons and the keywords, refused where it is off."""

from __future__ import annotations

from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_text, start


async def test_offer_by_button_accept_by_keyword(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules="draw=on")
    live = w.bot.service.live[match_id]
    assert "Offer draw" in str(board_of(w, room, match_id).components)
    await w.alice.send(room, "A1-B1")
    await w.bob.click(board_of(w, room, match_id), label="Offer draw")
    board = board_of(w, room, match_id)
    assert "bob offers a draw" in board.content and "Accept draw" in str(board.components)
    refused = answer(await w.bob.click(board, label="Accept draw"))
    assert refused.ephemeral and "Only alice can" in refused.content
    assert live.status == "ongoing"
    await w.alice.send(room, "accept draw")
    assert live.status == "finished" and live.result == (None, "agreement")
    assert "Result: draw by agreement" in board_of(w, room, match_id).content
    stored = await w.bot.service.record(match_id)
    assert stored is not None and stored.result_reason == "agreement" and stored.winner_seat is None


async def test_offer_by_keyword_accept_by_button(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules="draw=on")
    live = w.bot.service.live[match_id]
    await w.alice.send(room, "offer draw")
    await w.bob.click(board_of(w, room, match_id), label="Accept draw")
    assert live.status == "finished" and live.result == (None, "agreement")


async def test_the_offer_lapses_when_the_opponent_moves(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules="draw=on")
    await w.alice.send(room, "offer draw")
    await w.alice.send(room, "A1-B1")
    assert "Accept draw" in str(board_of(w, room, match_id).components)
    await w.bob.send(room, "C1-C2")
    board = board_of(w, room, match_id)
    assert "draw offer lapsed" in board.content
    assert "Accept draw" not in str(board.components) and "Offer draw" in str(board.components)


async def test_refused_where_the_rule_is_off(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    live = w.bot.service.live[match_id]
    assert "Offer draw" not in str(board_of(w, room, match_id).components)
    await w.alice.send(room, "offer draw")
    assert "This match has no draw offers" in bot_text(w, room)
    assert live.status == "ongoing"
