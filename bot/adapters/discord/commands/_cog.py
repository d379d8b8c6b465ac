"""`/dm …`: start and run matches, read rules, boards, clocks, logs and histories.

The cog declares `/dm`'s own commands (names, options, choices, descriptions) and hands each to the object for
its kind of command, built here once with what it needs: `Starting` (`_start`) and `Practice` (`_practice`),
both on `Rooms` (`_rooms`), `Config` (`_config`), `Reading` (help, rules, board, status: `_read`), `Play`
(resign and the house rules' action commands: `_play`), `Records` (log, history: `_records`); `/dm host` is a
group of its own (`HostGroup`, `_host`). What they share, finding the match a command means, is `Matches`
(`_common`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import FIRST_CHOICES, ROOM_CHOICES
from bot.adapters.discord.commands._common import Matches, MatchId, game_autocomplete
from bot.adapters.discord.commands._config import RESETTABLE, Config
from bot.adapters.discord.commands._host import HostGroup
from bot.adapters.discord.commands._play import Play
from bot.adapters.discord.commands._practice import Practice, level_autocomplete
from bot.adapters.discord.commands._read import Reading
from bot.adapters.discord.commands._records import Records
from bot.adapters.discord.commands._rooms import Rooms
from bot.adapters.discord.commands._start import Starting

if TYPE_CHECKING:
    from typing import TypeAlias

    from bot.adapters.discord.app import DMHost
    from bot.adapters.practice import PracticeBot

    AnyCommand: TypeAlias = app_commands.Command[Any, ..., Any] | app_commands.Group

logger = logging.getLogger(__name__)

MATCH = "match id (default: the match in this channel)"
ROOM = "a public thread everyone can watch (default), a private thread, or this channel"


def _arrange(group: app_commands.Group, first: Sequence[AnyCommand], after: str, then: Sequence[AnyCommand]) -> None:
    """`first`, then the group's own commands with `then` after the one named `after`: discord.py keeps a group's
    commands in the order they are added, and `/dm help` (like the synced tree) lists them in that order."""
    own = list(group.commands)
    for command in own:
        group.remove_command(command.name)
    cut = [c.name for c in own].index(after) + 1
    for command in (*first, *own[:cut], *then, *own[cut:]):
        group.add_command(command)


class MatchCommands(commands.GroupCog, group_name="dm", group_description="Death Match host: matches and games"):
    """Every `/dm` subcommand of this feature; each hands its request to the object for its kind."""

    def __init__(self, bot: DMHost) -> None:
        features, service = parts(bot), bot.service
        features.commands = self
        self.bot = bot
        matches = Matches(service)
        rooms = Rooms(bot.guild_settings)
        self.starting = Starting(service, rooms, features, bot.ratings)
        self.configuring = Config(features)
        self.reading = Reading(matches, features, bot, bot.settings)
        self.playing = Play(service, matches, features)
        self.records = Records(service, matches, features, bot, bot.settings, lambda: bot.analysis)
        self.practising = Practice(service, rooms, bot, lambda: getattr(bot, "solver_loading", None), bus=bot.app.bus)
        super().__init__()
        dm = self.app_command
        assert dm is not None  # a GroupCog's group, made with the cog
        self.dm = dm
        """`/dm` itself (the commands of other features join it when they load)."""
        _arrange(dm, [HostGroup(service, matches)], "resign", self.playing.action_commands())
        self.__cog_app_commands__ = dm.commands  # this cog's commands, all (what `walk_app_commands` walks)

    def practice_bot(self) -> PracticeBot:
        """The practice opponent of this bot (the series feature seats it in a rematch)."""
        return self.practising.practice_bot()

    async def cog_unload(self) -> None:
        """The practice opponent stops thinking."""
        if parts(self.bot).commands is self:
            parts(self.bot).commands = None
        await self.practising.close()

    @app_commands.command(name="start", description="Start a match between two players (hosts only)")
    @app_commands.describe(
        game="which game",
        player1="the first player",
        player2="the second player",
        first="who moves first, or who gets the advantage of choosing",
        options="game options as key=value pairs, e.g. `rows=2 cols=2`",
        clock="clock in seconds, e.g. `move=90 reserve=600`; time odds: `bob:reserve=120` or `p2:reserve=120`",
        room=ROOM,
        rules="house rules, e.g. `draw=on clock=grace` (see /dm rules)",
        rated="false: a casual match, left out of the ratings (default: rated)",
        series="best of N games (3, 5, 7 or 9), first move alternating; default: one game",
    )
    @app_commands.autocomplete(game=game_autocomplete)
    @app_commands.choices(first=FIRST_CHOICES, room=ROOM_CHOICES)
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
        """A match (or a series) between two members, checked before anything is opened."""
        await self.starting.start(
            interaction,
            game,
            player1,
            player2,
            first=first,
            options=options,
            clock=clock,
            room=room,
            rules=rules,
            rated=rated,
            series=series,
        )

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
        await self.configuring.config(
            interaction,
            host_role=host_role,
            room_channel=room_channel,
            room_mode=room_mode,
            game=game,
            clock=clock,
            reset=reset,
            results_channel=results_channel,
            timezone=timezone,
            reminders=reminders,
            checkin=checkin,
            no_show=no_show,
            vacation_days=vacation_days,
        )

    @app_commands.command(name="help", description="Every /dm command, grouped by what it is for")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        """The command card, read from the tree as it is loaded (groups joined by other cogs included)."""
        await self.reading.help(interaction, self.dm)

    @app_commands.command(name="rules", description="How to write a game's moves, with its full rule card attached")
    @app_commands.describe(game="which game")
    @app_commands.autocomplete(game=game_autocomplete)
    async def rules(self, interaction: discord.Interaction[Any], game: str) -> None:
        """The short "how to write moves" card, and the full rule card attached."""
        await self.reading.rules(interaction, game)

    @app_commands.command(name="board", description="Show a match's board, turn and clocks")
    @app_commands.describe(match=MATCH)
    async def board(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """The board picture with whose turn it is (only for you)."""
        await self.reading.board(interaction, match)

    @app_commands.command(name="status", description="Show a match's players, turn, clocks and deadline")
    @app_commands.describe(match=MATCH)
    async def status(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Game, players, move number, whose turn, both clocks with the deadline, and the room."""
        await self.reading.status(interaction, match)

    @app_commands.command(name="resign", description="Resign your match")
    @app_commands.describe(match="match id (default: your match in this channel)")
    async def resign(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """Give up, once confirmed."""
        await self.playing.resign(interaction, match)

    # the house rules' action commands (`/dm mulligan`, `/dm ready`) come here: `Play.action_commands`

    @app_commands.command(name="log", description="A match's full log (anyone who can read its room)")
    @app_commands.describe(match=MATCH)
    async def log(self, interaction: discord.Interaction[Any], match: MatchId | None = None) -> None:
        """The whole record: summary, log files, replay, review page, within the upload limit."""
        await self.records.log(interaction, match)

    @app_commands.command(name="history", description="A player's recent matches")
    @app_commands.describe(player="whose matches (default: yours)", practice="include practice matches")
    async def history(
        self, interaction: discord.Interaction[Any], player: discord.Member | None = None, practice: bool = False
    ) -> None:
        """The last matches in this server, newest first."""
        await self.records.history(interaction, player, practice)

    @app_commands.command(name="practice", description="Play the practice opponent in a room of your own")
    @app_commands.describe(
        game="which game",
        level="how strongly the opponent plays (random, easy, medium, hard; perfect for Dots-and-Boxes)",
        options="game options as key=value pairs, e.g. `rows=2 cols=2`",
        first="who moves first",
        room=ROOM,
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
        """A match against the practice opponent, kept out of `/dm history`."""
        await self.practising.start(interaction, game, level=level, options=options, first=first, room=room)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Resumed practice matches get their opponent back; every server's name is kept for its review page."""
        await self.practising.resume()
        for guild in list(self.bot.guilds):
            await self.keep_guild_name(guild)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """A new server: its name is kept for its review page."""
        await self.keep_guild_name(guild)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        """A server back after an outage (or one Discord announces as available rather than joined): its
        name may have changed meanwhile."""
        await self.keep_guild_name(guild)

    @commands.Cog.listener()
    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        """A server renamed: its review page follows."""
        if before.name != after.name:
            await self.keep_guild_name(after)

    async def keep_guild_name(self, guild: discord.Guild) -> None:
        """Store a server's name (cleaned by the store; an unchanged one writes nothing); a database that
        cannot be written is logged, never raised into Discord's events."""
        try:
            await self.bot.guild_settings.set_name(guild.id, guild.name)
        except Exception:
            logger.exception("guild %s: its name could not be stored", guild.id)
