"""The applications the entry points build, through the composition root (`bot.compose`), and hand whole to
their faces: a face constructs nothing itself (`tests/test_compose.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.compose import App
    from bot.host.service import MatchService
    from bot.settings import Settings


def discord_app(settings: Settings, *, service: MatchService | None = None) -> App:
    """The Discord bot's application (`bot.compose.build_app`): matches hosted by the shards configured in
    `settings`, on Discord's clock; `service`: a test's own host service. `create_bot(settings, app)` adapts it."""
    from bot.adapters.discord.app import discord_now, owns_guild
    from bot.compose import build_app

    return build_app(
        settings,
        service=service,
        owns_guild=lambda guild_id: owns_guild(settings, guild_id),
        wall=discord_now,  # Discord's time, which message times are read against
    )
