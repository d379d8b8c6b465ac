"""`/dm ratings leaderboard game:` and `/dm ratings profile member:`: a server's ratings, read by its members.

The cog owns the bot's `Ratings` (as `bot.ratings`): it subscribes to the host service before any match
is resumed, so every rated match that finishes is rated, and the announcer asks it for the changes it
shows in the result line. Its two commands join the `/dm` group of the match commands.
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._pages import page_link
from bot.adapters.discord._shared import respond
from bot.adapters.discord.public import PUBLIC, answer_table
from bot.adapters.discord.render import markdown
from bot.host.service import HostError, Refusal
from bot.ratings.chart import history_png
from bot.ratings.service import Ratings, Standing
from bot.wording import coaching as coaching_words
from bot.wording import ratings as wording
from bot.wording.commands import SERVER_PAGE_ONLY
from bot.wording.review import page_reply
from games import registry

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost


def owns_guild(settings: Any, guild_id: int | None) -> bool:
    """Whether this process hosts (and so rates) a server's matches (`bot.adapters.discord.app.owns_guild`)."""
    from bot.adapters.discord.app import owns_guild as owns

    return owns(settings, guild_id)


log = logging.getLogger(__name__)

TOP = 20
RECENT = 10
FIELD_LIMIT = 1024
EMBED_LIMIT = 5800


def _title(game: str) -> str:
    return registry.TITLES.get(game, game)


def _game(game: str) -> str:
    key = game.strip().lower()
    if key not in registry.GAME_MODULES:
        raise HostError(Refusal("unknown_game", data={"game": game, "known": ", ".join(registry.GAME_MODULES)}))
    return key


def room_link(guild_id: int, channel_id: int | None) -> str | None:
    """A link to a match's room."""
    return None if channel_id is None else f"https://discord.com/channels/{guild_id}/{channel_id}"


