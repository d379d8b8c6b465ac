"""Names that would mention people, on a simulated Discord: the Discord renderer is the one guard
(`bot/adapters/discord/render.py`), so a player whose server nickname is `@everyone` or a role's mention plays a
whole match — start, replies, board, pings, result — and nothing the bot posts mentions anyone but the players it
means to call."""

from __future__ import annotations

import re

import discord

from tests.bot.adapters.discord.conftest import World, answer, bot_messages, play

MENTIONING = re.compile(r"@(everyone|here)|<@[!&]?(\d+)>")
"""What Discord would turn into a mention: `@everyone`, `@here`, a member's or a role's mention."""


def _mentioned(text: str) -> list[str]:
    """Every mention in a message's text: `everyone`/`here`, or the id a `<@…>` names."""
    return [m.group(1) or m.group(2) for m in MENTIONING.finditer(text)]


async def test_nicknames_that_mention_are_shown_as_typed_and_only_the_players_are_called(world: World) -> None:
    w = world
    role = w.guild.create_role("Moderators")
    everyone = w.guild.add_member(w.env.create_user("eve"), nick="@everyone")
    roled = w.guild.add_member(w.env.create_user("rolf"), nick=f"<@&{role.id}> x@here")
    started = await w.carol.slash(
        w.lobby, "dm start", game="boxes", player1=everyone, player2=roled, room="channel", options="rows=1 cols=2"
    )
    said = answer(started).content
    assert "has started" in said, said
    players = {str(everyone.id), str(roled.id)}
    assert set(_mentioned(said)) == players, said  # the start calls both players, by their own mention
    match_id = int(said.split()[1])
    await play(
        w,
        w.lobby,
        [
            (everyone, "A1-C1"),  # illegal: a reply naming the mover
            (everyone, "A1-B1"),
            (roled, "A1-@everyone"),  # unreadable, with a mass mention in it: echoed in the reply
            (roled, "B1-C1"),
            (everyone, "A2-B2"),
            (roled, "B2-C2"),
            (everyone, "A1-A2"),
            (roled, "C1-C2"),
            (everyone, "B1-B2"),  # closes both boxes: the first player wins
        ],
    )
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.status == "finished" and stored.winner_seat == 1
    posted = bot_messages(w, w.lobby)
    text = "\n".join(m.content for m in posted)
    assert "wins" in text and "The match is over" in text
    # shown as typed (a zero-width space after the `@` is invisible) ...
    assert "@\u200beveryone" in text and f"<@\u200b&{role.id}>" in text and "x@\u200bhere" in text
    for message in posted:
        # ... and mentioning nobody but the players the bot calls
        assert set(_mentioned(message.content)) <= players, message.content
        assert not message.mention_everyone and message.role_mentions == [], message.content
        assert {str(u.id) for u in message.mentions} <= players
    assert any(isinstance(m, discord.Message) and _mentioned(m.content) for m in posted)  # the board called them
