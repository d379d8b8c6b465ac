"""`/dm config` on a simulated Discord: hosts change the guild's settings, they survive a restart, and
`/dm start` follows them (host role, default clock)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from pydantic import SecretStr

from bot.adapters.discord.app import DMHost, create_bot
from bot.ops.apps import discord_app
from bot.settings import Settings
from bot.store.db import sqlite_url_for


def make_bot(url: str) -> DMHost:
    """The real bot on a real database; the heartbeat slow so the simulated world can settle."""
    settings = Settings(token=None, database_url=SecretStr(url), heartbeat_seconds=3600, host_role="Host")
    return create_bot(settings, discord_app(settings), sync_commands=True)


@pytest.fixture
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)  # no stray .env
    return sqlite_url_for(tmp_path / "dmhost.db")


@pytest.fixture
def simcord_bot(url: str, solver_compiled: None) -> DMHost:
    """SimCord's `simcord_env` fixture runs this bot."""
    return make_bot(url)


def said(result: Any) -> str:
    """The text of an interaction's answer (response, else first follow-up)."""
    message = result.response or (result.followups[0] if result.followups else None)
    assert message is not None, result
    return str(message.content)


async def test_config_round_trip(simcord_env: simcord.Env, url: str) -> None:
    env = simcord_env
    guild = env.create_guild("Death Match Club")
    general = guild.create_text_channel("general")
    games = guild.create_text_channel("games")
    referees = guild.create_role("Referees")
    admins = guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    admin = guild.add_member(env.create_user("admin"), roles=[admins])
    carol = guild.add_member(env.create_user("carol"), roles=[referees])
    dave = guild.add_member(env.create_user("dave"))
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))

    shown = await carol.slash(general, "dm config")
    assert shown.ephemeral
    assert "Host role: not set" in said(shown) and "each game's own" in said(shown)

    refused = await carol.slash(general, "dm config", room_mode="private")
    assert refused.ephemeral and "Only a host" in said(refused) and "`Host`" in said(refused)

    saved = await admin.slash(
        general,
        "dm config",
        host_role=referees,
        room_channel=games,
        room_mode="private",
        game="boxes",
        clock="move=90 reserve=600",
    )
    assert saved.ephemeral and said(saved).startswith("Saved.")
    assert referees.mention in said(saved) and games.mention in said(saved)

    await env.restart_bot(make_bot(url))  # a fresh process reads the settings back from the database

    shown = await dave.slash(general, "dm config")
    text = said(shown)
    assert referees.mention in text
    assert f"Game-room channel: {games.mention}" in text
    assert "Default room: a private thread" in text
    assert "Dots and Boxes: move=90 reserve=600" in text or "Boxes: move=90 reserve=600" in text

    # the guild's host role now decides who hosts, and its default clock applies
    no = await dave.slash(general, "dm start", game="boxes", player1=alice, player2=bob, room="channel")
    assert "Only a host" in said(no) and "`Referees`" in said(no)
    await carol.slash(general, "dm start", game="boxes", player1=alice, player2=bob, room="channel")
    bot = env.bot
    assert isinstance(bot, DMHost)
    (live,) = bot.service.live.values()
    assert (live.clocks.tc.move, live.clocks.tc.reserve) == (90.0, 600.0)
    await carol.slash(general, "dm host abort", match=live.id)

    # an explicit clock at /dm start still wins over the guild's default
    await carol.slash(general, "dm start", game="boxes", player1=alice, player2=bob, room="channel", clock="move=30")
    (live,) = [lv for lv in bot.service.live.values() if lv.status != "aborted"]
    assert (live.clocks.tc.move, live.clocks.tc.reserve) == (30.0, 600.0)
    await carol.slash(general, "dm host abort", match=live.id)

    # a bad value is refused privately and changes nothing
    bad = await carol.slash(general, "dm config", game="boxes", clock="move=soon")
    assert bad.ephemeral and "number of seconds" in said(bad)
    assert "move=90 reserve=600" in said(await dave.slash(general, "dm config"))

    # reset puts a setting back to the default
    reset = await carol.slash(general, "dm config", reset="clock", game="boxes")
    assert "each game's own" in said(reset)
    reset = await carol.slash(general, "dm config", reset="host_role")
    assert "Host role: not set" in said(reset)
    again = await carol.slash(general, "dm config", room_mode="public")
    assert "Only a host" in said(again)
    assert not env.errors
