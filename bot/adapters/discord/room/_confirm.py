"""Confirm / Cancel before a resignation or a move that gives up the mover's play (Dots' `stop`), in Discord.

The host says which texts are grave (`MatchService.grave`) and never waits for anyone: this view asks the player
and, on Confirm, submits the text as if it were posted then, so the host checks everything again (a match that
ended meanwhile is a refusal). Only that player can press. The prompt lapses after `LAPSE_SECONDS`; the clocks keep
running and nobody is held meanwhile: the opponent may move, and a move confirmed after the position changed is
not played. The terminal room asks nothing (its keywords act at once).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot import wording
from bot.adapters.discord._shared import NO_PINGS, board_linked, respond
from bot.host.service import Grave, HostError, Outcome, SubmitResult
from bot.wording import reason_text

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

LAPSE_SECONDS = 30.0
"""How long a Confirm / Cancel prompt stays open."""

Edit = Callable[..., Awaitable[Any]]


class ConfirmView(discord.ui.View):
    """Confirm / Cancel for one grave text of one player; lapses on its own after `LAPSE_SECONDS`."""

    def __init__(self, bot: DMHost, grave: Grave, player_id: str, name: str, message_id: str | None) -> None:
        super().__init__(timeout=None)
        self.bot = bot
        self.grave = grave
        self.player_id = player_id
        self.name = name
        self.message_id = message_id
        self.open = True
        self._edit: Edit | None = None
        self._lapse: asyncio.Task[None] | None = None
        confirm = discord.ui.Button[ConfirmView](label=wording.CONFIRM_LABEL, style=discord.ButtonStyle.danger)
        cancel = discord.ui.Button[ConfirmView](label=wording.CANCEL_LABEL, style=discord.ButtonStyle.secondary)
        confirm.callback = self._confirm  # type: ignore[method-assign]
        cancel.callback = self._cancel  # type: ignore[method-assign]
        self.add_item(confirm)
        self.add_item(cancel)

    def arm(self, edit: Edit) -> None:
        """Start the lapse countdown; `edit` changes the prompt (its content and view) when it lapses."""
        self._edit = edit
        self._lapse = asyncio.create_task(self._lapse_later(), name=f"confirm-{self.grave.match_id}")

    def _words(self) -> tuple[str, str, str]:
        return self.grave.action, self.name, self.grave.text

    def _close(self) -> bool:
        """Close the prompt; False when it was closed already (lapsed, cancelled or confirmed)."""
        if not self.open:
            return False
        self.open = False
        self.stop()
        if self._lapse is not None and self._lapse is not asyncio.current_task():
            self._lapse.cancel()
        return True

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the player who asked may answer; anyone else is told so privately."""
        if str(interaction.user.id) == self.player_id:
            return True
        await respond(interaction, wording.confirm_only(self.name))
        return False

    async def _confirm(self, interaction: discord.Interaction[Any]) -> None:
        if not self._close():
            await respond(interaction, wording.confirm_lapsed(*self._words(), LAPSE_SECONDS))
            return
        g = self.grave
        service = self.bot.service
        live = service.live.get(g.match_id)
        if g.action == "move" and live is not None and live.ply != g.ply:
            await interaction.response.edit_message(content=wording.confirm_moved_on(g.text), view=None)
            return
        try:
            result = await service.submit(g.match_id, self.player_id, g.text, message_id=self.message_id)
        except HostError as exc:
            result = SubmitResult.rejected(exc.refusal)
        if result.status == Outcome.ACCEPTED:
            text = wording.confirm_done(*self._words())
        else:
            text = reason_text(result) or wording.confirm_moved_on(g.text)
        await interaction.response.edit_message(content=text, view=None)

    async def _cancel(self, interaction: discord.Interaction[Any]) -> None:
        if not self._close():
            await respond(interaction, wording.confirm_lapsed(*self._words(), LAPSE_SECONDS))
            return
        await interaction.response.edit_message(content=wording.confirm_cancelled(*self._words()), view=None)

    async def _lapse_later(self) -> None:
        await asyncio.sleep(LAPSE_SECONDS)
        if not self._close() or self._edit is None:
            return
        try:
            await self._edit(content=wording.confirm_lapsed(*self._words(), LAPSE_SECONDS), view=None)
        except discord.HTTPException:
            log.warning("match %s: could not mark a confirmation as lapsed", self.grave.match_id)


def _name(bot: DMHost, grave: Grave) -> str:
    live = bot.service.live.get(grave.match_id)
    return live.players[grave.seat].name if live is not None else "?"


async def ask_in_room(bot: DMHost, message: discord.Message, grave: Grave) -> None:
    """Answer a player's grave message in the room with the prompt (their clock keeps running)."""
    view = ConfirmView(bot, grave, str(message.author.id), _name(bot, grave), str(message.id))
    content = board_linked(
        bot, grave.match_id, wording.confirm_question(grave.action, view.name, grave.text, LAPSE_SECONDS)
    )
    try:
        prompt = await message.reply(content, view=view, allowed_mentions=NO_PINGS, mention_author=False)
    except discord.HTTPException:
        view.stop()
        log.warning("match %s: could not ask to confirm message %s", grave.match_id, message.id)
        return
    view.arm(prompt.edit)


async def ask_privately(bot: DMHost, interaction: discord.Interaction[Any], grave: Grave) -> None:
    """Answer a command (`/dm resign`) with the prompt, seen only by the player who used it."""
    view = ConfirmView(bot, grave, str(interaction.user.id), _name(bot, grave), None)
    content = wording.confirm_question(grave.action, view.name, grave.text, LAPSE_SECONDS)
    await respond(interaction, content, view=view)
    view.arm(interaction.edit_original_response)


__all__ = ["LAPSE_SECONDS", "ConfirmView", "ask_in_room", "ask_privately"]
