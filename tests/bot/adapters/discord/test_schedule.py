"""Scheduled DMs on a simulated Discord across simulated days: the card, reminders at their exact times
(one ping each), check-in and start, a no-show, both absent, the host's extension, a proposal accepted,
a cancel, the bot away across a reminder and the start, two servers, and the server's Events tab."""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
import simcord
from simcord.env import _attach_bot

from bot.adapters.discord.app import create_bot
from bot.ops.apps import discord_app
from bot.schedule.core import RETURN_GRACE_S
from bot.settings import Settings
from tests.bot.adapters.discord.conftest import World, answer, bot_messages, make_world, resign

DAY = 86400.0
HOUR = 3600.0


def make_settings(url: str) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=url,
        heartbeat_seconds=30 * DAY,
        announce_batch_seconds=0.0,
        schedule_poll_seconds=30 * DAY,
    )


@pytest.fixture
def settings(migrated_sqlite_url: str) -> Settings:
    """The shared SimCord fixtures run the bot with these settings (long polls: days pass in these tests)."""
    return make_settings(migrated_sqlite_url)


Club = World
"""One guild: lobby, players alice and bob, carol the host, dave (names suffixed by the guild's)."""


def make_club(env: simcord.Env, name: str = "Death Match Club") -> Club:
    return make_world(env, name, suffix=f"-{name[:3]}")


@pytest.fixture
async def club(simcord_env: simcord.Env) -> AsyncIterator[Club]:
    yield make_club(simcord_env)


def pings(c: Club, channel: simcord.ChannelHandle, member: simcord.MemberActor, words: str) -> list[discord.Message]:
    """The bot's messages here that notify `member` (not merely name them) and contain `words`."""
    stored = c.env.backend.messages.get(channel.id, {})
    return [
        m
        for m in bot_messages(c, channel)
        if words in m.content and member.id in (getattr(stored.get(m.id), "ping_user_ids", None) or ())
    ]


async def schedule(c: Club, at: str, **kw: Any) -> int:
    result = await c.carol.slash(
        c.lobby, "dm event schedule", game="boxes", player1=c.alice, player2=c.bob, at=at, options="rows=2 cols=2", **kw
    )
    text = answer(result).content
    assert text.startswith("Scheduled DM #"), text
    return int(text.split("#")[1].split(":")[0])


def now(c: Club) -> dt.datetime:
    return c.env.now()


async def advance_to(c: Club, at: dt.datetime) -> None:
    await c.env.advance_time(max(0.0, (at - now(c)).total_seconds()))


def events_of(c: Club) -> list[Any]:
    return list(c.env.backend.get_guild(c.guild.id).scheduled_events.values())


async def test_schedule_reminders_checkin_start(club: Club) -> None:
    c = club
    start = now(c) + dt.timedelta(days=2)
    dm = await schedule(c, f"<t:{int(start.timestamp())}:F>", prize="15 garnets", room="channel")
    card = [m for m in bot_messages(c, c.lobby) if m.content.startswith(f"**Death Match #{dm}")]
    assert len(card) == 1
    ts = int(start.timestamp())
    assert f"<t:{ts}:F>" in card[0].content and f"<t:{ts}:R>" in card[0].content
    assert "Prize: 15 garnets" in card[0].content
    (event,) = events_of(c)
    assert event.status == 1 and "15 garnets" in (event.description or "")
    for offset, label in ((DAY, "24 h"), (HOUR, "1 h"), (600, "10 min")):
        await advance_to(c, start - dt.timedelta(seconds=offset) - dt.timedelta(seconds=1))
        before = len(pings(c, c.lobby, c.alice, "Reminder"))
        await c.env.advance_time(2)
        assert len(pings(c, c.lobby, c.alice, "Reminder")) == before + 1, label
        assert len(pings(c, c.lobby, c.bob, "Reminder")) == before + 1, label
    checkin = pings(c, c.lobby, c.alice, "Check-in for")
    assert len(checkin) == 1  # opened 15 minutes before
    await c.alice.click(checkin[0], label="I'm here")
    await c.bob.send(c.lobby, "here")
    assert "is here" in bot_messages(c, c.lobby)[-1].content
    await advance_to(c, start + dt.timedelta(seconds=1))
    assert len(pings(c, c.lobby, c.alice, "begins")) == 1
    assert len(pings(c, c.lobby, c.alice, "Reminder")) == 3
    (board,) = [m for m in bot_messages(c, c.lobby) if "**Match 1 · Dots-and-Boxes**" in m.content]
    assert "Prize: 15 garnets" in board.content  # the stake is on the board
    (event,) = events_of(c)
    assert event.status == 2
    # the match: alice resigns … bob wins the DM, and the prize is said
    await resign(c.alice, c.lobby)
    await c.env.advance_time(1)
    assert any("wins the DM by resignation. Prize: 15 garnets." in m.content for m in bot_messages(c, c.lobby))
    (event,) = events_of(c)
    assert event.status == 3
    shown = await c.dave.slash(c.lobby, "dm event results", export=True)
    message = answer(shown)
    assert "wins the DM by resignation. Prize: 15 garnets." in message.content
    (attachment,) = message.attachments
    rows = list(csv.DictReader(io.StringIO((await attachment.read()).decode())))
    assert len(rows) == 1 and rows[0]["prize"] == "15 garnets" and rows[0]["reason"] == "resign"


