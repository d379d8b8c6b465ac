"""`/dm …`: start and run matches, read rules, boards, clocks, logs and histories."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord._shared import NO_PINGS, find_match, parse_pairs, pinging, require_host, respond
from bot.matchlog import build_log, format_log
from bot.rules import RulesError
from bot.rules import parse as check_rules
from bot.service import HostError, Live, PlayerRef
from games import registry
from games.base import OptionsError

if TYPE_CHECKING:
    from bot.app import DMHost

MatchId = app_commands.Range[int, 1]
MAX_EMBED = 4000


def rules_dir() -> Path | None:
    """Where the rule cards live: the source tree's `seeds/rules`, else `./seeds/rules` (the Docker image)."""
    for base in (Path(__file__).resolve().parents[3], Path.cwd()):
        candidate = base / "seeds" / "rules"
        if candidate.is_dir():
            return candidate
    return None


def _title(game: str) -> str:
    return registry.TITLES.get(game, game)


class MatchCommands(commands.GroupCog, group_name="dm", group_description="Death Match host: matches and games"):
    """Every `/dm` subcommand. Each hands a request to the host service and answers briefly."""

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot
        super().__init__()

    @property
    def service(self) -> Any:
        """The host service."""
        return self.bot.service

    def _match(self, interaction: discord.Interaction[Any], match_id: int | None) -> Live:
        live = find_match(self.service, interaction.channel_id, match_id, str(interaction.user.id))
        interaction.extras["match_id"] = live.id
        return live

    # -- autocomplete ---------------------------------------------------------------
    async def game_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """Implemented games whose id or title contains what was typed."""
        typed = current.strip().lower()
        return [
            app_commands.Choice(name=f"{_title(g)} ({g})", value=g)
            for g in registry.implemented()
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
        clock="clock overrides in seconds, e.g. `move=90 reserve=600`",
        rules="house rules, e.g. `mulligan=1 takeback=5 clock=grace` (see /dm rules)",
        room="play in a new private thread (default) or in this channel",
    )
    @app_commands.autocomplete(game=game_autocomplete)
    @app_commands.choices(
        first=[
            app_commands.Choice(name="player 1 moves first", value="1"),
            app_commands.Choice(name="player 2 moves first", value="2"),
            app_commands.Choice(name="player 1 has the advantage (chooses)", value="a1"),
            app_commands.Choice(name="player 2 has the advantage (chooses)", value="a2"),
        ],
        room=[
            app_commands.Choice(name="a private thread", value="thread"),
            app_commands.Choice(name="this channel", value="channel"),
        ],
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
        room: str = "thread",
        rules: str = "",
    ) -> None:
        """Create the match (and its private thread), then announce it there."""
        require_host(interaction)
        if player1.bot or player2.bot:
            raise HostError("Bots cannot play.")
        if player1.id == player2.id:
            raise HostError("A match needs two different players.")
        opts = parse_pairs(options, "options")
        clk = parse_pairs(clock, "clock")
        house_rules = parse_pairs(rules, "rules")
        try:
            ruleset = registry.get(game)
        except (registry.UnknownGameError, registry.GameNotImplementedError) as exc:
            raise HostError(str(exc.args[0])) from None
        try:
            ruleset.parse_options(opts)
        except OptionsError as exc:
            raise HostError(f"Options: {exc}") from None
        try:
            check_rules(ruleset.id, house_rules)
        except RulesError as exc:
            raise HostError(f"Rules: {exc}") from None
        await interaction.response.defer(thinking=True)
        channel: Any = interaction.channel
        thread: discord.Thread | None = None
        if room == "thread":
            if not isinstance(channel, discord.TextChannel):
                raise HostError("A private thread can only be opened from a text channel; use room: this channel.")
            thread = await channel.create_thread(
                name=f"{ruleset.title}: {player1.display_name} vs {player2.display_name}"[:100],
                type=discord.ChannelType.private_thread,
                invitable=False,
            )
            for member in (player1, player2):
                await thread.add_user(member)
            channel = thread
        kwargs: dict[str, Any] = {"first": 1}
        if first in ("a1", "a2"):
            kwargs = {"advantage": int(first[1])}
        elif first == "2":
            kwargs = {"first": 2}
        try:
            match_id = await self.service.create_match(
                ruleset.id,
                [PlayerRef(str(m.id), m.display_name) for m in (player1, player2)],
                options=opts,
                clock=clk,
                rules=house_rules,
                guild_id=interaction.guild_id,
                channel_id=channel.id,
                by=str(interaction.user.id),
                **kwargs,
            )
        except HostError:
            if thread is not None:
                await thread.delete()
            raise
        interaction.extras["match_id"] = match_id
        where = f" in {thread.mention}" if thread is not None else ""
        await interaction.followup.send(
            f"Match {match_id} ({ruleset.title}): {player1.mention} vs {player2.mention} has started{where}.",
            allowed_mentions=pinging(player1.id, player2.id),
        )

    # -- reading ----------------------------------------------------------------------
    @app_commands.command(name="rules", description="Show a game's rule card")
    @app_commands.describe(game="which game")
    @app_commands.autocomplete(game=game_autocomplete)
    async def rules(self, interaction: discord.Interaction[Any], game: str) -> None:
        """The rule card, in an embed (the whole card attached when it is long)."""
        key = game.strip().lower()
        if key not in registry.GAME_MODULES:
            raise HostError(f"unknown game {game!r}; known: {', '.join(registry.GAME_MODULES)}")
        folder = rules_dir()
        path = folder / f"{key}.md" if folder else None
        if path is None or not path.is_file():
            raise HostError(f"There is no rule card for {_title(key)} yet.")
        text = path.read_text(encoding="utf-8")
        embed = discord.Embed(title=f"Rules: {_title(key)}", description=text[:MAX_EMBED])
        kwargs: dict[str, Any] = {"embed": embed}
        if len(text) > MAX_EMBED:
            embed.description = text[: MAX_EMBED - 40] + "\n… (the full card is attached)"
            kwargs["file"] = discord.File(io.BytesIO(text.encode()), filename=f"{key}-rules.md")
        await respond(interaction, **kwargs)

    @app_commands.command(name="board", description="Show a match's board, turn and clocks")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def board(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """The text board (only for you)."""
        live = self._match(interaction, match)
        await respond(interaction, f"**Match {live.id}**\n```\n{self.service.board_text(live.id)[:1900]}\n```")

    @app_commands.command(name="status", description="Show a match's clocks")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def status(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Both clocks and the match state."""
        live = self._match(interaction, match)
        await respond(interaction, f"Match {live.id} ({live.status}): {self.service.clock_text(live)}")

    # -- players ----------------------------------------------------------------------
    @app_commands.command(name="resign", description="Resign your match")
    @app_commands.describe(match="match id (default: your match in this channel)")
    async def resign(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Give up."""
        live = self._match(interaction, match)
        await self.service.resign(live.id, str(interaction.user.id))
        await respond(interaction, f"You resigned match {live.id}.")

    @app_commands.command(name="mulligan", description="Use your mulligan (Trax)")
    @app_commands.describe(match="match id (default: your match in this channel)")
    async def mulligan(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Rewind your last turn and the opponent's."""
        live = self._match(interaction, match)
        await self.service.mulligan(live.id, str(interaction.user.id))
        await respond(interaction, f"Mulligan used in match {live.id}.")

    @app_commands.command(name="ready", description="Say you are ready to move from grace (Trax)")
    @app_commands.describe(match="match id (default: your match in this channel)")
    async def ready(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Ask the opponent to confirm they are here."""
        live = self._match(interaction, match)
        await self.service.ready(live.id, str(interaction.user.id))
        await respond(interaction, "Your opponent has been asked to confirm they are here.")

    # -- hosts ------------------------------------------------------------------------
    @app_commands.command(name="pause", description="Pause a match's clocks (hosts only)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def pause(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Stop both clocks."""
        require_host(interaction)
        live = self._match(interaction, match)
        await self.service.pause(live.id, str(interaction.user.id))
        await respond(interaction, f"Match {live.id} is paused.")

    @app_commands.command(name="resume", description="Resume a paused match (hosts only)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def resume(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Start the clocks again."""
        require_host(interaction)
        live = self._match(interaction, match)
        await self.service.resume(live.id, str(interaction.user.id))
        await respond(interaction, f"Match {live.id} continues.")

    @app_commands.command(name="abort", description="End a match without a result (hosts only)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def abort(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """No winner, no loser."""
        require_host(interaction)
        live = self._match(interaction, match)
        await self.service.abort(live.id, str(interaction.user.id))
        await respond(interaction, f"Match {live.id} is aborted.")

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
        live = self._match(interaction, match)
        seat = live.seat_of(str(player.id))
        if seat is None:
            raise HostError(f"{player.display_name} does not play match {live.id}.")
        await self.service.adjust_time(live.id, seat, float(seconds), str(interaction.user.id))
        await respond(interaction, f"{player.display_name}: {seconds:+d} s in match {live.id}.")

    @app_commands.command(name="award", description="Declare a match's result (hosts only)")
    @app_commands.describe(winner="the winner (leave empty for a draw)", match="match id (default: this channel)")
    async def award(
        self, interaction: discord.Interaction[Any], winner: discord.Member | None = None, match: MatchId | None = None
    ) -> None:
        """Finish the match with the host's verdict."""
        require_host(interaction)
        live = self._match(interaction, match)
        seat = None
        if winner is not None:
            seat = live.seat_of(str(winner.id))
            if seat is None:
                raise HostError(f"{winner.display_name} does not play match {live.id}.")
        await self.service.award(live.id, seat, str(interaction.user.id))
        await respond(interaction, f"Match {live.id} awarded.")

    # -- records ----------------------------------------------------------------------
    @app_commands.command(name="log", description="A match's full log (players of the match and hosts)")
    @app_commands.describe(match="match id (default: the match in this channel)")
    async def log(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Summary embed plus the whole log as a text file (and JSON)."""
        match_id = match if match is not None else self._match(interaction, None).id
        interaction.extras["match_id"] = match_id
        stored = await self.service.store.load(match_id, with_events=True)
        if stored is None:
            raise HostError(f"There is no match {match_id}.")
        if not any(pid == str(interaction.user.id) for pid, _ in stored.players.values()):
            require_host(interaction)
        data = build_log(stored)
        result = data["result"]
        if stored.status in ("finished", "aborted"):
            outcome = f"{result['winner_name'] or 'no winner'} ({result['reason']})"
        else:
            outcome = "not finished"
        embed = discord.Embed(title=f"Match {stored.id}: {_title(stored.game)}")
        players = data["players"]
        embed.add_field(name="Players", value=f"{players['1']['name']} vs {players['2']['name']}", inline=False)
        embed.add_field(name="Status", value=stored.status)
        embed.add_field(name="Result", value=outcome)
        embed.add_field(name="Moves", value=str(len(data["moves"])))
        embed.add_field(name="Illegal attempts", value=str(sum(e["kind"] == "illegal" for e in data["events"])))
        files = [
            discord.File(io.BytesIO(format_log(data).encode()), filename=f"match-{stored.id}.txt"),
            discord.File(io.BytesIO(json.dumps(data, indent=2).encode()), filename=f"match-{stored.id}.json"),
        ]
        await respond(interaction, embed=embed, files=files)

    @app_commands.command(name="history", description="A player's recent matches")
    @app_commands.describe(player="whose matches (default: yours)")
    async def history(self, interaction: discord.Interaction[Any], player: discord.Member | None = None) -> None:
        """The last matches, newest first."""
        who = player or interaction.user
        matches = await self.service.store.history(str(who.id), limit=15)
        if not matches:
            await respond(interaction, f"{who.display_name} has no matches yet.")
            return
        lines = []
        for m in matches:
            names = " vs ".join(name for _, (_pid, name) in sorted(m.players.items()))
            if m.status == "finished":
                won = m.players.get(m.winner_seat or 0)
                result = f"{won[1]} won ({m.result_reason})" if won else f"no winner ({m.result_reason})"
            else:
                result = m.status
            lines.append(f"`#{m.id}` {_title(m.game)}: {names} — {result}")
        embed = discord.Embed(title=f"Matches of {who.display_name}", description="\n".join(lines)[:MAX_EMBED])
        await respond(interaction, embed=embed, allowed_mentions=NO_PINGS)
