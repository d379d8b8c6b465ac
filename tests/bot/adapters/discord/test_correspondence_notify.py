"""Correspondence reminders beyond the room on a simulated Discord over simulated days (issue 41): the
mention in the room for everyone, a direct message for a player who opted in with `/dm event notify`, and
the daily digest ("3 games wait for your move") instead of one message per game; never more than one
reminder per player per move."""

from __future__ import annotations

import discord
import simcord

from tests.bot.adapters.discord.conftest import World, answer, bot_messages, start

DAY = 86400
HOUR = 3600
SLOW = "kind=correspondence move=2d"
QUARTER = "kind=correspondence move=2d remind=0.25"


def dms(w: World, who: simcord.MemberActor) -> list[discord.Message]:
    """What the bot sent `who` in direct messages."""
    return bot_messages(w, who.user.dm_channel)


def mentions(w: World, room: simcord.ChannelHandle, who: simcord.MemberActor) -> list[str]:
    """The reminders that mention `who` in a room."""
    return [
        m.content for m in bot_messages(w, room) if m.content.startswith(f"<@{who.id}>") and "is waiting" in m.content
    ]


async def slow_match(
    w: World, first: simcord.MemberActor, second: simcord.MemberActor
) -> tuple[int, simcord.ChannelHandle]:
    """A correspondence match in a thread of its own (`first` moves first)."""
    return await start(w, players=(first, second), room="public", options="rows=2 cols=2", clock=QUARTER)


async def test_reminder_mention_and_an_opt_in_direct_message(world: World) -> None:
    w = world
    saved = answer(await w.alice.slash(w.lobby, "dm event notify", how="dm")).content
    assert saved == (
        "Saved: for your correspondence games in this server you get a direct message with each reminder, "
        "besides the mention."
    )
    match_id, room = await start(w, room="public", options="rows=2 cols=2", clock=SLOW)
    await w.env.advance_time(1.7 * DAY)  # 80 % of alice's two days are used
    assert len(mentions(w, room, w.alice)) == 1  # the mention in the room, as for everyone
    (dm,) = dms(w, w.alice)
    assert dm.content.startswith("Your move against bob is waiting in Death Match Club: 9h 36m left, time runs out <t:")
    assert f"https://discord.com/channels/{w.guild.id}/{room.id}/" in dm.content  # the board
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(1.7 * DAY)  # bob is reminded in the room only: he did not opt in
    assert len(mentions(w, room, w.bob)) == 1 and not dms(w, w.bob)
    await w.bob.send(room, "A2-B2")
    await w.env.advance_time(1.9 * DAY)  # alice's next move: one more reminder, one more message, no more
    assert len(dms(w, w.alice)) == 2 and len(mentions(w, room, w.alice)) == 2
    assert w.bot.service.live[match_id].clocks.running == 1


async def test_the_daily_digest_instead_of_one_message_per_game(world: World) -> None:
    w = world
    answer(await w.alice.slash(w.lobby, "dm event notify", how="digest"))  # digests at this time of day
    one, room1 = await slow_match(w, w.alice, w.bob)
    two, room2 = await slow_match(w, w.dave, w.alice)
    three, _room3 = await slow_match(w, w.alice, w.carol)
    await w.dave.send(room2, "A1-B1")
    await w.env.advance_time(0.9 * DAY)  # three reminders (at half a day) in the rooms, no direct message
    assert all(len(mentions(w, room, w.alice)) == 1 for room in (room1, room2))
    assert not dms(w, w.alice)
    await w.env.advance_time(0.2 * DAY)  # a day after the choice: the digest
    (digest,) = dms(w, w.alice)
    lines = digest.content.splitlines()
    assert lines[0] == "3 games wait for your move in Death Match Club:"
    assert [line.split()[1] for line in lines[1:]] == [f"#{one}", f"#{two}", f"#{three}"]
    assert lines[1].startswith(f"• #{one} against bob: 1d ") and "time runs out <t:" in lines[1]
    assert lines[2].startswith(f"• #{two} against dave: ") and f"/channels/{w.guild.id}/{room2.id}/" in lines[2]
    await w.alice.send(room1, "A1-B1")
    await w.bob.send(room1, "A2-B2")  # alice's next move in match one: its reminder comes in half a day
    await w.env.advance_time(0.8 * DAY)  # reminded, but the next digest is a day after the first
    assert len(dms(w, w.alice)) == 1
    await w.env.advance_time(0.2 * DAY)
    digests = dms(w, w.alice)
    assert len(digests) == 2  # the reminded move of match one, once; two and three were in the first
    (head, line) = digests[1].content.splitlines()
    assert head == "1 game waits for your move in Death Match Club:"
    assert line.startswith(f"• #{one} against bob: ")
