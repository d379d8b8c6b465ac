"""Discord's refusals at start (a wrong token, privileged intents not enabled, Discord unreachable), worded
for the operator: one line naming the problem and its fix."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import aiohttp
import discord
import discord.http

from bot.wording import ops as words

__all__ = ["discord_unreachable", "explain_discord"]


def explain_discord(exc: BaseException) -> str | None:
    """The line for an operator's mistake Discord reported (None: not one of those)."""
    if isinstance(exc, discord.LoginFailure):
        return words.TOKEN_REFUSED
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return words.INTENTS_REFUSED
    if isinstance(exc, aiohttp.ClientConnectorError | aiohttp.ServerTimeoutError):
        return words.discord_unreachable(str(exc))
    if isinstance(exc, discord.GatewayNotFound | discord.DiscordServerError):
        return words.DISCORD_UNWELL
    return None


def discord_unreachable(timeout: float = 10.0) -> str | None:
    """Why Discord's API (where discord.py sends its requests) cannot be reached from here (no network, no
    DNS, a firewall), or None."""
    api = urlsplit(discord.http.Route.BASE)
    try:
        address = (api.hostname or "discord.com", api.port or (443 if api.scheme == "https" else 80))
        with socket.create_connection(address, timeout=timeout):
            return None
    except OSError as exc:
        return words.discord_unreachable(str(exc))
