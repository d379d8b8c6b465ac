"""The game room on a simulated Discord: who is heard, replies, take-backs, the live board."""

from __future__ import annotations

import asyncio
import re

import discord
import pytest

from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_messages, bot_text, now, play, start


async def test_full_boxes_match_board_edited_in_place_to_the_final_position(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=1 cols=2")
    board = board_of(w, room, match_id)
    assert board.attachments and board.attachments[0].filename == "board.png"
    assert "alice (red) vs bob (blue)" in board.content and "alice to move" in board.content
    await play(
        w,
        room,
        [
            (w.alice, "A1-B1"),
            (w.bob, "B1-C1"),
            (w.alice, "A2-B2"),
            (w.bob, "B2-C2"),
            (w.alice, "A1-A2"),
            (w.bob, "C1-C2"),  # closes nothing
            (w.alice, "B1-B2"),  # closes both boxes: alice wins 2-0
        ],
    )
    final = board_of(w, room, match_id)
    assert final.id == board.id, "the board is edited, never re-posted"
    assert "alice wins" in final.content and "The match is over" in final.content
    assert final.attachments and final.attachments[0].id != board.attachments[0].id  # a new picture
    assert "<t:" not in final.content and final.components == []
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.status == "finished" and stored.winner_seat == 1
    assert match_id not in w.bot.service.live


async def test_illegal_and_malformed_moves_get_short_replies(world: World) -> None:
    w = world
    _match_id, room = await start(w)
    before = len(bot_messages(w, room))
    for who, text in [
        (w.alice, "A1-C1"),
        (w.alice, "A1-Z"),
        (w.alice, "hello there, good luck @everyone"),  # chat: silently ignored
        (w.bob, "A1-B1"),  # out of turn
    ]:
        await who.send(room, text)
    replies = bot_messages(w, room)[before:]
    texts = [m.content for m in replies]
    assert len(texts) == 3, texts
    assert texts[0].startswith("Illegal move") and "A1-C1" in texts[0]
    assert texts[1].startswith("I can't read")
    assert "alice's turn" in texts[2]
    assert all("@everyone" not in t and not m.mention_everyone for t, m in zip(texts, replies, strict=True))


async def test_mass_mentions_are_never_echoed_as_pings(world: World) -> None:
    w = world
    _match_id, room = await start(w)
    await w.alice.send(room, "A1-@everyone")
    reply = bot_messages(w, room)[-1]
    assert "@everyone" not in reply.content and not reply.mention_everyone


async def test_spectator_reads_the_public_room_and_is_ignored(world: World) -> None:
    w = world
    match_id, room = await start(w, room="public")
    assert not room.is_thread or room.threads == []
    texts_before = bot_text(w, room)
    seen = room.history(viewer=w.dave)  # a spectator can read the public room ...
    assert any(f"**Match {match_id} · " in m.content for m in seen)  # ... and its board
    await w.dave.send(room, "A1-B1")  # ... but their move-shaped messages are ignored silently
    await w.dave.send(room, "resign")
    assert bot_text(w, room) == texts_before
    assert w.bot.service.live[match_id].ply == 0
    await w.alice.send(room, "A1-B1")
    assert w.bot.service.live[match_id].ply == 1


@pytest.mark.parametrize("mode", ["public", "private", "channel"])
async def test_the_host_can_read_the_room_in_every_mode(world: World, mode: str) -> None:
    w = world
    match_id, room = await start(w, room=mode)
    assert room.is_thread == (mode != "channel")
    for member in (w.carol, w.alice, w.bob):
        assert any(f"**Match {match_id} · " in m.content for m in room.history(viewer=member))
    if mode == "private":
        with pytest.raises(Exception, match="cannot read"):
            room.history(viewer=w.dave)
    if room.is_thread:
        thread = w.bot.get_channel(room.id)
        assert thread is not None and thread.auto_archive_duration == 10080  # type: ignore[union-attr]


async def test_an_archived_thread_is_reopened_when_the_board_changes(world: World) -> None:
    w = world
    match_id, room = await start(w, room="public", clock="move=60 reserve=60")
    thread = w.bot.get_channel(room.id)
    assert isinstance(thread, discord.Thread)
    with w.env._bot_scope():  # a week without messages: Discord archives the thread
        await thread.edit(archived=True)
    await w.env.settle()
    assert w.env.backend.get_channel(room.id).thread_metadata.archived
    await w.env.advance_time(61)  # alice's move time runs out: the board changes
    assert not w.env.backend.get_channel(room.id).thread_metadata.archived
    assert "time runs out" in board_of(w, room, match_id).content


async def test_board_countdown_is_a_discord_timestamp_and_idle_means_no_edits(world: World) -> None:
    w = world
    match_id, room = await start(w, clock="move=60 reserve=120")
    await w.alice.send(room, "A1-B1")
    board = board_of(w, room, match_id)
    stamps = [int(t) for t in re.findall(r"<t:(\d+):R>", board.content)]
    assert len(stamps) == 1
    live = w.bot.service.live[match_id]
    due = next(d for d in live.clocks.next_deadlines(now(w)) if d.kind == "reserve_started")
    real_deadline = w.env.now().timestamp() + (due.at - now(w))
    assert abs(stamps[0] - real_deadline) <= 1
    requests = len(w.env.http_requests)
    await w.env.advance_time(25)  # bob thinks: nothing changes, nothing is sent or edited
    assert len(w.env.http_requests) == requests
    assert board_of(w, room, match_id).content == board.content
    await w.env.advance_time(20)  # 30 s left: bob is pinged, the board is not edited
    (warning,) = w.env.http_requests[requests:]
    assert warning.method == "POST" and f"<@{w.bob.id}>" in str(warning.json)
    assert board_of(w, room, match_id).content == board.content
    await w.env.advance_time(16)  # move time is up: the reserve deadline replaces it
    after = board_of(w, room, match_id)
    (reserve_stamp,) = [int(t) for t in re.findall(r"<t:(\d+):R>", after.content)]
    assert "time runs out" in after.content
    assert abs(reserve_stamp - (real_deadline + 120)) <= 1


async def test_two_moves_racing_only_the_first_counts(world: World) -> None:
    w = world
    match_id, _room = await start(w, options="rows=2 cols=2")
    service = w.bot.service
    with w.env._bot_scope():
        first, second = await asyncio.gather(
            service.submit(match_id, str(w.alice.id), "A1-B1", message_id="1"),
            service.submit(match_id, str(w.alice.id), "B1-C1", message_id="2"),
        )
    assert first.status == "accepted"
    assert second.status == "rejected" and second.kind == "turn"
    await w.env.settle()


TAKEBACK = "takeback=30"
"""Boxes with a take-back window (Trax's, made longer than a slow test step): the delete/edit path."""


@pytest.mark.parametrize("via", ["delete", "edit"])
async def test_takeback_by_deleting_or_editing_the_move(world: World, via: str) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules=TAKEBACK)
    msg = await w.alice.send(room, "A1-B1")
    live = w.bot.service.live[match_id]
    assert live.provisional() is not None
    board = board_of(w, room, match_id)
    assert "becomes final <t:" in board.content and "Take back" in str(board.components)
    if via == "delete":
        await w.alice.delete(msg)
    else:
        await w.alice.edit(msg, "A1-B1 oops")
    assert live.provisional() is None and live.ply == 0
    board = board_of(w, room, match_id)
    assert "took back A1-B1" in board.content and board.components == []
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    assert [e.data.get("via") for e in stored.events if e.kind == "takeback"] == [via]


