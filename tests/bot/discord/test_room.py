"""The game-room message path through dpytest: real discord.py objects, real service, real SQLite."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import discord.ext.test.backend as back
import pytest

from bot import rules as house
from bot.service import PlayerRef
from tests.bot.discord.harness import Harness, text_of

pytestmark = pytest.mark.looptime


@pytest.fixture
async def room(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    monkeypatch.chdir(tmp_path)  # dpytest writes attachments into the working directory
    h = await Harness.start(db_url)
    yield h
    await h.stop()


async def start_boxes(h: Harness, rows: int = 1, cols: int = 1) -> int:
    match_id = await h.bot.service.create_match(
        "boxes",
        [PlayerRef(str(h.alice.id), "alice"), PlayerRef(str(h.bob.id), "bob")],
        options={"rows": rows, "cols": cols},
        guild_id=h.guild.id,
        channel_id=h.channel.id,
    )
    await h.settle()
    return match_id


async def test_full_boxes_match_in_the_room(room: Harness) -> None:
    h = room
    match_id = await start_boxes(h, 1, 2)
    opening = h.messages()
    assert "Match" in opening[0].content and "```" in opening[0].content  # the board message
    assert "started" in text_of(opening)
    board = opening[0]
    for who, move in [(h.alice, "A1-B1"), (h.bob, "B1-C1"), (h.alice, "A2-B2"), (h.bob, "B2-C2"), (h.alice, "A1-A2")]:
        await h.say(who, move)
    await h.settle()
    await h.say(h.bob, "C1-C2")  # closes nothing
    await h.say(h.alice, "B1-B2")  # closes both boxes: alice wins 2-0
    await h.settle()
    sent = h.messages()
    assert all(m.id != board.id for m in sent), "the board is edited, not re-posted"
    assert "alice wins" in text_of(sent)
    stored = await h.bot.service.store.load(match_id)
    assert stored is not None and stored.status == "finished" and stored.winner_seat == 1
    assert match_id not in h.bot.service.live
    # the one board message now shows the final position
    (final,) = [m for m in back._cur_config.messages[h.channel.id] if int(m["id"]) == board.id]
    assert "The match is over" in final["content"] and "A1-B1" not in final["content"]


async def test_illegal_and_malformed_moves_get_short_replies(room: Harness) -> None:
    h = room
    await start_boxes(h)
    h.messages()
    await h.say(h.alice, "A1-C1")
    await h.say(h.alice, "A1-Z")
    await h.say(h.alice, "hello there, good luck @everyone")  # chat: silently ignored
    await h.say(h.bob, "A1-B1")  # out of turn
    await h.settle()
    replies = h.messages()
    texts = [m.content for m in replies]
    assert len(texts) == 3, texts
    assert texts[0].startswith("Illegal move") and "A1-C1" in texts[0]
    assert texts[1].startswith("I can't read")
    assert "alice's turn" in texts[2]
    assert all("@everyone" not in t for t in texts)


async def test_mass_mentions_are_never_echoed_as_pings(room: Harness) -> None:
    h = room
    await start_boxes(h)
    h.messages()
    await h.say(h.alice, "A1-@everyone")
    await h.settle()
    (reply,) = h.messages()
    assert "@everyone" not in reply.content  # the service breaks it, and allowed_mentions forbids it anyway
    assert not reply.mention_everyone


async def test_non_players_and_bots_are_ignored(room: Harness) -> None:
    h = room
    match_id = await start_boxes(h)
    h.messages()
    await h.say(h.carol, "A1-B1")
    await h.settle()
    assert h.messages() == []
    assert h.bot.service.live[match_id].ply == 0


async def test_two_moves_racing_only_the_first_counts(room: Harness) -> None:
    h = room
    match_id = await start_boxes(h, 2, 2)
    h.messages()
    service = h.bot.service
    # both arrive before either is processed: the match lock orders them, the first legal one wins
    first, second = await asyncio.gather(
        service.submit(match_id, str(h.alice.id), "A1-B1", message_id="1"),
        service.submit(match_id, str(h.alice.id), "B1-C1", message_id="2"),
    )
    assert first.status == "accepted"
    assert second.status == "rejected" and second.kind == "turn"
    # and through Discord: alice and bob post at once, both handled, one accepted
    await asyncio.gather(h.say(h.bob, "A3-B3"), h.say(h.bob, "B3-C3"))
    await h.settle()
    assert service.live[match_id].ply == 2


@pytest.fixture
def takeback_boxes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Boxes with Trax's 5-second take-back window: the delete/edit path without the Trax engine."""
    monkeypatch.setitem(house.DEFAULTS, "boxes", {"takeback": 5.0})


