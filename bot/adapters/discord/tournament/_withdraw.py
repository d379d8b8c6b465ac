"""Leaving a started tournament from its sign-up card asks first (issue 37): one click on a stale Leave button
must not forfeit a live game. The question names the game to be forfeited."""

from __future__ import annotations

from typing import Any

import discord

from bot.adapters.discord._shared import NO_PINGS, respond
from bot.adapters.discord.errors import report_error
from bot.adapters.discord.render import markdown
from bot.tournaments.rounds import Game
from bot.tournaments.service import Tournament, TournamentService
from bot.wording import tournament_told as told


async def at_stake(service: TournamentService, t: Tournament, player_id: str) -> str:
    """What withdrawing now forfeits, as the question says it."""
    entries = await service.entries(t.id)
    mine = next((e for e in entries if e.player_id == player_id and not e.withdrawn), None)
    names = {e.id: e.name for e in entries}
    if mine is not None:
        for g in await service.games(t.id):
            p = g.pairing
            if g.round == t.round and isinstance(p, Game) and p.result is None and mine.id in (p.white, p.black):
                other = names.get(p.black if p.white == mine.id else p.white, "?")
                return told.withdraw_question(t.name, other, g.round, g.board, g.match_id is not None)
    return told.withdraw_question(t.name, None, t.round, 0, False)


class WithdrawConfirm(discord.ui.View):
    """Withdraw / Stay, for the player who clicked Leave after the start only."""

    def __init__(self, service: TournamentService, tid: int, player_id: str) -> None:
        super().__init__(timeout=120)
        self.service, self.tid, self.player_id = service, tid, player_id

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        return str(interaction.user.id) == self.player_id

    @discord.ui.button(label="Withdraw", style=discord.ButtonStyle.danger)
    async def withdraw(self, interaction: discord.Interaction[Any], _button: discord.ui.Button[Any]) -> None:
        """Withdraw now, forfeiting what remains."""
        try:
            t = await self.service.get(self.tid)
            await self.service.leave(self.tid, self.player_id, by=self.player_id)
        except Exception as exc:
            await report_error(interaction, exc)
            return
        self.stop()
        await interaction.response.edit_message(
            content=markdown(told.you_left(t.name)), view=None, allowed_mentions=NO_PINGS
        )

    @discord.ui.button(label="Stay", style=discord.ButtonStyle.secondary)
    async def stay(self, interaction: discord.Interaction[Any], _button: discord.ui.Button[Any]) -> None:
        """Keep playing."""
        self.stop()
        await interaction.response.edit_message(content=markdown(told.STILL_IN), view=None)


async def ask_withdraw(interaction: discord.Interaction[Any], service: TournamentService, t: Tournament) -> None:
    """The question, privately, to a player who clicked Leave on a started tournament's card."""
    player = str(interaction.user.id)
    if not any(e.player_id == player and not e.withdrawn for e in await service.entries(t.id)):
        await service.leave(t.id, player, by=player)  # refused with the usual reason
        return
    await respond(
        interaction, markdown(await at_stake(service, t, player)), view=WithdrawConfirm(service, t.id, player)
    )
