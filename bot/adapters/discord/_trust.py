"""Who may decide a match (issue 37): never one of its players. A host who plays in a match cannot award it
or rule on it; another host (or a member with Manage Server who does not play in it) can."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import discord

from bot.host.service import HostError
from bot.wording.commands import OWN_MATCH


def refuse_own_match(interaction: discord.Interaction[Any], player_ids: Iterable[str]) -> None:
    """Refuse a decision by one of the match's own players."""
    if str(interaction.user.id) in {str(p) for p in player_ids}:
        raise HostError(OWN_MATCH)
