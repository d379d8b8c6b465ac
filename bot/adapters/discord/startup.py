"""Discord's refusals at start (a wrong token, privileged intents not enabled, Discord unreachable), worded
for the operator: one line naming the problem and its fix."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import aiohttp
import discord
import discord.http

__all__ = ["discord_unreachable", "explain_discord"]


def explain_discord(exc: BaseException) -> str | None:
    """The line for an operator's mistake Discord reported (None: not one of those)."""
    if isinstance(exc, discord.LoginFailure):
        return (
            "Discord refused the token (wrong, reset or revoked): copy the bot token from the developer portal "
            "(your application → Bot → Reset Token) into DMHOST_TOKEN."
        )
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return (
            "Discord refused the privileged intents: enable Message Content Intent and Server Members Intent "
            "in the developer portal (your application → Bot → Privileged Gateway Intents), or set "
            "DMHOST_MESSAGE_CONTENT=off to do without Message Content (moves by mention or /move); "
            "`dmhost doctor` tells which one is missing."
        )
    if isinstance(exc, aiohttp.ClientConnectorError | aiohttp.ServerTimeoutError):
        return f"cannot reach Discord ({exc}): check the network connection, DNS and any proxy, then try again."
    if isinstance(exc, discord.GatewayNotFound | discord.DiscordServerError):
        return "Discord is not answering properly right now (gateway or server error): try again in a few minutes."
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
        return f"cannot reach Discord ({exc}): check the network connection, DNS and any proxy, then try again."