class RatingCommands(commands.Cog):
    """Rates finished matches; `/dm ratings leaderboard` and `/dm ratings profile`."""

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot
        self.ratings: Ratings = bot.host.ratings  # built and subscribed by the composition root (`bot.compose`)
        self._commands = self._build()

    def _group(self) -> app_commands.Group:
        group = self.bot.tree.get_command("dm")
        if not isinstance(group, app_commands.Group):
            raise RuntimeError("the /dm commands must be loaded before the rating commands")
        return group

    async def cog_load(self) -> None:
        """Join `/dm` as its `ratings` group (`/dm ratings leaderboard`, `/dm ratings profile`)."""
        group = self._group()
        ratings = app_commands.Group(name="ratings", description="Ratings: the leaderboard and profiles", parent=group)
        for command in self._commands:
            ratings.add_command(command, override=True)

    async def cog_unload(self) -> None:
        """Leave `/dm`."""
        group = self.bot.tree.get_command("dm")
        if isinstance(group, app_commands.Group):
            group.remove_command("ratings")

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Matches against the practice opponent (this bot's own user) stored before ratings are casual;
        matches that ended while no subscriber listened (a crash in between) are rated now."""
        if self.bot.user is None:
            return
        try:
            await self.ratings.mark_casual(str(self.bot.user.id))
            await self.ratings.catch_up(owns=lambda guild_id: owns_guild(self.bot.settings, guild_id))
        except Exception:
            log.exception("bringing the ratings up to date failed")

    def _build(self) -> list[app_commands.Command[Any, Any, None]]:
        cog = self

        async def game_autocomplete(
            interaction: discord.Interaction[Any], current: str
        ) -> list[app_commands.Choice[str]]:
            typed = current.strip().lower()
            return [
                app_commands.Choice(name=f"{_title(g)} ({g})", value=g)
                for g in registry.ids()
                if typed in g or typed in _title(g).lower()
            ][:25]

        @app_commands.command(name="leaderboard", description="This server's best players of a game, and your place")
        @app_commands.describe(game="which game", public=PUBLIC)
        @app_commands.autocomplete(game=game_autocomplete)
        @app_commands.guild_only()
        async def leaderboard(interaction: discord.Interaction[Any], game: str, public: bool = False) -> None:
            await cog.leaderboard(interaction, game, public)

        @app_commands.command(name="page", description="The address of this server's review page (ratings, matches)")
        @app_commands.guild_only()
        async def page(interaction: discord.Interaction[Any]) -> None:
            await cog.page(interaction)

        @app_commands.command(name="profile", description="A member's ratings, record and recent results here")
        @app_commands.describe(
            member="whose profile (default: yours)",
            versus="another member: the head-to-head record against them",
            game="one game only (default: every game they have played rated)",
            public=PUBLIC,
        )
        @app_commands.autocomplete(game=game_autocomplete)
        @app_commands.guild_only()
        async def profile(
            interaction: discord.Interaction[Any],
            member: discord.Member | None = None,
            versus: discord.Member | None = None,
            game: str | None = None,
            public: bool = False,
        ) -> None:
            await cog.profile(interaction, member, versus, game, public)

        return [leaderboard, profile, page]

    def _name(self, guild: discord.Guild | None, s: Standing) -> str:
        """A member's name as this server shows it now (the stored name when they are not cached)."""
        member = guild.get_member(int(s.player_id)) if guild is not None and s.player_id.isdigit() else None
        return member.display_name if member is not None else s.name

    async def page(self, interaction: discord.Interaction[Any]) -> None:
        """`/dm ratings page`: the signed address of this server's review page."""
        guild = interaction.guild
        if guild is None:
            raise HostError(SERVER_PAGE_ONLY)
        base = getattr(getattr(self.bot, "settings", None), "web_url", None)
        await respond(
            interaction, markdown(page_reply(f"The review page of {guild.name}", page_link(base, guild.id, "server")))
        )

    async def leaderboard(self, interaction: discord.Interaction[Any], game: str, public: bool = False) -> None:
        """Top 20 with rating, deviation, games, wins, losses, draws; the caller's own place (said privately).
        `public`: a host posts it in the channel."""
        key = _game(game)
        guild_id = interaction.guild_id
        rows = await self.ratings.leaderboard(guild_id, key, TOP)
        embed = discord.Embed(title=f"Leaderboard: {_title(key)}")
        own = None
        if not rows:
            embed.description = wording.empty_leaderboard(_title(key))
        else:
            embed.description = markdown(
                "\n".join(wording.leaderboard_line(s, self._name(interaction.guild, s)) for s in rows)
            )
            mine = await self.ratings.standing(guild_id, key, str(interaction.user.id))
            own = wording.own_place(mine, await self.ratings.count(guild_id, key))
        await answer_table(interaction, None, public, embed=embed, own=own)

    async def profile(
        self,
        interaction: discord.Interaction[Any],
        member: discord.Member | None,
        versus: discord.Member | None,
        game: str | None,
        public: bool = False,
    ) -> None:
        """Per game: rating and deviation, rank, record, streak, the last ten results (linked), head-to-head,
        and a chart. `public`: a host posts it in the channel."""
        who = member or interaction.user
        guild_id = interaction.guild_id
        assert guild_id is not None
        key = _game(game) if game else None
        if versus is not None and versus.id == who.id:
            raise HostError(Refusal("versus_self"))
        profiles = await self.ratings.profile(
            guild_id, str(who.id), versus=str(versus.id) if versus else None, game=key, recent=RECENT
        )
        if not profiles:
            await answer_table(interaction, wording.no_profile(who.display_name), public)
            return
        embed = discord.Embed(title=f"Profile: {who.display_name}")
        used = len(embed.title or "")
        coaching = await self.bot.app.host.coaching.insights([str(who.id)], key, guild_id)  # counted from the analyses
        insights = {row["game"]: row for row in coaching}
        for p in profiles:
            lines = [wording.profile_summary(p)]
            if (row := insights.get(p.standing.game)) is not None:
                lines.append(coaching_words.insights_line(row))
            h2h = wording.head_to_head(p, versus.display_name) if versus is not None else None
            if h2h:
                lines.append(h2h)
            lines.append(f"Last {len(p.recent)}:" if len(p.recent) > 1 else "Last result:")
            for r in p.recent:
                candidate = "\n".join([*lines, wording.result_line(r, room_link(guild_id, r.channel_id))])
                if len(candidate) > FIELD_LIMIT:
                    break
                lines.append(wording.result_line(r, room_link(guild_id, r.channel_id)))
            value = markdown("\n".join(lines))
            name = _title(p.standing.game)
            if used + len(name) + len(value) > EMBED_LIMIT:
                break
            used += len(name) + len(value)
            embed.add_field(name=name, value=value, inline=False)
        png = history_png(who.display_name, {_title(p.standing.game): p.history for p in profiles})
        embed.set_image(url="attachment://ratings.png")
        await answer_table(interaction, None, public, embed=embed, file=discord.File(io.BytesIO(png), "ratings.png"))
