"""Scheduled DMs on a simulated Discord across simulated days: the card, reminders at their exact times
(one ping each), check-in and start, a no-show, both absent, the host's extension, a proposal accepted,
a cancel, the bot away across a reminder and the start, two servers, and the server's Events tab."""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import discord
import pytest
import simcord
from simcord.env import _attach_bot

from bot.adapters.discord.app import DMHost, create_bot
from bot.settings import Settings

from tests.bot.adapters.discord.conftest import answer

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
def simcord_bot(sqlite_url: str, solver_compiled: None) -> DMHost:
    return create_bot(make_settings(sqlite_url), sync_commands=True)


@dataclass
class Club:
    env: simcord.Env
    guild: simcord.GuildHandle
    lobby: simcord.ChannelHandle
    alice: simcord.MemberActor
    bob: simcord.MemberActor
    carol: simcord.MemberActor  # host
    dave: simcord.MemberActor

    @property
    def bot(self) -> DMHost:
        return self.env.bot  # type: ignore[return-value]


def make_club(env: simcord.Env, name: str = "Death Match Club") -> Club:
    guild = env.create_guild(name=name)
    lobby = guild.create_text_channel("lobby")
    host_role = guild.create_role("Host")
    return Club(
        env,
        guild,
        lobby,
        guild.add_member(env.create_user(f"alice-{name[:3]}")),
        guild.add_member(env.create_user(f"bob-{name[:3]}")),
        guild.add_member(env.create_user(f"carol-{name[:3]}"), roles=[host_role]),
        guild.add_member(env.create_user(f"dave-{name[:3]}")),
    )


@pytest.fixture
async def club(simcord_env: simcord.Env) -> AsyncIterator[Club]:
    yield make_club(simcord_env)


def texts(c: Club, channel: simcord.ChannelHandle) -> list[discord.Message]:
    assert c.bot.user is not None
    return [m for m in channel.history() if m.author.id == c.bot.user.id]


def pings(c: Club, channel: simcord.ChannelHandle, member: simcord.MemberActor, words: str) -> list[discord.Message]:
    """The bot's messages here that notify `member` (not merely name them) and contain `words`."""
    stored = c.env.backend.messages.get(channel.id, {})
    return [
        m
        for m in texts(c, channel)
        if words in m.content and member.id in (getattr(stored.get(m.id), "ping_user_ids", None) or ())
    ]


async def schedule(c: Club, at: str, **kw: Any) -> int:
    result = await c.carol.slash(c.lobby, "dm schedule", game="boxes", player1=c.alice, player2=c.bob, at=at,
                                 options="rows=2 cols=2", **kw)
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
    card = [m for m in texts(c, c.lobby) if m.content.startswith(f"**Death Match #{dm}")]
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
    assert "is here" in texts(c, c.lobby)[-1].content
    await advance_to(c, start + dt.timedelta(seconds=1))
    assert len(pings(c, c.lobby, c.alice, "begins")) == 1
    assert len(pings(c, c.lobby, c.alice, "Reminder")) == 3
    assert any("**Match 1 · Dots-and-Boxes**" in m.content for m in texts(c, c.lobby))  # the board
    (event,) = events_of(c)
    assert event.status == 2
    # the match: alice resigns … bob wins the DM and the prize
    await c.alice.slash(c.lobby, "dm resign")
    await c.env.advance_time(1)
    assert any("wins the DM and 15 garnets by resignation" in m.content for m in texts(c, c.lobby))
    (event,) = events_of(c)
    assert event.status == 3
    shown = await c.dave.slash(c.lobby, "dm results", export=True)
    message = answer(shown)
    assert "wins the DM and 15 garnets" in message.content
    (attachment,) = message.attachments
    rows = list(csv.DictReader(io.StringIO((await attachment.read()).decode())))
    assert len(rows) == 1 and rows[0]["prize"] == "15 garnets" and rows[0]["reason"] == "resign"