@pytest.mark.usefixtures("takeback_boxes")
@pytest.mark.parametrize("via", ["delete", "edit"])
async def test_takeback_by_deleting_or_editing_the_move(room: Harness, via: str) -> None:
    h = room
    match_id = await start_boxes(h, 2, 2)
    h.messages()
    msg = await h.say(h.alice, "A1-B1")
    live = h.bot.service.live[match_id]
    assert live.pending is not None
    if via == "delete":
        await h.delete(msg)
    else:
        await h.edit(msg, "A1-B1 oops")
    await h.settle()
    assert live.pending is None and live.ply == 0
    assert "took back A1-B1" in text_of(h.messages())
    stored = await h.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    assert [e.data.get("via") for e in stored.events if e.kind == "takeback"] == [via]


@pytest.mark.usefixtures("takeback_boxes")
async def test_takeback_too_late_and_by_the_opponent_does_nothing(room: Harness) -> None:
    h = room
    match_id = await start_boxes(h, 2, 2)
    msg = await h.say(h.alice, "A1-B1")
    await asyncio.sleep(6)  # the window is closed: the move is final
    await h.delete(msg)
    await h.settle()
    live = h.bot.service.live[match_id]
    assert live.ply == 1 and live.pending is None
    stored = await h.bot.service.store.load(match_id, with_events=True)
    assert stored is not None and not [e for e in stored.events if e.kind == "takeback"]


@pytest.mark.usefixtures("takeback_boxes")
async def test_takeback_button(room: Harness) -> None:
    h = room
    match_id = await start_boxes(h, 2, 2)
    await h.say(h.alice, "A1-B1")
    await h.settle()
    take = f"dm:{match_id}:1:take"
    assert take in h.buttons()
    stranger = await h.click(h.carol, take)
    assert stranger[-1].ephemeral and "Only the player" in stranger[-1].content
    opponent = await h.click(h.bob, take)
    assert opponent[-1].ephemeral and "no move of yours" in opponent[-1].content
    done = await h.click(h.alice, take)
    assert done[-1].type == 7  # the message is updated (buttons removed)
    assert h.bot.service.live[match_id].ply == 0


@pytest.mark.parametrize("via", ["delete", "edit"])
async def test_trax_takeback(room: Harness, via: str) -> None:
    h = room
    match_id = await h.bot.service.create_match(
        "trax",
        [PlayerRef(str(h.alice.id), "alice"), PlayerRef(str(h.bob.id), "bob")],
        guild_id=h.guild.id,
        channel_id=h.channel.id,
    )
    await h.settle()
    msg = await h.say(h.alice, "@0+")
    live = h.bot.service.live[match_id]
    assert live.pending is not None
    if via == "delete":
        await h.delete(msg)
    else:
        await h.edit(msg, "@0/")
    await h.settle()
    assert live.pending is None and live.ply == 0


async def test_board_picture_when_pictures_exist(room: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.discord.announce import _cog

    monkeypatch.setattr(_cog, "picture", lambda live: b"\x89PNG fake")
    room.announcer.pictures = True
    await start_boxes(room)
    room.messages()
    written = [f.read_bytes() for f in Path.cwd().glob("dpytest_*.dat")]  # dpytest's copy of the upload
    assert written == [b"\x89PNG fake"]
