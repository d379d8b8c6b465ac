"""Issue 28, points 1, 5 and 10 on a simulated Discord: confirmations before a resignation or a Dots stop, practice
without the take-back window or a self-ping, and edits answered (never played)."""

from __future__ import annotations

import discord
import pytest
import simcord

from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_messages, now, start

GRAVE = {"resign", "stop", "ground"}


def prompts(w: World, room: simcord.ChannelHandle) -> list[discord.Message]:
    """The bot's Confirm / Cancel prompts in a room, as they read now: its replies to a resignation or a stop."""
    said = {m.id: m.content.strip(" .!").lower() for m in room.history()}
    return [
        m
        for m in bot_messages(w, room)
        if m.reference is not None and said.get(m.reference.message_id or 0, "") in GRAVE
    ]


def prompt_of(w: World, room: simcord.ChannelHandle) -> discord.Message:
    (prompt,) = prompts(w, room)
    return prompt


async def test_a_question_or_a_sentence_is_not_a_resignation(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    live = w.bot.service.live[match_id]
    for text in ("resign?", "I resign?", "should I resign", "Resign?!", "resign, gg"):
        await w.bob.send(room, text)
    assert live.status == "ongoing" and live.result is None
    assert prompts(w, room) == []
    assert "resign" not in board_of(w, room, match_id).content


async def test_confirm_ends_the_game_by_resignation_and_only_the_player_can_press(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    live = w.bot.service.live[match_id]
    await w.bob.send(room, "Resign.")
    prompt = prompt_of(w, room)
    assert "bob, do you resign" in prompt.content and "30 s" in prompt.content
    assert "Confirm" in str(prompt.components) and "Cancel" in str(prompt.components)
    assert live.status == "ongoing", "nothing happens before the confirmation"
    for other in (w.alice, w.dave):
        refused = answer(await other.click(prompt, label="Confirm"))
        assert refused.ephemeral and "Only bob can answer this" in refused.content
    assert live.status == "ongoing"
    await w.bob.click(prompt, label="Confirm")
    assert live.status == "finished" and live.result == (1, "resign")
    done = prompt_of(w, room)
    assert "Confirmed: bob resigns" in done.content and done.components == []
    assert "Result:" in board_of(w, room, match_id).content
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.winner_seat == 1 and stored.result_reason == "resign"


async def test_cancel_keeps_the_game_going(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    live = w.bot.service.live[match_id]
    await w.alice.send(room, "resign")
    await w.alice.click(prompt_of(w, room), label="Cancel")
    assert live.status == "ongoing" and live.result is None
    cancelled = prompt_of(w, room)
    assert "Cancelled" in cancelled.content and cancelled.components == []
    await w.alice.send(room, "A1-B1")
    assert live.ply == 1


async def test_the_prompt_lapses_after_30_s_while_the_clock_keeps_running(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", clock="move=60 reserve=300")
    live = w.bot.service.live[match_id]
    await w.alice.send(room, "resign")
    await w.env.advance_time(29)
    assert "Confirm" in str(prompt_of(w, room).components), "still open just before 30 s"
    await w.env.advance_time(2)
    lapsed = prompt_of(w, room)
    assert "Lapsed" in lapsed.content and lapsed.components == []
    assert live.status == "ongoing" and live.result is None
    assert live.clocks.remaining(1, now(w))["move"] < 30, "alice's clock ran while she was asked"
    await w.alice.send(room, "A1-B1")
    assert live.ply == 1


async def test_a_resignation_confirmed_after_the_game_ended_is_refused_cleanly(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    await w.alice.send(room, "resign")
    await w.bob.send(room, "resign")
    alice_prompt, bob_prompt = prompts(w, room)
    await w.bob.click(bob_prompt, label="Confirm")
    assert match_id not in w.bot.service.live
    await w.alice.click(alice_prompt, label="Confirm")
    late = next(m for m in prompts(w, room) if m.id == alice_prompt.id)
    assert "over" in late.content and late.components == [] and "Confirmed" not in late.content
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.winner_seat == 1, "bob's resignation stands, alice's is refused"


async def test_slash_resign_asks_privately_too(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    live = w.bot.service.live[match_id]
    asked = answer(await w.alice.slash(room, "dm resign"))
    assert asked.ephemeral and "alice, do you resign" in asked.content and "Confirm" in str(asked.components)
    assert live.status == "ongoing"
    await w.alice.click(asked, label="Confirm")
    assert live.status == "finished" and live.result == (2, "resign")


async def test_slash_resign_lapses_privately(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    asked = await w.alice.slash(room, "dm resign")
    await w.env.advance_time(31)
    lapsed = answer(asked)  # read again: the private prompt as it is now
    assert lapsed.ephemeral and "Lapsed" in lapsed.content and lapsed.components == []
    assert w.bot.service.live[match_id].status == "ongoing"


async def test_slash_resign_by_a_stranger_is_refused_without_a_prompt(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    refused = answer(await w.dave.slash(room, "dm resign", match=match_id))
    assert refused.ephemeral and "Confirm" not in str(refused.components)
    assert w.bot.service.live[match_id].status == "ongoing"


async def test_dots_ground_asks_first_and_a_question_is_chat(world: World) -> None:
    w = world
    match_id, room = await start(w, "dots", options="width=8 height=8")
    live = w.bot.service.live[match_id]
    await w.alice.send(room, "ground?")
    assert prompts(w, room) == [] and not live.state.stopped
    await w.bob.send(room, "stop")  # not bob's turn: refused as usual, no prompt
    assert "alice's turn" in bot_messages(w, room)[-1].content
    assert not any(m.components for m in prompts(w, room))
    await w.alice.send(room, "ground")
    (prompt,) = [m for m in prompts(w, room) if m.components]
    assert "`stop`" in prompt.content and "no more dots" in prompt.content
    assert not live.state.stopped and live.ply == 0
    await w.alice.click(prompt, label="Confirm")
    assert live.state.stopped == 1 and live.ply == 1
    assert "Confirmed: alice plays `stop`" in prompts(w, room)[-1].content


async def test_dots_stop_confirmed_after_the_position_changed_is_not_played(world: World) -> None:
    w = world
    match_id, room = await start(w, "dots", options="width=8 height=8")
    live = w.bot.service.live[match_id]
    await w.alice.send(room, "stop")
    await w.alice.send(room, "A1")  # she plays on instead
    await w.bob.send(room, "H8")
    await w.alice.click(prompt_of(w, room), label="Confirm")
    assert not live.state.stopped and live.ply == 2
    assert "was not played" in prompt_of(w, room).content


@pytest.fixture
def quick_opponent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DMHOST_BOT_BUDGET", "0.2")


async def test_practice_trax_opponent_moves_are_final_at_once_and_it_never_pings_itself(
    world: World, quick_opponent: None
) -> None:
    w = world
    result = await w.alice.slash(w.lobby, "dm practice", game="trax", level="random", first="2", room="channel")
    text = answer(result).content
    match_id = int(text.split()[2])
    live = w.bot.service.live[match_id]
    me = str(w.bot.user.id)  # type: ignore[union-attr]
    posted = [
        str(r.json)
        for r in w.env.http_requests
        if r.method == "POST" and r.path == f"/channels/{w.lobby.id}/messages" and f"Match {match_id} · " in str(r.json)
    ]
    first_board = posted[0]
    assert f"<@{w.alice.id}>" in first_board and f"<@{me}>" not in first_board, first_board
    await w.env.settle()
    alice = live.seat_of(str(w.alice.id))
    replied = 0
    for _turn in range(4):
        if match_id not in w.bot.service.live or live.ruleset.to_move(live.state) is None:
            break
        assert live.ruleset.to_move(live.state) == alice, "the opponent has answered"
        assert live.provisional() is None, "the opponent's move is final at once"
        rs, state = live.ruleset, live.state
        safe = [m for m in rs.legal_moves(state) if rs.outcome(rs.apply(state, m)[0]) is None]
        move = rs.format(state, safe[0])
        before = len(bot_messages(w, w.lobby))
        await w.alice.send(w.lobby, move)
        replies = [m.content for m in bot_messages(w, w.lobby)[before:]]
        assert not any("not final" in r for r in replies), replies
        replied += 1
        assert live.provisional() is not None, "alice's own move keeps its take-back window"
        await w.env.advance_time(6)  # her window closes; the opponent answers
        await w.env.settle()
    assert replied >= 2
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None
    bot_moves = [e for e in stored.events if e.kind == "move" and e.seat == live.seat_of(me)]
    assert bot_moves and not any(e.data.get("provisional") for e in bot_moves)
    assert all(f"<@{me}>" not in m.content for m in bot_messages(w, w.lobby))


def unlinked(content: str) -> str:
    """A reply in the room without the link to the board at its end (every reply there has one)."""
    text, sep, _link = content.partition(" · [↑ board](<")
    assert sep, f"no link to the board: {content!r}"
    return text


async def test_editing_a_played_move_changes_nothing_and_is_answered_once(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    live = w.bot.service.live[match_id]
    msg = await w.alice.send(room, "A1-B1")
    assert live.ply == 1
    await w.alice.edit(msg, "B1-C1")
    assert live.ply == 1 and live.ruleset.to_move(live.state) == 2
    replies = [m.content for m in bot_messages(w, room) if "Edits" in m.content]
    assert [unlinked(r) for r in replies] == ["Edits don't change a move already played: `A1-B1` stands."]
    await w.alice.edit(msg, "A2-B2")
    assert [m.content for m in bot_messages(w, room) if "Edits" in m.content] == replies, "told once"


async def test_editing_a_refused_move_into_a_legal_one_is_not_played(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    live = w.bot.service.live[match_id]
    msg = await w.alice.send(room, "A1-C1")  # illegal
    chat = await w.alice.send(room, "hmm")
    await w.alice.edit(chat, "hmm, tricky")  # chat edited: ignored silently
    assert not [m for m in bot_messages(w, room) if "Edits" in m.content]
    await w.alice.edit(msg, "A1-B1")
    assert live.ply == 0
    (reply,) = [m.content for m in bot_messages(w, room) if "Edits" in m.content]
    assert unlinked(reply) == "Edits aren't read as moves: post `A1-B1` as a new message."
    await w.alice.send(room, "A1-B1")
    assert live.ply == 1


async def test_editing_a_move_taken_back_earlier_is_not_said_to_stand(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules="takeback=30")
    live = w.bot.service.live[match_id]
    msg = await w.alice.send(room, "A1-B1")
    await w.alice.click(board_of(w, room, match_id), label="Take back")
    assert live.ply == 0
    await w.alice.edit(msg, "B1-C1")
    assert live.ply == 0
    (reply,) = [m.content for m in bot_messages(w, room) if "Edits" in m.content]
    assert unlinked(reply) == "Edits aren't read as moves: post `B1-C1` as a new message."
