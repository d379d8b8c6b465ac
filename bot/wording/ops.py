"""What the operator reads from the command line and at start: the lines for Discord's refusals at start (a
wrong token, privileged intents not enabled, Discord unreachable), and the command lines' own sentences."""

from __future__ import annotations

TOKEN_REFUSED = (
    "Discord refused the token (wrong, reset or revoked): copy the bot token from the developer portal "
    "(your application → Bot → Reset Token) into DMHOST_TOKEN."
)
INTENTS_REFUSED = (
    "Discord refused the privileged intents: enable Message Content Intent and Server Members Intent "
    "in the developer portal (your application → Bot → Privileged Gateway Intents), or set "
    "DMHOST_MESSAGE_CONTENT=off to do without Message Content (moves by mention or /move); "
    "`dmhost doctor` tells which one is missing."
)
DISCORD_UNWELL = "Discord is not answering properly right now (gateway or server error): try again in a few minutes."
NOTHING_SCHEDULED = "No scheduled DMs (add one with `dmhost schedule add`)."
"""`dmhost schedule list` with nothing scheduled."""


def discord_unreachable(error: str) -> str:
    """Discord's API cannot be reached from here (`error`: what the connection said)."""
    return f"cannot reach Discord ({error}): check the network connection, DNS and any proxy, then try again."
