"""`/dm …`: start and run matches, read rules, boards, clocks, logs and histories."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import (
    FIRST_CHOICES,
    NO_PINGS,
    ROOM_CHOICES,
    find_match,
    may_read_room,
    parse_pairs,
    pinging,
    require_host,
    respond,
    same_guild,
)
from bot.adapters.discord._trust import refuse_own_match
from bot.adapters.discord.commands._config import RESETTABLE, guild_config
from bot.adapters.discord.commands._help import command_card
from bot.adapters.discord.commands._pages import page_file, page_link
from bot.adapters.discord.commands._practice import check_level as check_practice_level
from bot.adapters.discord.commands._practice import levels as practice_levels
from bot.adapters.discord.commands._practice import opponent as practice_opponent
from bot.adapters.discord.errors import report_error
from bot.adapters.discord.overview import board_reply, history_lines, may_read_record, status_reply
from bot.adapters.discord.room import ask_privately
from bot.adapters.practice import PracticeBot
from bot.host.clocks import TimeControl, seat_odds
from bot.host.events import Refusal
from bot.host.rules import RulesError
from bot.host.rules import parse as check_rules
from bot.host.service import HostError, Live, MatchService, PlayerRef
from bot.ratings import RatedChoiceError, split_rated
from bot.ratings.service import ADVANTAGE_MODES
from bot.records.analysis_store import load_analysis
from bot.records.matchlog import build_log, format_log
from bot.records.review import build_review
from bot.wording import (
    display,
    error_sentence,
    options_text,
    refusal_text,
    result_sentence,
    rule_keywords_line,
    seat_name,
    state_words,
)
from bot.wording import series as series_words
from bot.wording.decisions import name_decider
from games import registry
from games.base import AnyRuleset, OptionsError, Termination
from games.opponents import uses_solver
from games.resources import moves_card, rule_card

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost
    from bot.series import SeriesService

log = logging.getLogger(__name__)

MatchId = app_commands.Range[int, 1]
MAX_EMBED = 4000


MAX_FILES = 10
WARNING_SECONDS = 60.0
"""How long the double-booking warning's "Start anyway" button works."""
HISTORY_SCAN = 100
HISTORY_SHOWN = 15
DEFAULT_UPLOAD_LIMIT = 10 * 1024 * 1024


def upload_limit(interaction: discord.Interaction[Any]) -> int:
    """The most a message may carry here: the guild's upload limit (and the interaction's, if smaller)."""
    limits = [interaction.guild.filesize_limit] if interaction.guild is not None else [DEFAULT_UPLOAD_LIMIT]
    own = getattr(interaction, "attachment_size_limit", None)
    if isinstance(own, int) and own > 0:
        limits.append(own)
    return min(limits)


def _title(game: str) -> str:
    return registry.TITLES.get(game, game)


def _aliases(member: discord.Member) -> list[str]:
    """What may name a member in a clock's time odds: display name, user name, global name, id."""
    return [member.display_name, member.name, member.global_name or "", str(member.id)]


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
            await respond(interaction, series_words.not_your_warning())
            return
        if self.used:
            await respond(interaction, series_words.warning_lapsed())
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


