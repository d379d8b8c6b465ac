"""Moves without the privileged message-content intent (`DMHOST_MESSAGE_CONTENT=off`, issue 50 point 7), on a
simulated Discord whose portal has not granted the intent: SimCord then blanks every message that does not
mention the bot, as Discord does. A mention move is played; `/move text:` plays with the same parsing, refusals
and confirmations as a posted message; the board and `/dm help` say how to move."""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord
import pytest
import simcord

from bot.adapters.discord.app import DMHost, create_bot, make_intents
from bot.adapters.discord.room._cog import without_mention
from bot.adapters.discord.startup import explain_discord
from bot.ops.apps import discord_app
from bot.settings import Settings, SettingsProblem, load_settings
from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_messages, make_world, start
from tests.bot.adapters.discord.test_catch_up import come_back, go_away


@pytest.fixture
def no_content_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"message_content": False})


@pytest.fixture
async def no_content(no_content_settings: Settings, solver_compiled: None) -> AsyncIterator[World]:
    """The bot with the setting off, on a Discord whose portal approved every intent but message content."""
    bot = create_bot(no_content_settings, discord_app(no_content_settings), sync_commands=True)
    approved = discord.Intents.all()
    approved.message_content = False
    env = simcord.Env(bot, settle_timeout=5.0, approved_intents=approved)
    await env.start()
    try:
        yield make_world(env)
    finally:
        await env.shutdown()
        env._raise_errors_since(env._errors_acknowledged)


def _ply(w: World, match_id: int) -> int:
    return int(w.bot.service.live[match_id].ply)


def test_the_setting_decides_the_intent() -> None:
    assert make_intents().message_content and make_intents(True).members
    off = make_intents(False)
    assert not off.message_content and off.members and off.guild_messages
    assert Settings(_env_file=None, message_content="off").message_content is False
    assert Settings(_env_file=None).message_content is True
    with pytest.raises(SettingsProblem, match=r"^DMHOST_MESSAGE_CONTENT \('maybe'\) is wrong: .*set it to on"):
        load_settings(_env_file=None, message_content="maybe")
    refused = explain_discord(discord.PrivilegedIntentsRequired(None))
    assert refused is not None and "DMHOST_MESSAGE_CONTENT=off" in refused


def test_the_mention_is_left_out_wherever_it_stands() -> None:
    assert without_mention("<@42> A1-B1", 42) == "A1-B1"
    assert without_mention("A1-B1 <@!42>", 42) == "A1-B1"
    assert without_mention("<@42>   resign", 42) == "resign"
    assert without_mention("<@43> A1-B1", 42) == "<@43> A1-B1"  # someone else's mention stays (chat)


async def test_plain_messages_are_blank_and_a_mention_move_is_played(no_content: World) -> None:
    w = no_content
    assert isinstance(w.bot, DMHost) and not w.bot.intents.message_content
    match_id, room = await start(w)
    await w.alice.send(room, "A1-B1")  # blanked by Discord: nothing to read, nothing answered
    assert _ply(w, match_id) == 0
    before = len(bot_messages(w, room))
    assert w.bot.user is not None
    await w.alice.send(room, f"{w.bot.user.mention} A1-B1")
    assert _ply(w, match_id) == 1
    await w.bob.send(room, f"<@!{w.bot.user.id}> A1-C1")  # a mention move gets the posted message's refusal
    assert _ply(w, match_id) == 1
    replies = [m.content for m in bot_messages(w, room)[before:] if m.reference is not None]
    assert replies and replies[-1].startswith("Illegal move") and "A1-C1" in replies[-1]
    board = board_of(w, room, match_id)
    assert "/move text:" in board.content and f"@{w.bot.user.display_name}" in board.content


async def test_slash_move_plays_refuses_and_confirms_like_a_posted_message(no_content: World) -> None:
    w = no_content
    match_id, room = await start(w)
    played = answer(await w.alice.slash(room, "move", text="A1-B1"))
    assert _ply(w, match_id) == 1
    assert not played.ephemeral and played.content == "alice: `A1-B1`"  # the room sees the move, as a message
    out_of_turn = answer(await w.alice.slash(room, "move", text="A2-B2"))
    assert out_of_turn.ephemeral and "bob's turn" in out_of_turn.content and _ply(w, match_id) == 1
    illegal = answer(await w.bob.slash(room, "move", text="A1-C1"))
    assert illegal.ephemeral and illegal.content.startswith("Illegal move") and _ply(w, match_id) == 1
    unread = answer(await w.bob.slash(room, "move", text="A1-Z"))
    assert unread.ephemeral and unread.content.startswith("I can't read")
    chat = answer(await w.bob.slash(room, "move", text="good luck"))
    assert chat.ephemeral and "was not taken (chat)" in chat.content and _ply(w, match_id) == 1
    stranger = answer(await w.dave.slash(room, "move", text="A2-B2"))
    assert stranger.ephemeral and "You play no match in this room" in stranger.content
    elsewhere = w.guild.create_text_channel("elsewhere")
    nowhere = answer(await w.bob.slash(elsewhere, "move", text="A2-B2"))
    assert nowhere.ephemeral and "You play no match in this room" in nowhere.content
    answer(await w.bob.slash(room, "move", text="a2 b2"))  # the game's own spellings, as a message
    assert _ply(w, match_id) == 2
    asked = answer(await w.alice.slash(room, "move", text="resign"))  # grave: Confirm / Cancel first
    assert asked.ephemeral and "Confirm" in str(asked.components) and match_id in w.bot.service.live
    done = await w.alice.click(asked, label="Confirm")
    assert done.response is not None and "resigns" in done.response.content
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.status == "finished" and stored.winner_seat == 2


async def test_help_and_rules_say_how_to_move_in_this_mode(no_content: World) -> None:
    w = no_content
    assert w.bot.user is not None
    card = answer(await w.alice.slash(w.lobby, "dm help")).content
    assert "/move text:" in card and f"@{w.bot.user.display_name} A1-B1" in card
    assert "Moves are plain messages" not in card
    result = await w.alice.slash(w.lobby, "dm rules", game="dots")
    shown = answer(result).embeds[0].description or ""
    assert "/move text:T15" in shown and "Post each move as its own message" not in shown


async def test_with_the_intent_nothing_changes(world: World) -> None:
    w = world
    assert w.bot.intents.message_content
    assert "move" not in w.alice.available_commands(w.lobby)  # no `/move`: plain messages are moves
    match_id, room = await start(w)
    assert "/move" not in board_of(w, room, match_id).content
    await w.alice.send(room, "A1-B1")
    assert _ply(w, match_id) == 1
    card = answer(await w.alice.slash(w.lobby, "dm help")).content
    assert "Moves are plain messages in the game room" in card


async def test_a_mention_move_posted_while_away_is_read_back(no_content: World, no_content_settings: Settings) -> None:
    w = no_content
    match_id, room = await start(w)
    await w.alice.send(room, f"{w.bot.user.mention if w.bot.user else ''} A1-B1")
    await go_away(w)
    assert w.env.bot.user is not None
    await w.bob.send(room, f"<@{w.env.bot.user.id}> A2-B2")  # read back from the room's history: it mentions
    await w.alice.send(room, "A1-A2")  # blanked: never read
    await come_back(w, no_content_settings)
    assert not w.bot.intents.message_content
    live = w.bot.service.live[match_id]
    assert live.ply == 2 and live.ruleset.to_move(live.state) == 1