async def test_no_show_forfeit_and_both_absent(club: Club) -> None:
    c = club
    start = now(c) + dt.timedelta(hours=3)
    dm = await schedule(c, "in 3h", prize="15 garnets", room="channel")
    other = await schedule(c, "in 5h", room="channel")
    await advance_to(c, start - dt.timedelta(minutes=5))
    await c.bob.send(c.lobby, "here")
    await advance_to(c, start + dt.timedelta(minutes=9))
    assert not any("did not check in" in m.content for m in bot_messages(c, c.lobby))
    await advance_to(c, start + dt.timedelta(minutes=10, seconds=1))
    ruling = pings(c, c.lobby, c.carol, "by no-show")  # the host is pinged
    assert len(ruling) == 1
    assert "bob-Dea wins the DM by no-show" not in ruling[0].content  # names are mentions
    assert f"<@{c.bob.id}> wins the DM by no-show. Prize: 15 garnets." in ruling[0].content
    assert pings(c, c.lobby, c.alice, "by no-show") and pings(c, c.lobby, c.bob, "by no-show")
    events = {e.name: e for e in events_of(c)}
    assert events[f"DM #{dm}: alice-Dea vs bob-Dea"].status == 3  # active at the start, ended with the ruling
    # the second: nobody comes
    await advance_to(c, start + dt.timedelta(hours=3))
    cancelled = pings(c, c.lobby, c.carol, "cancelled without a result")
    assert len(cancelled) == 1 and f"DM #{other}" in cancelled[0].content
    results = answer(await c.dave.slash(c.lobby, "dm event results")).content
    assert f"#{dm}" in results and f"#{other}" not in results and "by no-show" in results
    assert "Nothing is scheduled" in answer(await c.dave.slash(c.lobby, "dm event upcoming")).content


async def test_a_no_show_reaches_the_results_channel_and_the_ratings_at_once(club: Club) -> None:
    c = club
    results = c.guild.create_text_channel("results")
    assert "Saved." in answer(await c.carol.slash(c.lobby, "dm config", results_channel=results)).content
    start = now(c) + dt.timedelta(hours=1)
    await schedule(c, "in 1h", room="channel")
    await advance_to(c, start - dt.timedelta(minutes=5))
    await c.bob.send(c.lobby, "here")
    await advance_to(c, start + dt.timedelta(minutes=10, seconds=1))  # the ruling, one second ago
    (posted,) = bot_messages(c, results)
    assert ": bob-Dea wins: alice-Dea did not come (no-show)" in posted.content
    assert posted.content.startswith("**Match 1 · Dots-and-Boxes** · alice-Dea vs bob-Dea")
    assert "bob-Dea" in posted.content.split("\n")[1]  # the rating changes, settled with the ruling
    ratings = c.bot.ratings  # type: ignore[attr-defined]
    table = {st.name: st for st in await ratings.table(c.guild.id, "boxes")}
    assert table["bob-Dea"].wins == 1 and table["alice-Dea"].losses == 1