class MatchCommands(commands.GroupCog, group_name="dm", group_description="Death Match host: matches and games"):
    """Every `/dm` subcommand. Each hands a request to the host service and answers briefly."""

    host_group = app_commands.Group(name="host", description="Run a match: pause, resume, abort, time, award (hosts)")

    def __init__(self, bot: DMHost) -> None:
        parts(bot).commands = self
        self.bot = bot
        self._practice: PracticeBot | None = None
        super().__init__()

    async def cog_unload(self) -> None:
        """The practice opponent stops thinking."""
        if parts(self.bot).commands is self:
            parts(self.bot).commands = None
        if self._practice is not None:
            await self._practice.close()

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Resumed practice matches get their opponent back."""
        await self.resume_practice()

    @property
    def service(self) -> MatchService:
        """The host service."""
        return self.bot.service

    def _match(self, interaction: discord.Interaction[Any], match_id: int | None) -> Live:
        live = find_match(
            self.service, interaction.channel_id, match_id, str(interaction.user.id), interaction.guild_id
        )
        interaction.extras["match_id"] = live.id
        return live

    def _readable(self, interaction: discord.Interaction[Any], match: int | None) -> Live:
        """A match the user may look at (players, hosts, and whoever can read its room)."""
        live = self._match(interaction, match)
        if not may_read_room(interaction, live.channel_id, [p.id for p in live.players.values()]):
            raise HostError(Refusal("unseen_match", data={"match": live.id}))
        return live

    # -- autocomplete ---------------------------------------------------------------
    async def game_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """Games whose id or title contains what was typed."""
        typed = current.strip().lower()
        return [
            app_commands.Choice(name=f"{_title(g)} ({g})", value=g)
            for g in registry.ids()
            if typed in g or typed in _title(g).lower()
        ][:25]

    # -- starting ---------------------------------------------------------------------
    @app_commands.command(name="start", description="Start a match between two players (hosts only)")
    @app_commands.describe(
        game="which game",
        player1="the first player",
        player2="the second player",
        first="who moves first, or who gets the advantage of choosing",
        options="game options as key=value pairs, e.g. `rows=2 cols=2`",
        clock="clock in seconds, e.g. `move=90 reserve=600`; time odds: `bob:reserve=120` or `p2:reserve=120`",
        room="a public thread everyone can watch (default), a private thread, or this channel",
        rules="house rules, e.g. `draw=on clock=grace` (see /dm rules)",
        rated="false: a casual match, left out of the ratings (default: rated)",
        series="best of N games (3, 5, 7 or 9), first move alternating; default: one game",
    )
    @app_commands.autocomplete(game=game_autocomplete)
    @app_commands.choices(
        first=FIRST_CHOICES,
        room=ROOM_CHOICES,
    )
    @app_commands.guild_only()
    async def start(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        player1: discord.Member,
        player2: discord.Member,
        first: str = "1",
        options: str = "",
        clock: str = "",
        room: str | None = None,
        rules: str = "",
        rated: bool = True,
        series: app_commands.Range[int, 1, 9] = 1,
    ) -> None:
        """Check everything first (refusals are private and leave nothing behind); warn the host when a
        player is already in a live match here (a second click starts it), then open the room and start."""
        require_host(interaction)
        ruleset, opts, clk = self._check_start(game, player1, player2, options, clock, interaction.guild_id)
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
            if self._series() is None:
                raise HostError(series_words.series_refusal("unavailable"))
        plan = StartPlan(
            ruleset, opts, clk, house_rules, rated, self._room_mode(interaction, room), first, player1, player2, series
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
            await interaction.response.send_message(text, view=view, ephemeral=True, allowed_mentions=NO_PINGS)
            return
        await self._launch(interaction, plan)

    def _series(self) -> SeriesService | None:
        """The series service, when the series feature is loaded."""
        feature = parts(self.bot).series
        return feature.series if feature is not None else None

    async def _launch(self, interaction: discord.Interaction[Any], plan: StartPlan) -> None:
        """Open the room and start the match (or the series' first game) a checked `/dm start` asked for."""
        player1, player2, ruleset, host = plan.player1, plan.player2, plan.ruleset, interaction.user
        await interaction.response.defer(thinking=True)
        try:
            channel, thread = await self._open_room(interaction, plan.mode, ruleset.title, player1, player2, host)
        except HostError as exc:
            await self._refuse_after_defer(interaction, error_sentence(exc))
            return
        first = plan.first
        kwargs: dict[str, Any] = {"first": 1}
        if first in ("a1", "a2"):
            kwargs = {"advantage": int(first[1])}
        elif first == "2":
            kwargs = {"first": 2}
        elif first in ADVANTAGE_MODES and getattr(self.bot, "ratings", None) is not None:
            players = [str(player1.id), str(player2.id)]
            seat = await self.bot.ratings.advantage_seat(interaction.guild_id, ruleset.id, players, first)
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
        series = self._series() if plan.series > 1 else None
        try:
            if series is not None:
                _, match_id = await series.create(ruleset.id, refs, plan.series, first=kwargs["first"], **common)
            else:
                match_id = await self.service.create_match(ruleset.id, refs, **common, **kwargs)
        except HostError as exc:
            if thread is not None:
                with contextlib.suppress(discord.HTTPException):
                    await thread.delete()
            await self._refuse_after_defer(interaction, error_sentence(exc))
            return
        interaction.extras["match_id"] = match_id
        where = f" in {thread.mention}" if thread is not None else ""
        what = f"{ruleset.title}, game 1 of a best of {plan.series}" if series is not None else ruleset.title
        await interaction.followup.send(
            f"Match {match_id} ({what}): {player1.mention} vs {player2.mention} has started{where}.",
            allowed_mentions=pinging(player1.id, player2.id),
        )

    def _guild_settings(self, guild_id: int | None) -> Any:
        """This server's settings from `/dm config` (None when the build has no per-server settings)."""
        store = getattr(self.bot, "guild_settings", None)
        return store.cached(guild_id) if store is not None and guild_id is not None else None

    def _room_mode(self, interaction: discord.Interaction[Any], room: str | None) -> str:
        """The room asked for, else this server's default (`/dm config`), else a public thread."""
        if room is None:
            configured = self._guild_settings(interaction.guild_id)
            room = getattr(configured, "room_mode", None) or "public"
        return "private" if room == "thread" else room

    def _check_start(
        self,
        game: str,
        player1: discord.Member,
        player2: discord.Member | None,
        options: str,
        clock: str,
        guild_id: int | None = None,
    ) -> tuple[AnyRuleset, dict[str, str], dict[str, str]]:
        """Everything `/dm start` (or `/dm practice`, without a second member) can refuse before it opens a room."""
        if player1.bot or (player2 is not None and player2.bot):
            raise HostError(Refusal("bots_cannot_play"))
        if player2 is not None and player1.id == player2.id:
            raise HostError(Refusal("two_different_players"))
        opts = parse_pairs(options, "options")
        clk = parse_pairs(clock, "clock")
        try:
            ruleset = registry.get(game)
        except registry.UnknownGameError:
            raise HostError(
                Refusal("unknown_game", data={"game": game, "known": ", ".join(registry.GAME_MODULES)})
            ) from None
        try:
            parsed = ruleset.parse_options(opts)
        except OptionsError as exc:
            raise HostError(f"Options: {options_text(exc.problems, exc.valid)}") from None
        configured = self._guild_settings(guild_id)
        if configured is not None and hasattr(configured, "clock_for"):
            clk = {**configured.clock_for(ruleset.id), **clk}  # this server's default clock for the game
        try:
            clk = seat_odds(clk, [_aliases(m) for m in (player1, player2) if m is not None])
            TimeControl.from_spec(ruleset.default_clock(parsed), clk)
        except ValueError as exc:
            raise HostError(f"Clock: {exc}") from None
        return ruleset, opts, clk

    async def _refuse_after_defer(self, interaction: discord.Interaction[Any], text: str) -> None:
        """A refusal after the public "thinking…" answer: remove that answer, tell the host privately."""
        with contextlib.suppress(discord.HTTPException):
            await interaction.delete_original_response()
        await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_PINGS)

    def _room_parent(self, interaction: discord.Interaction[Any]) -> Any:
        """Where a public room opens: the guild's game-room channel when one is configured, else here."""
        configured = getattr(self._guild_settings(interaction.guild_id), "room_channel_id", None)
        if configured is not None and interaction.guild is not None:
            channel = interaction.guild.get_channel(int(configured))
            if isinstance(channel, discord.TextChannel):
                return channel
        return interaction.channel

    async def _open_room(
        self,
        interaction: discord.Interaction[Any],
        mode: str,
        title: str,
        player1: discord.Member,
        player2: discord.Member | None,
        host: discord.abc.User,
        *,
        opponent_name: str | None = None,
    ) -> tuple[Any, discord.Thread | None]:
        """The room of a new match: a public or private thread (players and host added), or this channel."""
        here: Any = interaction.channel
        if mode == "channel":
            return here, None
        parent = self._room_parent(interaction) if mode == "public" else here
        if not isinstance(parent, discord.TextChannel):
            raise HostError(Refusal("thread_from_text"))
        kind = discord.ChannelType.public_thread if mode == "public" else discord.ChannelType.private_thread
        try:
            thread = await parent.create_thread(
                name=f"{title}: {player1.display_name} vs {player2.display_name if player2 else opponent_name}"[:100],
                type=kind,
                auto_archive_duration=10080,
                invitable=mode != "private",  # only moderators invite to a private room
            )
        except discord.Forbidden:
            raise HostError(
                f"I may not open a {mode} thread in {parent.mention}: I need the Create "
                f"{'Public' if mode == 'public' else 'Private'} Threads permission there."
            ) from None
        for member in dict.fromkeys([player1.id, *([player2.id] if player2 else []), host.id]):
            try:
                await thread.add_user(discord.Object(member))
            except discord.HTTPException:
                log.warning("could not add %s to thread %s", member, thread.id)
        return thread, thread

    # -- guild settings ---------------------------------------------------------------
    @app_commands.command(name="config", description="Show this server's host settings, or change them (hosts)")
    @app_commands.describe(
        host_role="the role whose members may host (start, pause, award…)",
        room_channel="the channel under which match rooms open",
        room_mode="where /dm start opens a room by default",
        game="the game whose default clock to set or reset",
        clock="that game's default clock, e.g. `move=90 reserve=600`",
        reset="put one setting back to the built-in default",
        results_channel="the channel where finished matches' results are posted",
        timezone="scheduled DMs: the zone of times written without one, e.g. `Europe/Berlin`",
        reminders="scheduled DMs: reminders before the start, e.g. `24h 1h 10m`, or `off`",
        checkin="scheduled DMs: minutes before the start when check-in opens",
        no_show="scheduled DMs: minutes after the start before an absent player loses",
        vacation_days="correspondence: each player's vacation days a year (default 14)",
    )
    @app_commands.autocomplete(game=game_autocomplete)
    @app_commands.choices(
        room_mode=[
            app_commands.Choice(name="a public thread (everyone can watch)", value="public"),
            app_commands.Choice(name="a private thread", value="private"),
            app_commands.Choice(name="the channel itself", value="channel"),
        ],
        reset=[app_commands.Choice(name=name.replace("_", " "), value=name) for name in RESETTABLE],
    )
    @app_commands.guild_only()
    async def config(
        self,
        interaction: discord.Interaction[Any],
        host_role: discord.Role | None = None,
        room_channel: discord.TextChannel | None = None,
        room_mode: str | None = None,
        game: str | None = None,
        clock: str | None = None,
        reset: str | None = None,
        results_channel: discord.TextChannel | None = None,
        timezone: str | None = None,
        reminders: str | None = None,
        checkin: app_commands.Range[int, 1, 1440] | None = None,
        no_show: app_commands.Range[int, 1, 1440] | None = None,
        vacation_days: app_commands.Range[int, 0, 365] | None = None,
    ) -> None:
        """No options: show the settings; options: change them (hosts only)."""
        if vacation_days is not None:
            correspondence = parts(self.bot).correspondence
            if correspondence is not None:
                await correspondence.config(interaction, vacation_days)
            others = (host_role, room_channel, room_mode, game, clock, reset, results_channel)
            if all(v is None for v in (*others, timezone, reminders, checkin, no_show)):
                return
        if any(v is not None for v in (timezone, reminders, checkin, no_show)):
            from bot.adapters.discord.schedule._config import schedule_config

            await schedule_config(interaction, timezone=timezone, reminders=reminders, checkin=checkin, no_show=no_show)
            if all(v is None for v in (host_role, room_channel, room_mode, game, clock, reset, results_channel)):
                return
        correspondence = parts(self.bot).correspondence
        more = None
        if correspondence is not None and interaction.guild_id is not None:
            more = await correspondence.shown(interaction.guild_id)
        await guild_config(
            interaction,
            more=more,
            host_role=host_role,
            room_channel=room_channel,
            room_mode=room_mode,
            game=game,
            clock=clock,
            reset=reset,
            results_channel=results_channel,
        )

    # -- reading ----------------------------------------------------------------------
    @app_commands.command(name="help", description="Every /dm command, grouped by what it is for")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        """The command card, read from the tree as it is loaded (groups joined by other cogs included)."""
        root = self.bot.tree.get_command("dm")
        if not isinstance(root, app_commands.Group):  # pragma: no cover - the cog is the /dm group
            return
        await respond(interaction, command_card(root))

    @app_commands.command(name="rules", description="How to write a game's moves, with its full rule card attached")
    @app_commands.describe(game="which game")
    @app_commands.autocomplete(game=game_autocomplete)
    async def rules(self, interaction: discord.Interaction[Any], game: str) -> None:
        """The short "how to write moves" card in an embed, and the full rule card as `<game>-rules.md`."""
        key = game.strip().lower()
        if key not in registry.GAME_MODULES:
            raise HostError(Refusal("unknown_game", data={"game": game, "known": ", ".join(registry.GAME_MODULES)}))
        text = rule_card(key)
        if text is None:
            raise HostError(Refusal("no_rule_card", data={"title": _title(key)}))
        card = moves_card(key) or text
        if (said := rule_keywords_line(key)) is not None:
            card = f"{card}\n{said}"
        if len(card) > MAX_EMBED:
            card = card[: MAX_EMBED - 40] + "\n… (the full card is attached)"
        embed = discord.Embed(title=f"Rules: {_title(key)}", description=card)
        embed.set_footer(text=f"The full rule card is attached: {key}-rules.md")
        file = discord.File(io.BytesIO(text.encode()), filename=f"{key}-rules.md")
        await respond(interaction, embed=embed, file=file)

    @app_commands.command(name="board", description="Show a match's board, turn and clocks")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def board(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """The board picture with whose turn it is (only for you); the text board for a game without one."""
        live = self._readable(interaction, match)
        content, files = board_reply(self.bot, live)
        await respond(interaction, content, files=files)

    @app_commands.command(name="status", description="Show a match's players, turn, clocks and deadline")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def status(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Game, players, move number, whose turn, both clocks with the deadline, and the room."""
        live = self._readable(interaction, match)
        await respond(interaction, status_reply(self.bot, live))

    # -- players and hosts: one step each ---------------------------------------------
    async def _one_step(
        self,
        interaction: discord.Interaction[Any],
        match: int | None,
        step: Callable[[int, str], Awaitable[object]],
        reply: str,
        *,
        host: bool = False,
    ) -> None:
        """The body every one-step command shares: (hosts only), find the match, hand the step to the
        service with the user's id, answer privately (`reply` may name `{match}`)."""
        if host:
            require_host(interaction)
        live = self._match(interaction, match)
        await step(live.id, str(interaction.user.id))
        await respond(interaction, reply.format(match=live.id))

    def _action(self, action: str) -> Callable[[int, str], Awaitable[object]]:
        """A player's action of the match's rules, as a step."""

        async def step(match_id: int, user: str) -> object:
            return await self.service.act(match_id, user, action)

        return step

    @app_commands.command(name="resign", description="Resign your match")
    @app_commands.describe(match="match id (default: your match in this channel)")
    async def resign(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Give up, once confirmed (Confirm / Cancel, seen only by the player, lapsing after 30 s)."""
        live = self._match(interaction, match)
        grave = self.service.grave(live.id, str(interaction.user.id), "resign")
        if grave is None:  # not a player, or the match is over: the service says why
            await self._one_step(interaction, live.id, self._action("resign"), "You resigned match {match}.")
            return
        await ask_privately(self.bot, interaction, grave)

    @app_commands.command(name="mulligan", description="Use your mulligan (Trax)")
    @app_commands.describe(match="match id (default: your match in this channel)")
    async def mulligan(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Rewind your last turn and the opponent's."""
        await self._one_step(interaction, match, self._action("mulligan"), "Mulligan used in match {match}.")

    @app_commands.command(name="ready", description="Say you are ready to move from grace (Trax)")
    @app_commands.describe(match="match id (default: your match in this channel)")
    async def ready(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Ask the opponent to confirm they are here."""
        reply = "Your opponent has been asked to confirm they are here."
        await self._one_step(interaction, match, self._action("ready"), reply)

    @host_group.command(name="pause", description="Pause a match's clocks (hosts only)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def pause(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Stop both clocks."""
        await self._one_step(interaction, match, self.service.pause, "Match {match} is paused.", host=True)

    @host_group.command(name="resume", description="Resume a paused match (hosts only)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def resume(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Start the clocks again."""
        await self._one_step(interaction, match, self.service.resume, "Match {match} continues.", host=True)

    @host_group.command(name="abort", description="End a match without a result (hosts only)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def abort(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """No winner, no loser."""
        await self._one_step(interaction, match, self.service.abort, "Match {match} is aborted.", host=True)

    @host_group.command(name="time", description="Give or take time from a player (hosts only)")
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
        live = self._match(interaction, match)
        seat = live.seat_of(str(player.id))
        if seat is None:
            raise HostError(Refusal("not_in_match", data={"player": display(player.display_name), "match": live.id}))
        await self.service.adjust_time(live.id, seat, float(seconds), str(interaction.user.id))
        await respond(interaction, f"{player.display_name}: {seconds:+d} s in match {live.id}.")

    @host_group.command(name="award", description="Declare a match's result (hosts only)")
    @app_commands.describe(winner="the winner (leave empty for a draw)", match="match id (default: this channel)")
    async def award(
        self, interaction: discord.Interaction[Any], winner: discord.Member | None = None, match: MatchId | None = None
    ) -> None:
        """Finish the match with the host's verdict."""
        require_host(interaction)
        live = self._match(interaction, match)
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
        await respond(interaction, f"Match {live.id}: {said}.")

    # -- records ----------------------------------------------------------------------
    @app_commands.command(name="log", description="A match's full log (anyone who can read its room)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def log(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Summary embed, the whole log as text and JSON, the animated replay, the SGF record (Dots) and
        the solver's verdicts (Boxes, Pathing), within the upload limit (frames or files dropped, with a note)."""
        match_id = match if match is not None else self._match(interaction, None).id
        interaction.extras["match_id"] = match_id
        stored = await self.service.record(match_id)
        if stored is None or not same_guild(stored.guild_id, interaction.guild_id):
            raise HostError(Refusal("no_match_in_server", data={"match": match_id}))
        if not may_read_record(interaction, stored):  # players, hosts and whoever can read the room
            require_host(interaction)
        data = build_log(stored)
        outcome = str(data["result"]["words"])
        embed = discord.Embed(title=f"Match {stored.id}: {_title(stored.game)}")
        players = data["players"]
        embed.add_field(name="Players", value=f"{players['1']['name']} vs {players['2']['name']}", inline=False)
        embed.add_field(name="Status", value=state_words(stored.status))
        embed.add_field(name="Result", value=outcome)
        embed.add_field(name="Moves", value=str(len(data["moves"])))
        embed.add_field(name="Illegal attempts", value=str(sum(e["kind"] == "illegal" for e in data["events"])))
        logs = [
            (f"match-{stored.id}.txt", format_log(data).encode()),
            (f"match-{stored.id}.json", json.dumps(data, indent=2).encode()),
        ]
        await interaction.response.defer(ephemeral=True, thinking=True)
        limit = upload_limit(interaction)
        link = page_link(getattr(getattr(self.bot, "settings", None), "web_url", None), stored.id)
        analysis = await load_analysis(self.service.store, stored.id)
        worker = getattr(self.bot, "analysis", None)
        if analysis is None and stored.status == "finished" and worker is not None:
            worker.enqueue(stored.id)  # not stored yet (a restart in between): the background worker does it
        if link is not None:
            embed.add_field(name="Review page", value=link, inline=False)
        elif (page := await page_file(stored, limit - sum(len(b) for _, b in logs), analysis)) is not None:
            logs.append(page)
        review = await asyncio.to_thread(build_review, stored, limit, sum(len(b) for _, b in logs), analysis=analysis)
        if review.notes:
            embed.add_field(name="Left out", value="\n".join(review.notes)[:1000], inline=False)
        files = [discord.File(io.BytesIO(b), filename=name) for name, b in [*logs, *review.files]][:MAX_FILES]
        await respond(interaction, embed=embed, files=files)

    @app_commands.command(name="history", description="A player's recent matches")
    @app_commands.describe(player="whose matches (default: yours)", practice="include practice matches")
    async def history(
        self, interaction: discord.Interaction[Any], player: discord.Member | None = None, practice: bool = False
    ) -> None:
        """The last matches in this server, newest first (practice matches only when asked for)."""
        who = player or interaction.user
        found = await self.service.history(str(who.id), limit=HISTORY_SCAN)
        practice_ids = self._practice_ids()
        matches = [
            m
            for m in found
            if (interaction.guild_id is None or m.guild_id in (None, interaction.guild_id))
            and (practice or not any(pid in practice_ids for pid, _ in m.players.values()))
        ][:HISTORY_SHOWN]
        if not matches:
            await respond(interaction, f"{who.display_name} has no matches here yet.")
            return
        lines = history_lines(matches, self.service)
        embed = discord.Embed(title=f"Matches of {who.display_name}", description="\n".join(lines)[:MAX_EMBED])
        await respond(interaction, embed=embed, allowed_mentions=NO_PINGS)

    # -- practice ---------------------------------------------------------------------
    def _practice_ids(self) -> set[str]:
        """The player ids of the practice opponent (this bot, and the terminal room's)."""
        ids = {"local:dmhost-bot"}
        if self.bot.user is not None:
            ids.add(str(self.bot.user.id))
        return ids

    def practice_bot(self) -> PracticeBot:
        """The practice opponent, playing as this bot's own user (created on first use)."""
        if self._practice is None:
            assert self.bot.user is not None
            self._practice = practice_opponent(self.service, str(self.bot.user.id))
        return self._practice

    async def resume_practice(self) -> None:
        """After a restart, the practice opponent takes its seats again (its level is in its name)."""
        if self.bot.user is None:
            return
        me = str(self.bot.user.id)
        for live in list(self.service.live.values()):
            seat = live.seat_of(me)
            if seat is None:
                continue
            level = live.players[seat].name.rpartition("(")[2].rstrip(")").strip()
            try:
                self.practice_bot().watch(live.id, level)
            except Exception:
                log.exception("match %s: the practice opponent could not take its seat again", live.id)

    async def level_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """The levels of the chosen game."""
        game = str(getattr(interaction.namespace, "game", "") or "").strip().lower()
        known = practice_levels(game) or practice_levels("boxes")
        return [app_commands.Choice(name=lv, value=lv) for lv in known if current.strip().lower() in lv][:25]

    @app_commands.command(name="practice", description="Play the practice opponent in a room of your own")
    @app_commands.describe(
        game="which game",
        level="how strongly the opponent plays (random, easy, medium, hard; perfect for Dots-and-Boxes)",
        options="game options as key=value pairs, e.g. `rows=2 cols=2`",
        first="who moves first",
        room="a public thread everyone can watch (default), a private thread, or this channel",
    )
    @app_commands.autocomplete(game=game_autocomplete, level=level_autocomplete)
    @app_commands.choices(
        first=[
            app_commands.Choice(name="I move first", value="1"),
            app_commands.Choice(name="the practice opponent moves first", value="2"),
        ],
        room=[
            app_commands.Choice(name="a public thread everyone can watch", value="public"),
            app_commands.Choice(name="a private thread", value="private"),
            app_commands.Choice(name="this channel", value="channel"),
        ],
    )
    @app_commands.guild_only()
    async def practice(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        level: str = "medium",
        options: str = "",
        first: str = "1",
        room: str | None = None,
    ) -> None:
        """A match against the practice opponent, recorded like any other but kept out of `/dm history`."""
        member = interaction.user
        if not isinstance(member, discord.Member) or self.bot.user is None:
            raise HostError(Refusal("practice_in_server"))
        ruleset, opts, clk = self._check_start(game, member, None, options, "", interaction.guild_id)
        try:
            level = check_practice_level(ruleset.id, level)
        except ValueError as exc:
            raise HostError(str(exc).capitalize() + ".") from None
        me = self.bot.user
        opponent = PlayerRef(str(me.id), f"{me.display_name} ({level})")
        await interaction.response.defer(thinking=True)
        try:
            channel, thread = await self._open_room(
                interaction,
                self._room_mode(interaction, room),
                ruleset.title,
                member,
                None,
                member,
                opponent_name=opponent.name,
            )
        except HostError as exc:
            await self._refuse_after_defer(interaction, error_sentence(exc))
            return
        players = [PlayerRef(str(member.id), member.display_name), opponent]
        loading = getattr(self.bot, "solver_loading", None)
        if uses_solver(ruleset.id, level) and isinstance(loading, asyncio.Task) and not loading.done():
            # the solver's one-time build (first start on a machine) is never charged to the opponent's clock
            with contextlib.suppress(Exception):
                await asyncio.shield(loading)
        try:
            match_id = await self.service.create_match(
                ruleset.id,
                players,
                options=opts,
                clock=clk,
                first=1 if first != "2" else 2,
                guild_id=interaction.guild_id,
                channel_id=channel.id,
                by=str(member.id),
                rated=False,
                practice=True,
                machine=opponent.id,
            )
        except HostError as exc:
            if thread is not None:
                with contextlib.suppress(discord.HTTPException):
                    await thread.delete()
            await self._refuse_after_defer(interaction, error_sentence(exc))
            return
        interaction.extras["match_id"] = match_id
        self.practice_bot().watch(match_id, level)
        where = f" in {thread.mention}" if thread is not None else ""
        await interaction.followup.send(
            f"Practice match {match_id} ({ruleset.title}): {member.mention} vs the practice opponent ({level}) "
            f"has started{where}.",
            allowed_mentions=pinging(member.id),
        )
