"""Domain errors become polite ephemeral replies; anything else is logged (with the match id), never shown."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._shared import respond
from bot.adapters.discord.render import markdown
from bot.host.service import HostError
from bot.wording import commands as words
from bot.wording import error_sentence, options_text
from games.base import MoveError, OptionsError

log = logging.getLogger(__name__)

_POLITE = (HostError, MoveError, OptionsError)


def polite_text(error: BaseException) -> str | None:
    """The message a user may see for an error, or None when it is a bug."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        error = error.__cause__ or error
    if isinstance(error, MoveError):
        return error.reason
    if isinstance(error, HostError):
        return error_sentence(error)
    if isinstance(error, OptionsError) and error.problems:
        return "Options: " + options_text(error.problems, error.valid)
    if isinstance(error, _POLITE):
        return str(error)
    if isinstance(error, app_commands.NoPrivateMessage):
        return words.SERVER_CHANNEL_ONLY
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or words.NOT_HERE
    if isinstance(error, app_commands.CommandOnCooldown):
        return words.slow_down(error.retry_after)
    return None


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Tell the user what went wrong (or that something did), log bugs with their context."""
    text = polite_text(error)
    if text is None:
        original = getattr(error, "original", error)
        log.error(
            "unexpected error in %s (match %s, user %s)",
            interaction.command.qualified_name if interaction.command else interaction.data,
            interaction.extras.get("match_id"),
            interaction.user.id if interaction.user else None,
            exc_info=original,
        )
        match = interaction.extras.get("match_id")
        text = words.went_wrong(match)
    try:
        await respond(interaction, markdown(text))
    except discord.HTTPException:
        log.warning("could not send an error reply for interaction %s", interaction.id)


class ErrorHandler(commands.Cog):
    """Installs the application-command error handler."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        """Route every app-command error through `report_error`."""
        self.bot.tree.on_error = report_error  # type: ignore[method-assign]