async def test_host_extends_and_starts_anyway(club: Club) -> None:
    c = club
    start = now(c) + dt.timedelta(hours=1)
    await schedule(c, "in 1h", room="channel")
    await advance_to(c, start + dt.timedelta(seconds=1))
    (waiting,) = [m for m in bot_messages(c, c.lobby) if "is due" in m.content]
    refused = answer(await c.alice.click(waiting, label="Wait 10 min more (host)"))
    assert refused.ephemeral and "Only a host" in refused.content
    await c.carol.click(waiting, label="Wait 10 min more (host)")
    assert "extended the wait" in bot_messages(c, c.lobby)[-1].content
    await advance_to(c, start + dt.timedelta(minutes=19))
    assert not any("cancelled" in m.content for m in bot_messages(c, c.lobby))
    await c.carol.click(waiting, label="Start anyway (host)")
    assert any("**Match 1 · Dots-and-Boxes**" in m.content for m in bot_messages(c, c.lobby))
    await advance_to(c, start + dt.timedelta(minutes=40))
    assert not any("cancelled" in m.content or "did not check in" in m.content for m in bot_messages(c, c.lobby))


async def test_player_proposes_other_accepts(club: Club) -> None:
    c = club
    start = now(c) + dt.timedelta(days=2)
    dm = await schedule(c, "in 2 days")
    later = start + dt.timedelta(days=1)
    stranger = answer(await c.dave.slash(c.lobby, "dm event reschedule", dm=dm, at=f"<t:{int(later.timestamp())}>"))
    assert stranger.ephemeral and "Only a host" in stranger.content
    proposed = answer(await c.alice.slash(c.lobby, "dm event reschedule", dm=dm, at=f"<t:{int(later.timestamp())}>"))
    assert "takes effect when accepted" in proposed.content
    (offer,) = pings(c, c.lobby, c.bob, "proposes")
    own = answer(await c.alice.click(offer, label="Accept the new time"))
    assert own.ephemeral and "other player" in own.content
    await c.bob.click(offer, label="Accept the new time")
    moved = pings(c, c.lobby, c.alice, "now starts")
    assert len(moved) == 1 and f"<t:{int(later.timestamp())}:F>" in moved[0].content
    (event,) = events_of(c)
    assert dt.datetime.fromisoformat(event.scheduled_start_time) == later  # the server event moved too
    card = next(m for m in bot_messages(c, c.lobby) if m.content.startswith(f"**Death Match #{dm}"))
    assert f"<t:{int(later.timestamp())}:F>" in card.content
    # reminders move with it: none at the old times
    await advance_to(c, start + dt.timedelta(minutes=1))
    assert len(pings(c, c.lobby, c.alice, "Reminder")) == 1  # only the 24 h reminder of the new time
    await advance_to(c, later - dt.timedelta(minutes=11))
    assert len(pings(c, c.lobby, c.alice, "Reminder")) == 2


async def test_cancel_and_two_servers(club: Club) -> None:
    c = club
    d = make_club(c.env, "Other Club")
    ours = await schedule(c, "in 30h")
    theirs = await schedule(d, "in 30h")
    assert ours == theirs - 1
    wrong = answer(await d.carol.slash(d.lobby, "dm event cancel", dm=ours))
    assert wrong.ephemeral and f"no scheduled DM #{ours} here" in wrong.content
    not_host = answer(await c.alice.slash(c.lobby, "dm event cancel", dm=ours))
    assert not_host.ephemeral and "Only a host" in not_host.content
    assert f"DM #{theirs}" not in answer(await c.dave.slash(c.lobby, "dm event upcoming")).content
    assert f"#{ours}" in answer(await c.dave.slash(c.lobby, "dm event upcoming")).content
    await c.carol.slash(c.lobby, "dm event cancel", dm=ours)
    assert len(pings(c, c.lobby, c.alice, "is cancelled")) == 1
    (event,) = events_of(c)
    assert event.status == 4  # cancelled in the Events tab
    await c.env.advance_time(31 * HOUR)
    assert not any("Reminder" in m.content for m in bot_messages(c, c.lobby))
    (room,) = d.lobby.threads  # their room opened at check-in (a public thread by default)
    reminders = [m for ch in (d.lobby, room) for m in bot_messages(d, ch) if "Reminder" in m.content]
    assert len(reminders) == 3 and all(f"DM #{theirs}" in m.content for m in reminders)
    assert not c.lobby.threads
    assert all(str(c.alice.id) not in m.content for m in bot_messages(d, d.lobby))
    assert all(str(d.alice.id) not in m.content for m in bot_messages(c, c.lobby))


