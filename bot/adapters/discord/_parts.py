"""The Discord features of one bot, typed: each feature puts itself here when it is built (and takes itself
out when it is unloaded), and the others reach it as `parts(bot).announcer` — never by looking a cog up by
its name. A feature that is not loaded is None."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.adapters.discord.announce._cog import Announcer
    from bot.adapters.discord.commands._cog import MatchCommands
    from bot.adapters.discord.correspondence._cog import CorrespondenceCog
    from bot.adapters.discord.overview._cog import Overview
    from bot.adapters.discord.room._confirm import ConfirmPrompts
    from bot.adapters.discord.schedule._cog import ScheduleCog
    from bot.adapters.discord.series._cog import SeriesCog
    from bot.adapters.discord.tournament._cog import TournamentFeature


@dataclass
class Parts:
    """The features loaded in this bot."""

    announcer: Announcer | None = None
    commands: MatchCommands | None = None
    correspondence: CorrespondenceCog | None = None
    overview: Overview | None = None
    prompts: ConfirmPrompts | None = None
    schedule: ScheduleCog | None = None
    series: SeriesCog | None = None
    tournaments: TournamentFeature | None = None


_NONE = Parts()
"""What a client that is not our bot has: nothing loaded."""


def parts(client: Any) -> Parts:
    """The features of the bot a client is (an interaction's `client`, a cog's `bot`)."""
    found = getattr(client, "parts", None)
    return found if isinstance(found, Parts) else _NONE
