"""Who decided an awarded match, by name as the server shows it (issue 37: every decision line names its host)."""

from __future__ import annotations

from typing import Any

import discord

from bot.host.service import HostEvent, Live
from bot.types import is_withdrawal


def decider_name(client: discord.Client, live: Live, ev: HostEvent) -> str | None:
    """The display name of the host who awarded the match of a `finished` event (None: not an award by a known
    member; a withdrawal is said otherwise)."""
    by: Any = ev.detail.get("by")
    if ev.data.get("reason") != "award" or not by or is_withdrawal(str(by)) or not str(by).isdigit():
        return None
    guild = client.get_guild(live.guild_id) if live.guild_id is not None else None
    member = guild.get_member(int(by)) if guild is not None else None
    if member is not None:
        return member.display_name
    user = client.get_user(int(by))
    return user.display_name if user is not None else None
