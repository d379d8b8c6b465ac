"""The rematch button: its custom id carries the finished match, so it is recognised after a restart; the
offer itself is a durable job (`bot.series.rematch`), so a click after a restart still counts."""

from __future__ import annotations

from typing import Any

import discord

from bot.adapters.discord._parts import parts
from bot.adapters.discord.errors import report_error
from bot.wording import series as wording


def rematch_id(match_id: int) -> str:
    """`dmrematch:<finished match>`."""
    return f"dmrematch:{match_id}"


class RematchButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"dmrematch:(?P<match>\d+)"):
    """The rematch button under a finished match (or series)."""

    def __init__(self, match_id: int) -> None:
        super().__init__(
            discord.ui.Button[Any](
                label=wording.rematch_button(), style=discord.ButtonStyle.primary, custom_id=rematch_id(match_id)
            )
        )
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> RematchButton:
        """Rebuild the button from a click."""
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Hand the click to the series feature."""
        interaction.extras["match_id"] = self.match_id
        cog = parts(interaction.client).series
        try:
            if cog is None:
                raise LookupError("the series feature is not loaded")
            await cog.rematch_click(interaction, self.match_id)
        except Exception as exc:
            await report_error(interaction, exc)


def rematch_view(match_id: int) -> discord.ui.View:
    """A persistent view with the rematch button."""
    view = discord.ui.View(timeout=None)
    view.add_item(RematchButton(match_id))
    return view
