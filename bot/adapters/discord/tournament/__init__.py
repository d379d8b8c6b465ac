"""`/dm tournament …`: sign-up cards with Join/Leave buttons, rounds opened in their own rooms, standings
and brackets as pictures, the winner announced — on the tournament service (`bot.tournaments`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.tournament._card import GameHereButton, SignupButton
from bot.adapters.discord.tournament._cog import TournamentFeature

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["GameHereButton", "SignupButton", "TournamentFeature", "setup"]


async def setup(bot: DMHost) -> None:
    """Load the feature (after `/dm`, whose group it joins) and register the sign-up buttons."""
    await bot.add_cog(TournamentFeature(bot, bot.app.tournaments))
    bot.add_dynamic_items(SignupButton, GameHereButton)
