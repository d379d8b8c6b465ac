"""A server's review page is named after the server: the Discord face stores each guild's name when the bot is
ready in it, joins it, or sees it renamed (issue 49, point 5)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import simcord

from bot.adapters.discord.app import DMHost
from bot.adapters.web.views import Views
from bot.compose import build_readers
from tests.bot.adapters.discord.conftest import World, make_world

SECRET = b"guild-names-test-secret"


@pytest.fixture
async def early_env(simcord_bot: DMHost) -> AsyncIterator[tuple[simcord.Env, simcord.GuildHandle]]:
    """A guild that exists before the bot connects: Discord names it in READY, and no join follows."""
    env = simcord.Env(simcord_bot, settle_timeout=5.0)
    guild = env.create_guild(name="Old \u202eFriends\n Club")  # a direction override and a newline in it
    await env.start()
    try:
        yield env, guild
    finally:
        await env.shutdown()
        env._raise_errors_since(env._errors_acknowledged)


async def _title_of(bot: DMHost, guild_id: int) -> str:
    html = await Views(build_readers(bot.service.store), SECRET).server(guild_id)
    return html.split("<h1>", 1)[1].split("</h1>", 1)[0]


async def test_joining_a_guild_stores_its_name_and_the_server_page_shows_it(world: World) -> None:
    await world.env.settle()
    assert (await world.bot.guild_settings.get(world.guild.id)).name == "Death Match Club"
    assert await _title_of(world.bot, world.guild.id) == "Death Match Club"
    html = await Views(build_readers(world.bot.service.store), SECRET).server(world.guild.id)
    assert "<title>Death Match Club</title>" in html and "Discord server" not in html

    world.env.backend.edit_guild(world.guild.id, {"name": "Death <Match> & Co"})  # renamed in Discord
    await world.env.settle()
    assert await _title_of(world.bot, world.guild.id) == "Death &lt;Match&gt; &amp; Co"  # escaped

    other = make_world(world.env, "Second Club", suffix="2")  # a second guild joined later
    await world.env.settle()
    assert await _title_of(world.bot, other.guild.id) == "Second Club"
    assert await _title_of(world.bot, world.guild.id + 12345) == f"Discord server {world.guild.id + 12345}"
    assert await _title_of(world.bot, 0) == "Terminal rooms"


async def test_the_bot_ready_in_a_guild_stores_its_cleaned_name(
    early_env: tuple[simcord.Env, simcord.GuildHandle],
) -> None:
    env, guild = early_env
    await env.settle()
    bot: DMHost = env.bot  # type: ignore[assignment]
    assert (await bot.guild_settings.get(guild.id)).name == "Old Friends Club"
    assert await _title_of(bot, guild.id) == "Old Friends Club"
