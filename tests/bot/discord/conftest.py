"""SimCord fixtures: the real bot (real service, real SQLite file) against a simulated Discord."""

from __future__ import annotations

from dataclasses import dataclass

import discord
import pytest
import simcord

from bot.app import DMHost, create_bot
from bot.settings import Settings


@pytest.fixture
def settings(sqlite_url: str) -> Settings:
    """Long heartbeat (a 1 s heartbeat keeps SimCord's world from ever settling), no announcement delay."""
    return Settings(  # type: ignore[call-arg]
        _env_file=None, database_url=sqlite_url, heartbeat_seconds=3600.0, announce_batch_seconds=0.0
    )


@pytest.fixture
def simcord_bot(settings: Settings) -> DMHost:
    """The bot as `dmhost run` builds it, commands synced."""
    return create_bot(settings, sync_commands=True)


@dataclass
class World:
    """One guild: a lobby channel, two players, a host (Host role), a spectator and a moderator."""

    env: simcord.Env
    guild: simcord.GuildHandle
    lobby: simcord.ChannelHandle
    alice: simcord.MemberActor
    bob: simcord.MemberActor
    carol: simcord.MemberActor
    dave: simcord.MemberActor

    @property
    def bot(self) -> DMHost:
        return self.env.bot  # type: ignore[return-value]


@pytest.fixture
async def world(simcord_env: simcord.Env) -> World:
    env = simcord_env
    guild = env.create_guild(name="Death Match Club")
    lobby = guild.create_text_channel("lobby")
    host_role = guild.create_role("Host")
    return World(
        env=env,
        guild=guild,
        lobby=lobby,
        alice=guild.add_member(env.create_user("alice")),
        bob=guild.add_member(env.create_user("bob")),
        carol=guild.add_member(env.create_user("carol"), roles=[host_role]),
        dave=guild.add_member(env.create_user("dave")),
    )
