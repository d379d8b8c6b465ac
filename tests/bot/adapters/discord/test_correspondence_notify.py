"""Correspondence reminders beyond the room on a simulated Discord over simulated days (issue 41): the
mention in the room for everyone, a direct message for a player who opted in with `/dm event notify`, and
the daily digest ("3 games wait for your move": every game waiting, issue 48) instead of one message per
game, and a direct reminder for a digest player whose time runs out before the next digest."""

from __future__ import annotations

import datetime as dt

import discord
import simcord

from bot.settings import Settings
from tests.bot.adapters.discord.conftest import World, answer, bot_messages, start
from tests.bot.adapters.discord.test_catch_up import come_back, go_away

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
    assert len(digests) == 2  # every game that still waits (two and three ran out of their two days at it)
    (head, line) = digests[1].content.splitlines()
    assert head == "1 game waits for your move in Death Match Club:"
    assert line.startswith(f"• #{one} against bob: ")


def digest_hour_ahead(hours: int) -> int:
    """The UTC hour `hours` from now (SimCord's virtual time), rounded down to the hour."""
    return (discord.utils.utcnow() + dt.timedelta(hours=hours)).hour


async def test_the_digest_comes_at_the_chosen_hour_once_a_day(world: World) -> None:
    w = world
    hour = digest_hour_ahead(3)
    saved = answer(await w.alice.slash(w.lobby, "dm event notify", how="digest", hour=hour)).content
    assert f"It comes at {hour:02d}:00 UTC" in saved and "<t:" in saved
    await w.env.advance_time(4 * HOUR)  # the first digest moment: no game waits, nothing sent
    assert not dms(w, w.alice)
    _match, room = await slow_match(w, w.alice, w.bob)  # alice's move waits: two days
    await w.env.advance_time(DAY)  # the next moment: one digest, at the hour
    (digest,) = dms(w, w.alice)
    assert digest.content.startswith("1 game waits for your move in Death Match Club:")
    assert (digest.created_at.hour, digest.created_at.minute) == (hour, 0)
    await w.alice.send(room, "A1-B1")  # nothing waits for alice any more: no digest the next day
    await w.env.advance_time(DAY)
    assert len(dms(w, w.alice)) == 1
    (job,) = await w.bot.jobs.listing(f"digest:{w.guild.id}:")
    assert not job.done and job.due.hour == hour and job.payload["hour"] == hour
    answer(await w.alice.slash(w.lobby, "dm event notify", how="room"))  # no digest any more: its job is gone
    assert [j.done for j in await w.bot.jobs.listing(f"digest:{w.guild.id}:")] == [True]


async def test_a_digest_due_while_the_bot_was_down_is_sent_once_at_start(world: World, settings: Settings) -> None:
    w = world
    hour = digest_hour_ahead(3)
    answer(await w.alice.slash(w.lobby, "dm event notify", how="digest", hour=hour))
    await w.env.advance_time(4 * HOUR)  # the first moment: no game waits yet
    await slow_match(w, w.alice, w.bob)  # alice's two days end about 2 h after the third moment
    await w.env.advance_time(20 * HOUR)  # reminded at 12 h (time runs out after the next digest: no message)
    assert not dms(w, w.alice)
    await go_away(w)
    await w.env.advance_time(10 * HOUR)  # the second moment passes while no bot runs
    await come_back(w, settings)
    await w.env.advance_time(60)
    (digest,) = dms(w, w.alice)  # sent once, at the start
    assert digest.content.startswith("1 game waits for your move in Death Match Club:")
    await w.env.advance_time(DAY - HOUR)  # the third moment: one more digest, not one per day missed
    assert len(dms(w, w.alice)) == 2


async def test_a_digest_player_hears_of_a_game_that_runs_out_before_the_next_digest(world: World) -> None:
    w = world
    answer(await w.alice.slash(w.lobby, "dm event notify", how="digest"))  # digests at this time of day
    await w.env.advance_time(2 * HOUR)
    match_id, room = await start(
        w, room="public", options="rows=2 cols=2", clock="kind=correspondence move=12h"
    )  # alice's 12 h run out 10 h before her next digest
    await w.env.advance_time(9.7 * HOUR)  # 80 %: the reminder, and a direct message (the digest is too late)
    (dm,) = dms(w, w.alice)
    assert dm.content.startswith("Your move against bob is waiting in Death Match Club: 2h 24m left")
    assert "(before your next digest)" in dm.content
    await w.alice.send(room, "A1-B1")
    await w.bob.send(room, "A2-B2")  # alice's next 12 h end before the digest too
    await w.env.advance_time(9.7 * HOUR)
    assert len(dms(w, w.alice)) == 2  # reminded directly again
    await w.alice.send(room, "A1-A2")
    await w.env.advance_time(3 * HOUR)  # the digest's moment: nothing waits for alice, nothing sent
    assert len(dms(w, w.alice)) == 2
    assert w.bot.service.live[match_id].clocks.running == 2


async def test_every_waiting_game_is_in_the_digest_whatever_its_reminder(world: World) -> None:
    w = world
    answer(await w.alice.slash(w.lobby, "dm event notify", how="digest"))
    await w.env.advance_time(20 * HOUR)
    one, _room = await start(w, room="public", options="rows=2 cols=2", clock=SLOW)  # reminder at 80 %
    await w.env.advance_time(5 * HOUR)  # the digest: one game, not reminded yet, listed
    (digest,) = dms(w, w.alice)
    assert digest.content.splitlines()[1].startswith(f"• #{one} against bob: 1d 20h left")
    await w.env.advance_time(DAY)  # the next: still waiting, listed again (its reminder is 10 h away)
    assert len(dms(w, w.alice)) == 2
    assert dms(w, w.alice)[1].content.splitlines()[1].startswith(f"• #{one} against bob: 20h left")
