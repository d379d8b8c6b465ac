"""Per-match buttons that survive restarts: the custom id carries the match, the ply and the action.

The buttons only hand requests to the host service, which checks everything (who may act, whether the
rule's window is still open by the stored move time, ...). No game logic lives here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import host_bot, same_guild
from bot.adapters.discord.errors import report_error
from bot.host import rules
from bot.host.rules import Action
from bot.host.service import HostError, Outcome, Refusal

STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


@dataclass(frozen=True)
class Choice:
    """One button to show: its code in the custom id, its label and style (`STYLES`)."""

    code: str
    label: str
    style: str = "secondary"


def rule_actions() -> dict[str, Action]:
    """Every rule's actions that have a button, by the button's code."""
    return {a.button: a for rule in rules.REGISTRY for a in rule.actions if a.button is not None}


def custom_id(match_id: int, ply: int, action: str) -> str:
    """`dm:<match>:<ply>:<action>`."""
    return f"dm:{match_id}:{ply}:{action}"


class MatchButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"dm:(?P<match>\d+):(?P<ply>\d+):(?P<action>[a-z]+)",
):
    """One button of one match; rebuilt from its custom id after a restart."""

    def __init__(
        self, match_id: int, ply: int, action: str, label: str | None = None, style: str = "secondary"
    ) -> None:
        button = discord.ui.Button[Any](
            label=label or action.capitalize(),
            style=STYLES.get(style, STYLES["secondary"]),
            custom_id=custom_id(match_id, ply, action),
        )
        super().__init__(button)
        self.match_id = match_id
        self.ply = ply
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> MatchButton:
        """Rebuild the button from a click (what it does is looked up when it is clicked)."""
        return cls(int(match["match"]), int(match["ply"]), match["action"])

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
        """A rule's action (checked against what the match's rules have open now), else the game's choice."""
        service = host_bot(interaction).service
        player = str(interaction.user.id)
        live = service.live.get(self.match_id)
        if live is None or not same_guild(live.guild_id, interaction.guild_id):
            raise HostError(Refusal("this_match_over"))
        action = rule_actions().get(self.action)
        if action is not None:
            now_open = [o for rule in live.rules for o in rule.open_actions(live) if o.action.name == action.name]
            names = live.names()
            if action.lapses and (not now_open or now_open[0].ply != self.ply):
                raise HostError(Refusal(f"stale:{action.name}", names=names))
            actor = now_open[0].actor if now_open else None
            if actor is not None and live.seat_of(player) != actor:
                data = {"actor": actor, **now_open[0].data}
                raise HostError(Refusal(f"not_actor:{action.name}", data=data, names=names))
            await service.act(self.match_id, player, f"{action.name}:button")
            return
        text = live.ruleset.choices(live.state).get(self.action)
        if live.seat_of(player) is None:
            raise HostError(Refusal("not_player:first"))
        result = await service.submit(self.match_id, player, text) if text is not None else None
        if result is None or result.status == Outcome.IGNORED:
            raise HostError(Refusal("no_rule:first"))
        if result.refusal is not None:
            raise HostError(result.refusal)


def _board_id(interaction: discord.Interaction[Any], match_id: int) -> int | None:
    """The id of the match's board message in this process, if the announcer knows it."""
    announcer = parts(interaction.client).announcer
    return announcer.board_message_id(match_id) if announcer is not None else None


def buttons(match_id: int, ply: int, choices: Sequence[Choice | str]) -> discord.ui.View:
    """A persistent view with these buttons (a bare code: a rule action's button as the rule declares it)."""
    view = discord.ui.View(timeout=None)
    known = rule_actions()
    for choice in choices:
        if isinstance(choice, str):
            action = known.get(choice)
            label = (action.label if action else None) or choice.capitalize()
            choice = Choice(choice, label, action.style if action else "secondary")
        view.add_item(MatchButton(match_id, ply, choice.code, choice.label, choice.style))
    return view
