"""One vocabulary (issue 28): a result reads the same on the board, in `/dm history` and in `/dm log`
(its summary and its text log), for a time win and a no-move win, on a simulated Discord."""

from __future__ import annotations

import io

import simcord
from PIL import Image

from tests.bot.adapters.discord.conftest import World, answer, board_of, play, start
from tests.games.test_pictures_legible import _marker_ink


async def _said_everywhere(w: World, room: simcord.ChannelHandle, match_id: int, sentence: str) -> None:
    assert f"**Result: {sentence}.**" in board_of(w, room, match_id).content
    history = answer(await w.dave.slash(w.lobby, "dm history", player=w.alice))
    assert f" — {sentence} · " in (history.embeds[0].description or "")
    w.env.settle_timeout = 120.0  # the replay GIF is drawn in a thread
    log = answer(await w.dave.slash(w.lobby, "dm log", match=match_id))
    w.env.settle_timeout = 5.0
    fields = {f.name: f.value for f in log.embeds[0].fields}
    assert fields["Result"] == sentence
    text = (await log.attachments[0].read()).decode()
    assert f"Result: {sentence}" in text.splitlines()
    assert "seat" not in text and "None" not in text  # players, not seats; only what is set


async def test_a_time_win_reads_the_same_everywhere(world: World) -> None:
    w = world
    match_id, room = await start(w, "dots", options="width=5 height=5 start=empty", clock="move=30 reserve=0")
    # alice's C3 is played into bob's empty enclosure and captured at once: bob 1, alice 0
    moves = ["E5", "C2", "A1", "B3", "A2", "D3", "A3", "C4", "C3", "E1"]
    await play(w, room, [(w.alice if i % 2 == 0 else w.bob, m) for i, m in enumerate(moves)])
    live = w.bot.service.live[match_id]
    assert live.ruleset.scores(live.state) == {1: 0, 2: 1} and live.to_move() == 1
    await w.env.advance_time(40)  # alice never moves again
    await _said_everywhere(w, room, match_id, "bob wins on time, 1–0")
    # The board's picture gives the winner the ★ though the engine knows nothing of clocks.
    board = board_of(w, room, match_id)
    with Image.open(io.BytesIO(await board.attachments[0].read())) as picture:
        assert _marker_ink(picture, 2) > 0 and _marker_ink(picture, 1) == 0


async def test_a_no_move_win_reads_the_same_everywhere(world: World) -> None:
    w = world
    match_id, room = await start(w, "dotdash", options="stones=3")
    await w.alice.send(room, "setup red F7 blue E5 G5")
    await w.bob.click(board_of(w, room, match_id), label="Take blue")
    await w.alice.send(room, "F7-I10")  # bob has one stone left in reserve: too few to move
    await _said_everywhere(w, room, match_id, "alice wins: bob has no move")


async def test_bad_options_are_said_in_players_words(world: World) -> None:
    w = world
    for options, says in [
        ("width=99", "width must be at most 52"),
        ("colour=red", "there is no option 'colour'; the options are width, height, start, seed, free_order"),
    ]:
        pair = {"player1": w.alice, "player2": w.bob}
        r = answer(await w.carol.slash(w.lobby, "dm start", game="dots", options=options, **pair))
        assert r.ephemeral and says in r.content and "Input should" not in r.content, r.content
    r = answer(await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob, clock="speed=3"))
    assert "the settings are kind, move, reserve" in r.content