async def test_takeback_too_late_does_nothing_and_the_button_leaves_the_board(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules=TAKEBACK)
    msg = await w.alice.send(room, "A1-B1")
    await w.env.advance_time(31)  # the window is closed: the move is final
    board = board_of(w, room, match_id)
    assert board.components == [] and "Moves: `1. A1-B1`\n" in board.content  # final: no marker on the move
    await w.alice.delete(msg)
    live = w.bot.service.live[match_id]
    assert live.ply == 1 and live.provisional() is None
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None and not [e for e in stored.events if e.kind == "takeback"]


async def test_takeback_button(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules=TAKEBACK)
    await w.alice.send(room, "A1-B1")
    board = board_of(w, room, match_id)
    stranger = answer(await w.dave.click(board, label="Take back"))
    assert stranger.ephemeral and "Only alice can take back A1-B1" in stranger.content
    opponent = answer(await w.bob.click(board, label="Take back"))
    assert opponent.ephemeral and "Only alice can take back A1-B1" in opponent.content
    assert "no move of yours" not in opponent.content
    await w.alice.click(board, label="Take back")
    assert w.bot.service.live[match_id].ply == 0
    board = board_of(w, room, match_id)
    assert board.components == [] and "took back" in board.content


@pytest.mark.parametrize("via", ["delete", "edit"])
async def test_trax_takeback(world: World, via: str) -> None:
    w = world
    match_id, room = await start(w, "trax", rules=TAKEBACK)
    msg = await w.alice.send(room, "@0+")
    live = w.bot.service.live[match_id]
    assert live.provisional() is not None
    if via == "delete":
        await w.alice.delete(msg)
    else:
        await w.alice.edit(msg, "@0/")
    assert live.provisional() is None and live.ply == 0


async def test_a_failed_board_edit_loses_no_announcement(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    w.env.inject_error("PATCH", "/channels/*/messages/*", status=503, times=1)
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(10)  # the announcer retries
    assert "Moves: `1. A1-B1`" in board_of(w, room, match_id).content
    w.env._errors_acknowledged = w.env.error_cursor  # the 503 itself was expected


async def test_a_failed_first_board_is_posted_again(world: World) -> None:
    w = world
    w.env.inject_error("POST", f"/channels/{w.lobby.id}/messages", status=500, times=1)
    match_id, room = await start(w)
    await w.env.advance_time(5)  # the announcer retries (within the slash command's settling, here)
    posts = [r for r in w.env.http_requests if r.method == "POST" and r.path == f"/channels/{w.lobby.id}/messages"]
    assert len(posts) == 2  # the refused one, then the board
    board = board_of(w, room, match_id)
    assert "alice to move" in board.content
    w.env._errors_acknowledged = w.env.error_cursor


async def test_trax_forced_tiles_are_announced_when_the_move_becomes_final(world: World) -> None:
    w = world
    match_id, room = await start(w, "trax", rules=TAKEBACK)
    for who, move in [(w.alice, "@0+"), (w.bob, "@1+")]:
        await who.send(room, move)
        await w.env.advance_time(31)
    await w.alice.send(room, "A0/")  # forces a tile at B1
    assert "forced" not in board_of(w, room, match_id).content.split("becomes final")[-1]
    await w.env.advance_time(31)  # the window closes: the move is final, and so are its forced tiles
    final_line = next(ln for ln in board_of(w, room, match_id).content.splitlines() if "A0/ is final" in ln)
    assert "alice's move" in final_line and "forced: B1" in final_line