async def test_bot_away_across_a_reminder_and_the_start(club: Club, migrated_sqlite_url: str) -> None:
    c = club
    start = now(c) + dt.timedelta(hours=5)
    dm = await schedule(c, "in 5h", room="channel")
    await advance_to(c, start - dt.timedelta(hours=2))
    env = c.env
    await env._settle_internal()
    with env._bot_scope():  # the process stops: timers, heartbeat and database with it
        cog = c.bot.get_cog("ScheduleCog")
        assert cog is not None
        await cog.before_close()  # type: ignore[attr-defined]
        await c.bot.service.close()
        await c.bot.service.store.close()
    await env._detach_bot()
    await env.advance_time(2.5 * HOUR)  # the bot is away over the 1 h and 10 min reminders and the start
    back = now(c)
    assert back == start + dt.timedelta(minutes=30)
    settings = make_settings(migrated_sqlite_url)
    await _attach_bot(env, create_bot(settings, discord_app(settings), sync_commands=True))
    await env.advance_time(1)
    late = pings(c, c.lobby, c.alice, "Reminder")
    assert len(late) == 1 and "missed while the host was away" in late[0].content
    assert len(pings(c, c.lobby, c.alice, "Check-in for")) == 1
    # the no-show deadline (start + 10 min) passed while the bot was away: the players get the short grace
    # after its return to check in, not the whole wait again
    await env.advance_time(RETURN_GRACE_S - 2)
    assert not any("did not check in" in m.content or "cancelled" in m.content for m in bot_messages(c, c.lobby))
    await c.alice.send(c.lobby, "here")
    await c.bob.send(c.lobby, "here")
    assert len(pings(c, c.lobby, c.alice, "begins")) == 1
    listed = answer(await c.dave.slash(c.lobby, "dm event upcoming")).content
    assert f"#{dm}" not in listed
    await env.advance_time(2 * HOUR)
    assert len(pings(c, c.lobby, c.alice, "Reminder")) == 1


async def test_server_settings_zone_reminders_checkin_no_show(club: Club) -> None:
    c = club
    refused = answer(await c.alice.slash(c.lobby, "dm config", timezone="Europe/Berlin"))
    assert refused.ephemeral and "Only a host" in refused.content
    bad = answer(await c.carol.slash(c.lobby, "dm config", reminders="soon"))
    assert bad.ephemeral and "`reminders:` takes" in bad.content
    bad_zone = answer(await c.carol.slash(c.lobby, "dm config", timezone="Mars/Olympus"))
    assert "unknown time zone" in bad_zone.content
    saved = answer(
        await c.carol.slash(c.lobby, "dm config", timezone="Europe/Berlin", reminders="2h 5m", checkin=5, no_show=3)
    )
    assert "Europe/Berlin" in saved.content and "2 h, 5 min" in saved.content
    # SimCord's world starts on 2026-01-01 00:00 UTC: "tomorrow 20:00" in Berlin is 19:00 UTC on 2 January
    dm = await schedule(c, "tomorrow 20:00", room="channel")
    start = dt.datetime(2026, 1, 2, 19, 0, tzinfo=dt.UTC)
    card = next(m for m in bot_messages(c, c.lobby) if m.content.startswith(f"**Death Match #{dm}"))
    assert f"<t:{int(start.timestamp())}:F>" in card.content
    await advance_to(c, start - dt.timedelta(hours=2, seconds=1))
    assert pings(c, c.lobby, c.alice, "Reminder") == []
    await c.env.advance_time(2)
    assert len(pings(c, c.lobby, c.alice, "Reminder")) == 1
    await advance_to(c, start - dt.timedelta(minutes=5, seconds=1))
    assert pings(c, c.lobby, c.alice, "Check-in for") == []
    await c.env.advance_time(2)
    assert len(pings(c, c.lobby, c.alice, "Reminder")) == 2
    assert len(pings(c, c.lobby, c.alice, "Check-in for")) == 1
    await c.alice.send(c.lobby, "here")
    await advance_to(c, start + dt.timedelta(minutes=3, seconds=1))
    assert len(pings(c, c.lobby, c.alice, "wins the DM")) == 1
    past = answer(
        await c.carol.slash(
            c.lobby, "dm event schedule", game="boxes", player1=c.alice, player2=c.bob, at="2025-06-01 20:00"
        )
    )
    assert past.ephemeral and "in the past" in past.content and "e.g." in past.content
    garbage = answer(
        await c.carol.slash(c.lobby, "dm event schedule", game="boxes", player1=c.alice, player2=c.bob, at="whenever")
    )
    assert garbage.ephemeral and "cannot read" in garbage.content


