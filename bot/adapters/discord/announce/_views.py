"""Per-match buttons that survive restarts: the custom id carries the match, the ply and the action.

The buttons only hand requests to the host service, which checks everything (who may act, whether the
take-back window is still open by the stored move time, ...). No game logic lives here.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.ext import commands

from bot.adapters.discord._shared import host_bot, pending_of, same_guild
from bot.adapters.discord.errors import report_error
from bot.host.service import HostError, SubmitResult
from bot.wording import seat_name

ACTIONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "take": ("Take back", discord.ButtonStyle.secondary),
    "mull": ("Use mulligan", discord.ButtonStyle.primary),
    "decl": ("Decline mulligan", discord.ButtonStyle.secondary),
    "here": ("I'm here", discord.ButtonStyle.success),
    "first": ("I move first", discord.ButtonStyle.primary),
    "second": ("Opponent moves first", discord.ButtonStyle.secondary),
    "red": ("Take red", discord.ButtonStyle.danger),
    "blue": ("Take blue", discord.ButtonStyle.primary),
}
"""Action code in the custom id → button label and style."""

_TEXTS = {"first": "first", "second": "second", "red": "take red", "blue": "take blue"}
"""Actions that are simply a player's text sent to the match."""


def custom_id(match_id: int, ply: int, action: str) -> str:
    """`dm:<match>:<ply>:<action>`."""
    return f"dm:{match_id}:{ply}:{action}"


class MatchButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"dm:(?P<match>\d+):(?P<ply>\d+):(?P<action>[a-z]+)",
):
    """One button of one match; rebuilt from its custom id after a restart."""

    def __init__(self, match_id: int, ply: int, action: str) -> None:
        label, style = ACTIONS[action]
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id(match_id, ply, action)))
        self.match_id = match_id
        self.ply = ply
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> MatchButton:
        """Rebuild the button from a click (unknown actions are rejected by the template's caller)."""
        action = match["action"]
        if action not in ACTIONS:
            raise ValueError(f"unknown button action {action!r}")
        return cls(int(match["match"]), int(match["ply"]), action)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Hand the click to the host, else say why (privately). On success the board is redrawn by the
        announcer with the buttons that are open now; a button on any other message is simply removed."""
        interaction.extras["match_id"] = self.match_id
        try:
            await self._act(interaction)
        except Exception as exc:
            await report_error(interaction, exc)
            return
        if interaction.response.is_done():
            return
        board = _board_id(interaction, self.match_id)
        if interaction.message is not None and interaction.message.id == board:
            await interaction.response.defer()
        else:
            await interaction.response.edit_message(view=None)

    async def _act(self, interaction: discord.Interaction[Any]) -> None:
        service = host_bot(interaction).service
        player = str(interaction.user.id)
        match_id = self.match_id
        result: SubmitResult | None
        live = service.live.get(match_id)
        if live is None or not same_guild(live.guild_id, interaction.guild_id):
            raise HostError("This match is over.")
        if self.action == "take":
            live = service.get(match_id)
            pending = pending_of(live)
            if pending is None or pending.ply != self.ply:
                raise HostError("That move is already final.")
            if live.players[pending.seat].id != player:
                raise HostError(f"Only {seat_name(live, pending.seat)} can take back {pending.notation}.")
            result = await service.takeback(match_id, player, via="button")
        elif self.action == "mull":
            result = await service.act(match_id, player, "mulligan")
        elif self.action == "decl":
            result = await service.act(match_id, player, "decline")
        elif self.action == "here":
            result = await service.act(match_id, player, "here")
        else:
            live = service.get(match_id)
            if live.seat_of(player) is None:
                raise HostError("Only a player of this match can choose.")
            result = await service.submit(match_id, player, _TEXTS[self.action])
            if result.status == "ignored":
                raise HostError("That choice is not open any more.")
        if result is not None and result.refusal is not None:
            raise HostError(result.refusal)


def _board_id(interaction: discord.Interaction[Any], match_id: int) -> int | None:
    """The id of the match's board message in this process, if the announcer knows it."""
    announcer = interaction.client.get_cog("Announcer") if isinstance(interaction.client, commands.Bot) else None
    getter = getattr(announcer, "board_message_id", None)
    return getter(match_id) if getter is not None else None


def buttons(match_id: int, ply: int, actions: list[str]) -> discord.ui.View:
    """A persistent view with the given actions' buttons."""
    view = discord.ui.View(timeout=None)
    for action in actions:
        view.add_item(MatchButton(match_id, ply, action))
    return view
