"""`/dm start`: a match (or a series) between two players, checked before anything is opened, with a warning
the host confirms when a player is already in a live match here."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.adapters.discord._shared import NO_PINGS, parse_pairs, pinging, require_host, respond
from bot.adapters.discord.commands._common import series_of
from bot.adapters.discord.commands._rooms import Rooms, refuse_after_defer
from bot.adapters.discord.errors import report_error
from bot.adapters.discord.render import markdown
from bot.host.rules import RulesError
from bot.host.rules import parse as check_rules
from bot.host.service import HostError, MatchService, PlayerRef
from bot.ratings import RatedChoiceError, split_rated
from bot.ratings.service import ADVANTAGE_MODES
from bot.text import verbatim
from bot.wording import commands as words
from bot.wording import error_sentence, refusal_text
from bot.wording import series as series_words
from games.base import AnyRuleset

if TYPE_CHECKING:
    from bot.adapters.discord._parts import Parts
    from bot.ratings.service import Ratings

WARNING_SECONDS = 60.0
"""How long the double-booking warning's "Start anyway" button works."""


@dataclass(frozen=True)
class StartPlan:
    """A checked `/dm start`, ready to launch (at once, or after the host's second click)."""

    ruleset: AnyRuleset
    options: dict[str, str]
    clock: dict[str, str]
    rules: dict[str, str]
    rated: bool
    mode: str
    first: str
    player1: discord.Member
    player2: discord.Member
    series: int


class StartAnyway(discord.ui.View):
    """The button under the double-booking warning: only the host who asked, within a minute."""

    def __init__(
        self,
        origin: discord.Interaction[Any],
        launch: Callable[[discord.Interaction[Any]], Awaitable[None]],
    ) -> None:
        super().__init__(timeout=WARNING_SECONDS)
        self.origin = origin
        self.launch = launch
        self.used = False
        button = discord.ui.Button[StartAnyway](label=series_words.start_anyway(), style=discord.ButtonStyle.danger)
        button.callback = self.clicked  # type: ignore[method-assign]
        self.add_item(button)

    async def clicked(self, interaction: discord.Interaction[Any]) -> None:
        """The host confirms: the match starts (once)."""
        if interaction.user.id != self.origin.user.id:
            await respond(interaction, markdown(series_words.not_your_warning()))
            return
        if self.used:
            await respond(interaction, markdown(series_words.warning_lapsed()))
            return
        self.used = True
        self.stop()
        with contextlib.suppress(discord.HTTPException):
            await self.origin.edit_original_response(view=None)
        try:
            await self.launch(interaction)
        except Exception as exc:
            await report_error(interaction, exc)

    async def on_timeout(self) -> None:
        """The warning lapses: its button goes."""
        if not self.used:
            with contextlib.suppress(discord.HTTPException):
                await self.origin.edit_original_response(content=series_words.warning_lapsed(), view=None)


class Starting:
    """`/dm start`: checks, the double-booking warning, then the room and the match (or series)."""

    def __init__(self, service: MatchService, rooms: Rooms, features: Parts, ratings: Ratings | None) -> None:
        self.service = service
        self.rooms = rooms
        self.features = features
        self.ratings = ratings

    async def start(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        player1: discord.Member,
        player2: discord.Member,
        *,
        first: str,
        options: str,
        clock: str,
        room: str | None,
        rules: str,
        rated: bool,
        series: int,
    ) -> None:
        """Check everything first (refusals are private and leave nothing behind); warn the host when a
        player is already in a live match here (a second click starts it), then open the room and start."""
        require_host(interaction)
        ruleset, opts, clk = self.rooms.check_start(game, player1, player2, options, clock, interaction.guild_id)
        try:
            rated_rule, house_rules = split_rated(parse_pairs(rules, "rules"))
        except RatedChoiceError as exc:
            raise HostError(f"Rules: {exc}") from None
        rated = rated and rated_rule
        try:
            check_rules(ruleset.id, house_rules)
        except RulesError as exc:
            raise HostError(f"Rules: {refusal_text(exc.refusal)}") from None
        if series % 2 == 0:
            raise HostError(series_words.series_refusal("even"))
        if series > 1:
            if first not in ("1", "2"):
                raise HostError(series_words.series_refusal("advantage"))
            if series_of(self.features) is None:
                raise HostError(series_words.series_refusal("unavailable"))
        plan = StartPlan(
            ruleset, opts, clk, house_rules, rated, self.rooms.mode(interaction, room), first, player1, player2, series
        )
        busy = [
            (member, live.id)
            for live in self.service.live_in_guild(interaction.guild_id)
            for member in (player1, player2)
            if live.seat_of(str(member.id)) is not None
        ]
        if busy:
            names = list(dict.fromkeys(m.display_name for m, _ in busy))
            text = series_words.double_booked(names, sorted({mid for _, mid in busy}))
            view = StartAnyway(interaction, lambda click: self._launch(click, plan))
            await interaction.response.send_message(
                markdown(text), view=view, ephemeral=True, allowed_mentions=NO_PINGS
            )
            return
        await self._launch(interaction, plan)

    async def _launch(self, interaction: discord.Interaction[Any], plan: StartPlan) -> None:
        """Open the room and start the match (or the series' first game) a checked `/dm start` asked for."""
        player1, player2, ruleset, host = plan.player1, plan.player2, plan.ruleset, interaction.user
        await interaction.response.defer(thinking=True)
        try:
            channel, thread = await self.rooms.open(interaction, plan.mode, ruleset.title, player1, player2, host)
        except HostError as exc:
            await refuse_after_defer(interaction, error_sentence(exc))
            return
        first = plan.first
        kwargs: dict[str, Any] = {"first": 1}
        if first in ("a1", "a2"):
            kwargs = {"advantage": int(first[1])}
        elif first == "2":
            kwargs = {"first": 2}
        elif first in ADVANTAGE_MODES and self.ratings is not None:
            players = [str(player1.id), str(player2.id)]
            seat = await self.ratings.advantage_seat(interaction.guild_id, ruleset.id, players, first)
            kwargs = {"advantage": seat}
        refs = [PlayerRef(str(m.id), m.display_name) for m in (player1, player2)]
        common: dict[str, Any] = {
            "options": plan.options,
            "clock": plan.clock,
            "rules": plan.rules,
            "guild_id": interaction.guild_id,
            "channel_id": channel.id,
            "by": str(host.id),
            "rated": plan.rated,
        }
        series = series_of(self.features) if plan.series > 1 else None
        try:
            if series is not None:
                _, match_id = await series.create(ruleset.id, refs, plan.series, first=kwargs["first"], **common)
            else:
                match_id = await self.service.create_match(ruleset.id, refs, **common, **kwargs)
        except HostError as exc:
            if thread is not None:
                with contextlib.suppress(discord.HTTPException):
                    await thread.delete()
            await refuse_after_defer(interaction, error_sentence(exc))
            return
        interaction.extras["match_id"] = match_id
        room = thread.mention if thread is not None else None
        what = words.series_title(ruleset.title, plan.series) if series is not None else ruleset.title
        await interaction.followup.send(
            markdown(words.started(match_id, what, verbatim(player1.mention), verbatim(player2.mention), room)),
            allowed_mentions=pinging(player1.id, player2.id),
        )