async def test_dm_group_fits_discord(club: Club) -> None:
    group = club.bot.tree.get_command("dm")
    assert isinstance(group, discord.app_commands.Group)
    event = group.get_command("event")
    assert isinstance(event, discord.app_commands.Group)
    scheduling = {"schedule", "reschedule", "cancel", "upcoming", "results"}
    assert {c.name for c in event.commands} == scheduling | {"vacation", "notify"}  # /dm is full
    assert len(group.commands) <= 25  # Discord's limit for one group


async def test_room_thread_opens_at_checkin(club: Club) -> None:
    c = club
    start = now(c) + dt.timedelta(hours=1)
    dm = await schedule(c, "in 1h", prize="a crown")
    assert not c.lobby.threads
    await advance_to(c, start - dt.timedelta(minutes=15, seconds=-1))
    (room,) = c.lobby.threads  # a public thread, opened for check-in
    (checkin,) = pings(c, room, c.alice, "Check-in for")
    assert f"DM #{dm}" in checkin.content
    early = answer(await c.dave.click(checkin, label="I'm here"))
    assert early.ephemeral and "Only the two players" in early.content
    await c.alice.click(checkin, label="I'm here")
    await c.bob.click(checkin, label="I'm here")
    again = answer(await c.bob.click(checkin, label="I'm here"))
    assert again.ephemeral and "already checked in" in again.content
    assert pings(c, room, c.alice, "begins") == []
    await advance_to(c, start + dt.timedelta(seconds=1))
    assert len(pings(c, room, c.alice, "begins")) == 1
    (board,) = [m for m in bot_messages(c, room) if "**Match 1 · Dots-and-Boxes**" in m.content]
    assert "Prize: a crown" in board.content
    await resign(c.bob, room)
    said = f"<@{c.alice.id}> wins the DM by resignation. Prize: a crown."
    assert any(said in m.content for m in bot_messages(c, room))
    told = "wins the DM by resignation. Prize: a crown."
    assert any(told in m.content for m in bot_messages(c, c.lobby))  # told where it was scheduled


async def test_advantage_by_rating_is_decided_from_the_ratings_at_the_start(club: Club) -> None:
    c = club
    start = now(c) + dt.timedelta(hours=2)
    lower = await schedule(c, "in 2h", room="channel", first="lower-rated")
    higher = await schedule(c, "in 3h", room="channel", first="higher-rated")
    # scheduled while both were unrated; then bob loses a rated match, so alice is the higher rated
    result = await c.carol.slash(c.lobby, "dm start", game="boxes", player1=c.alice, player2=c.bob, room="channel")
    quick = int(answer(result).content.split()[1])
    await resign(c.bob, c.lobby)
    await c.env.advance_time(1)
    assert c.bot.service.live.get(quick) is None
    for dm, at, chooser in ((lower, start, 2), (higher, start + dt.timedelta(hours=1), 1)):
        await advance_to(c, at - dt.timedelta(minutes=5))
        await c.alice.send(c.lobby, "here")
        await c.bob.send(c.lobby, "here")
        await advance_to(c, at + dt.timedelta(seconds=1))
        s = await c.bot.get_cog("ScheduleCog").scheduler.get(dm)  # type: ignore[union-attr]
        assert s.public_status == "started" and s.advantage in ("lower-rated", "higher-rated")
        stored = await c.bot.service.store.load(s.match_id, with_events=True)
        assert stored is not None and stored.events[0].data["advantage"] == chooser, s.advantage
        await c.carol.slash(c.lobby, "dm host abort")
        await c.env.advance_time(1)


