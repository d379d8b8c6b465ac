"""`/dm host …`: the host's tools for a running match (pause, resume, abort, time, award)."""

from __future__ import annotations

import contextlib
from typing import Any

import discord
from discord import app_commands

from bot.adapters.discord._shared import require_host, respond
from bot.adapters.discord._trust import refuse_own_match
from bot.adapters.discord.commands._common import Matches, MatchId
from bot.adapters.discord.render import markdown
from bot.host.events import Refusal
from bot.host.service import HostError, MatchService
from bot.wording import commands as words
from bot.wording import display, result_sentence, seat_name
from bot.wording.decisions import name_decider
from games.base import Termination


class HostGroup(app_commands.Group):
    """`/dm host …`; each command finds the match and hands the host's request to the host service."""

    def __init__(self, service: MatchService, matches: Matches) -> None:
        super().__init__(name="host", description="Run a match: pause, resume, abort, time, award (hosts)")
        self.service = service
        self.matches = matches

    @app_commands.command(name="pause", description="Pause a match's clocks (hosts only)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def pause(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Stop both clocks."""
        await self.matches.one_step(interaction, match, self.service.pause, words.PAUSED, host=True)

    @app_commands.command(name="resume", description="Resume a paused match (hosts only)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def resume(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Start the clocks again."""
        await self.matches.one_step(interaction, match, self.service.resume, words.CONTINUES, host=True)

    @app_commands.command(name="abort", description="End a match without a result (hosts only)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def abort(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """No winner, no loser."""
        await self.matches.one_step(interaction, match, self.service.abort, words.ABORTED, host=True)

    @app_commands.command(name="time", description="Give or take time from a player (hosts only)")
    @app_commands.describe(
        player="whose clock", seconds="seconds to add (negative to remove)", match="match id (default: this channel)"
    )
    async def time(
        self,
        interaction: discord.Interaction[Any],
        player: discord.Member,
        seconds: app_commands.Range[int, -3600, 3600],
        match: MatchId | None = None,
    ) -> None:
        """Adjust one clock."""
        require_host(interaction)
        live = self.matches.find(interaction, match)
        seat = live.seat_of(str(player.id))
        if seat is None:
            raise HostError(Refusal("not_in_match", data={"player": display(player.display_name), "match": live.id}))
        await self.service.adjust_time(live.id, seat, float(seconds), str(interaction.user.id))
        await respond(interaction, markdown(words.time_adjusted(player.display_name, seconds, live.id)))

    @app_commands.command(name="award", description="Declare a match's result (hosts only)")
    @app_commands.describe(winner="the winner (leave empty for a draw)", match="match id (default: this channel)")
    async def award(
        self, interaction: discord.Interaction[Any], winner: discord.Member | None = None, match: MatchId | None = None
    ) -> None:
        """Finish the match with the host's verdict."""
        require_host(interaction)
        live = self.matches.find(interaction, match)
        refuse_own_match(interaction, [p.id for p in live.players.values()])
        seat = None
        if winner is not None:
            seat = live.seat_of(str(winner.id))
            if seat is None:
                outsider = {"player": display(winner.display_name), "match": live.id}
                raise HostError(Refusal("not_in_match", data=outsider))
        await self.service.award(live.id, seat, str(interaction.user.id))
        names = {s: seat_name(live, s) for s in live.players}
        scores = None
        with contextlib.suppress(Exception):  # the score on the board, as the result line says it
            scores = live.ruleset.scores(live.state)
        said = name_decider(
            result_sentence(Termination.AWARD, seat, names, score=scores), interaction.user.display_name
        )
        await respond(interaction, markdown(words.awarded(live.id, said)))
