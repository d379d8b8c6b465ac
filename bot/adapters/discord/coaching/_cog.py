"""`/puzzle`: certified puzzles from this server's own finished matches, a member's coaching profile (puzzle
rating and insights), the host's fair-play report and the server's daily puzzle (`bot.coaching`).

Its own top-level group (`/dm` is full). The service is the composition root's (`bot.host.coaching`); the
daily puzzle is a durable job per server (kind `puzzle-daily`, key `puzzle-daily:<guild>`, due at the next
midnight UTC), posted in the channel the host chose.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._shared import is_host
from bot.adapters.discord.render import markdown
from bot.coaching import CoachingService, Puzzle, PuzzleMoveError
from bot.jobs import Job
from bot.records.analysis import ANALYSED_GAMES
from bot.wording import coaching as words
from bot.wording.coaching import HOSTS_ONLY, NO_CURRENT, NOT_YOURS, UNKNOWN
from games import pictures

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

DAILY = "puzzle-daily"


def _midnight_after(now: dt.datetime) -> dt.datetime:
    return dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)


class CoachingCog(commands.Cog):
    """`/puzzle play`, `/puzzle answer`, `/puzzle profile`, `/puzzle fairplay`, `/puzzle daily`."""

    group = app_commands.Group(name="puzzle", description="Puzzles from this server's games, insights, fair play")

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot
        self.coaching: CoachingService = bot.app.host.coaching
        self.current: dict[tuple[int | None, int], int] = {}
        """(server, member) → the puzzle they were served last and have not answered."""

    async def cog_load(self) -> None:
        self.bot.jobs.register(DAILY, self._daily_job)

    async def cog_unload(self) -> None:
        self.bot.jobs.unregister(DAILY)

    # -- helpers --------------------------------------------------------------------------
    def _file(self, puzzle: Puzzle) -> discord.File:
        png = pictures.render_png(puzzle.ruleset(), puzzle.state(), caption=f"Puzzle {puzzle.id}")
        return discord.File(io.BytesIO(png), filename=f"puzzle-{puzzle.id}.png")

    @staticmethod
    async def _say(interaction: discord.Interaction[Any], text: str, **kw: Any) -> None:
        await interaction.response.send_message(markdown(text)[:2000], ephemeral=True, **kw)

    # -- commands -----------------------------------------------------------------------
    @group.command(name="play", description="A puzzle from this server's games: find the one best move")
    @app_commands.describe(game="one game only (default: any)")
    @app_commands.choices(game=[app_commands.Choice(name=g, value=g) for g in ANALYSED_GAMES])
    @app_commands.guild_only()
    async def play(self, interaction: discord.Interaction[Any], game: str | None = None) -> None:
        player = str(interaction.user.id)
        puzzle = await self.coaching.next_puzzle(interaction.guild_id, player, game)
        if puzzle is None:
            await self._say(interaction, words.no_puzzle(interaction.user.display_name, game))
            return
        self.current[(interaction.guild_id, interaction.user.id)] = puzzle.id
        text = words.puzzle_served(puzzle)
        await self._say(interaction, text, file=self._file(puzzle))

    @group.command(name="answer", description="Your move in the puzzle you were served (or a daily puzzle)")
    @app_commands.describe(move="your move, as in a match", puzzle="a puzzle's number (default: yours)")
    @app_commands.guild_only()
    async def answer(self, interaction: discord.Interaction[Any], move: str, puzzle: int | None = None) -> None:
        key = (interaction.guild_id, interaction.user.id)
        pid = puzzle if puzzle is not None else self.current.get(key)
        if pid is None:
            await self._say(interaction, NO_CURRENT)
            return
        found = await self.coaching.get(pid)
        if found is None or found.guild_key != (interaction.guild_id or 0):
            await self._say(interaction, UNKNOWN)
            return
        player = str(interaction.user.id)
        if not await self.coaching.servable(found, player):
            await self._say(interaction, NOT_YOURS)
            return
        try:
            result = await self.coaching.answer(found, interaction.guild_id, player, move)
        except PuzzleMoveError as exc:
            await self._say(interaction, words.move_refused(str(exc)))
            return
        if self.current.get(key) == pid:
            del self.current[key]
        await self._say(interaction, words.answer_text(result))

    @group.command(name="profile", description="A member's puzzle ratings and insights from their analysed games")
    @app_commands.describe(member="whose (default: yours)", game="one game only (default: every game)")
    @app_commands.choices(game=[app_commands.Choice(name=g, value=g) for g in ANALYSED_GAMES])
    @app_commands.guild_only()
    async def profile(
        self, interaction: discord.Interaction[Any], member: discord.Member | None = None, game: str | None = None
    ) -> None:
        who = member or interaction.user
        rows = await self.coaching.insights([str(who.id)], game, interaction.guild_id)
        lines = [words.insights_text(who.display_name, rows)]
        for g in [r["game"] for r in rows] or ([game] if game else []):
            rating, count = await self.coaching.puzzle_rating(interaction.guild_id, g, str(who.id))
            if count:
                lines.append(words.puzzle_rating_line(g, rating, count))
        await self._say(interaction, "\n".join(lines))

    @group.command(name="fairplay", description="For hosts: engine-move rates in rated matches here, and flags")
    @app_commands.describe(game="one game only (default: every game)")
    @app_commands.choices(game=[app_commands.Choice(name=g, value=g) for g in ANALYSED_GAMES])
    @app_commands.guild_only()
    async def fairplay(self, interaction: discord.Interaction[Any], game: str | None = None) -> None:
        if not is_host(interaction):
            await self._say(interaction, HOSTS_ONLY)
            return
        rows = await self.coaching.fairplay(game, interaction.guild_id)
        await self._say(interaction, words.fairplay_text(rows))

    @group.command(name="daily", description="For hosts: post this server's daily puzzle in a channel")
    @app_commands.describe(channel="where (leave out to stop the daily puzzle)")
    @app_commands.guild_only()
    async def daily(self, interaction: discord.Interaction[Any], channel: discord.TextChannel | None = None) -> None:
        if not is_host(interaction) or interaction.guild_id is None:
            await self._say(interaction, HOSTS_ONLY)
            return
        guild = interaction.guild_id
        await self.coaching.set_daily(guild, None if channel is None else channel.id)
        if channel is None:
            await self.bot.jobs.cancel(f"{DAILY}:{guild}")
            await self._say(interaction, words.daily_stopped())
            return
        await self._say(interaction, words.daily_set(channel.mention))
        await self.post_daily(guild)
        now = await self.bot.jobs.now()
        await self.bot.jobs.add(DAILY, f"{DAILY}:{guild}", _midnight_after(now), {"guild": guild}, scope=guild)

    # -- the daily puzzle ---------------------------------------------------------------
    async def post_daily(self, guild_id: int) -> bool:
        """Post today's puzzle of a server in its daily channel; False when there is none (or no channel)."""
        channels = await self.coaching.daily_channels()
        channel = self.bot.get_channel(channels.get(guild_id, 0))
        if not isinstance(channel, discord.abc.Messageable):
            return False
        now = await self.bot.jobs.now()
        puzzle = await self.coaching.daily(guild_id, now.date())
        if puzzle is None:
            return False
        await channel.send(markdown(words.daily_text(puzzle)), file=self._file(puzzle))
        return True

    async def _daily_job(self, job: Job) -> None:
        guild = int(job.payload["guild"])
        if guild not in await self.coaching.daily_channels():
            return
        await self.post_daily(guild)
        await self.bot.jobs.add(DAILY, job.key, _midnight_after(job.due), {"guild": guild}, scope=guild)