async def test_an_early_here_gets_an_answer_and_a_refused_at_names_the_servers_zone(club: Club) -> None:
    c = club
    await schedule(c, "in 2 days")
    await c.alice.send(c.lobby, "here")
    assert "Check-in opens" in bot_messages(c, c.lobby)[-1].content, "a `here` before check-in is answered"
    refused = answer(
        await c.carol.slash(
            c.lobby, "dm event schedule", game="boxes", player1=c.alice, player2=c.bob, at="whenever you like"
        )
    )
    assert refused.ephemeral and "`/dm config timezone:`" in refused.content and "zone, UTC" in refused.content


def rematch_offers(c: Club) -> list[discord.Message]:
    """The bot's messages carrying a Rematch button, in the lobby and its threads."""
    rooms = [c.lobby, *c.lobby.threads]
    return [m for room in rooms for m in bot_messages(c, room) if "Rematch" in str(m.components)]


async def test_no_rematch_after_a_no_show(club: Club) -> None:
    """Issue 37: a no-show forfeit was offered a rematch button; nobody played, so there is nothing to replay.
    A DM played to its end still gets the offer."""
    c = club
    start = now(c) + dt.timedelta(hours=1)
    await schedule(c, "in 1h", room="channel", prize="a crown")
    await advance_to(c, start - dt.timedelta(minutes=5))
    await c.bob.send(c.lobby, "here")
    await advance_to(c, start + dt.timedelta(minutes=10, seconds=1))
    assert pings(c, c.lobby, c.bob, "wins the DM by no-show. Prize: a crown.")
    await c.env.advance_time(5)
    assert rematch_offers(c) == []

    played = now(c) + dt.timedelta(hours=1)
    await schedule(c, "in 1h", room="channel")
    await advance_to(c, played - dt.timedelta(minutes=5))
    await c.alice.send(c.lobby, "here")
    await c.bob.send(c.lobby, "here")
    await advance_to(c, played + dt.timedelta(seconds=1))
    await resign(c.alice, c.lobby)
    await c.env.advance_time(5)
    assert len(rematch_offers(c)) == 1, "a game that was played is offered its rematch"


async def test_a_host_posts_upcoming_and_results_for_everyone(club: Club) -> None:
    c = club
    dm = await schedule(c, "in 3h", room="channel", prize="a crown")
    before = len(bot_messages(c, c.lobby))
    refused = answer(await c.dave.slash(c.lobby, "dm event upcoming", public=True))
    assert refused.ephemeral and len(bot_messages(c, c.lobby)) == before
    posted = answer(await c.carol.slash(c.lobby, "dm event upcoming", public=True))
    assert not posted.ephemeral and posted.content.startswith("**Scheduled DMs**")
    seen = [m for m in c.lobby.history(viewer=c.dave) if m.content.startswith("**Scheduled DMs**")]
    assert len(seen) == 1 and f"#{dm} " in seen[0].content

    await c.carol.slash(c.lobby, "dm event cancel", dm=dm)
    await schedule(c, "in 1h", room="channel")
    await advance_to(c, now(c) + dt.timedelta(minutes=55))
    await c.bob.send(c.lobby, "here")
    await advance_to(c, now(c) + dt.timedelta(minutes=16))  # alice never came: bob wins by no-show
    private = answer(await c.carol.slash(c.lobby, "dm event results"))
    assert private.ephemeral and "Post in the channel" in str(private.components)
    assert "Post in the channel" not in str(answer(await c.dave.slash(c.lobby, "dm event results")).components)
    await c.carol.click(private, label="Post in the channel")
    await c.env.settle()
    (shared,) = [m for m in c.lobby.history(viewer=c.alice) if m.content.startswith("**Results**")]
    assert "wins the DM by no-show." in shared.content
