"""The tournament feature on Discord: the `/dm tournament` group, the sign-up buttons, the announcements."""

from __future__ import annotations

import datetime as dt
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._shared import NO_PINGS, host_bot, require_host, respond
from bot.adapters.discord.errors import report_error
from bot.host.service import HostError
from bot.tournaments.rounds import Format, Game
from bot.tournaments.service import (
    Entry,
    Tournament,
    TournamentEvent,
    TournamentService,
)
from bot.tournaments.wording import pairing_lines, standings_lines, winner_line
from games import registry

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

TournamentId = app_commands.Range[int, 1]


def _pairs(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in (text or "").split():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise HostError(f"`{item}` is not key=value")
        out[key.strip().lower()] = value.strip()
    return out


def service_of(interaction: discord.Interaction[Any]) -> TournamentService:
    """The tournament service of the bot an interaction arrived on."""
    feature = host_bot(interaction).get_cog("TournamentFeature")
    if not isinstance(feature, TournamentFeature):
        raise HostError("Tournaments are not running on this bot.")
    return feature.tournaments


async def _own(interaction: discord.Interaction[Any], tid: int) -> Tournament:
    """A tournament of this server, or a refusal."""
    t = await service_of(interaction).get(tid)
    if t.guild_id is not None and t.guild_id != interaction.guild_id:
        raise HostError(f"There is no tournament {tid} in this server.")
    return t


def card_text(t: Tournament, entries: list[Entry]) -> str:
    """The sign-up card."""
    title = registry.TITLES.get(t.game, t.game)
    rounds = f", {t.rounds} rounds" if t.rounds else ""
    lines = [f"**Tournament {t.id} · {t.name}** — {title}, {t.format.value}{rounds}"]
    if t.prize:
        lines.append(f"Prize: {t.prize}")
    if t.signup_closes_at is not None:
        lines.append(f"Sign-up closes {discord.utils.format_dt(t.signup_closes_at, 'R')}")
    players = [e.name for e in entries if not e.withdrawn]
    limit = f"/{t.max_players}" if t.max_players else ""
    lines.append(f"Players ({len(players)}{limit}): {', '.join(players) if players else 'none yet'}")
    if t.status != "signup":
        lines.append(f"Sign-up is closed ({t.status}).")
    return "\n".join(lines)


class SignupButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"tour:(?P<tid>\d+):(?P<action>join|leave)"
):
    """Join or Leave on a sign-up card; rebuilt from its custom id after a restart."""

    def __init__(self, tid: int, action: str) -> None:
        style = discord.ButtonStyle.success if action == "join" else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=action.title(), style=style, custom_id=f"tour:{tid}:{action}"))
        self.tid = tid
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> SignupButton:
        """Rebuild from a click."""
        return cls(int(match["tid"]), str(match["action"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Join or leave, then redraw the card; a refusal is said privately."""
        try:
            service = service_of(interaction)
            t = await _own(interaction, self.tid)
            user = interaction.user
            if self.action == "join":
                await service.join(t.id, str(user.id), user.display_name)
            else:
                await service.leave(t.id, str(user.id), by=str(user.id))
            t = await service.get(t.id)
            text = card_text(t, await service.entries(t.id))
        except Exception as exc:
            await report_error(interaction, exc)
            return
        await interaction.response.edit_message(content=text, view=signup_view(t.id), allowed_mentions=NO_PINGS)


def signup_view(tid: int) -> discord.ui.View:
    """The persistent Join/Leave buttons of a card."""
    view = discord.ui.View(timeout=None)
    view.add_item(SignupButton(tid, "join"))
    view.add_item(SignupButton(tid, "leave"))
    return view


class TournamentGroup(app_commands.Group):
    """`/dm tournament …`; each command hands its request to the tournament service and answers briefly."""

    def __init__(self, parent: app_commands.Group) -> None:
        super().__init__(name="tournament", description="Tournaments of Death Matches", parent=parent)

    @app_commands.command(name="create", description="Open a tournament for sign-up here (hosts only)")
    @app_commands.describe(
        name="what it is called",
        game="which game",
        format="how players are paired",
        rounds="Swiss only: how many rounds (default: log2 of the field)",
        options="game options as key=value pairs, e.g. `rows=2 cols=2`",
        clock="clock overrides in seconds, e.g. `move=90 reserve=600`",
        rules="house rules, e.g. `mulligan=1`",
        prize="what the winner gets",
        rated="whether results feed ratings",
        max_players="the most players who may join",
        signup_minutes="sign-up closes this many minutes from now",
        half_point_bye="a bye is worth ½ instead of 1",
    )
    @app_commands.choices(format=[app_commands.Choice(name=f.value, value=f.value) for f in Format])
    @app_commands.guild_only()
    async def create(
        self,
        interaction: discord.Interaction[Any],
        name: app_commands.Range[str, 1, 100],
        game: str,
        format: str,
        rounds: app_commands.Range[int, 1, 50] | None = None,
        options: str | None = None,
        clock: str | None = None,
        rules: str | None = None,
        prize: app_commands.Range[str, 1, 200] | None = None,
        rated: bool = False,
        max_players: app_commands.Range[int, 2, 1024] | None = None,
        signup_minutes: app_commands.Range[int, 1, 60 * 24 * 30] | None = None,
        half_point_bye: bool = False,
    ) -> None:
        require_host(interaction)
        service = service_of(interaction)
        closes = None
        if signup_minutes is not None:
            closes = discord.utils.utcnow() + dt.timedelta(minutes=signup_minutes)
        tid = await service.create(
            name,
            game,
            format,
            rounds=rounds,
            options=_pairs(options),
            clock=_pairs(clock),
            rules=_pairs(rules),
            rated=rated,
            prize=prize,
            bye_points=0.5 if half_point_bye else 1.0,
            max_players=max_players,
            signup_closes_at=closes,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            by=str(interaction.user.id),
        )
        t = await service.get(tid)
        await interaction.response.send_message(card_text(t, []), view=signup_view(tid), allowed_mentions=NO_PINGS)

    @app_commands.command(name="start", description="Close sign-up, pair round 1 and open its matches (hosts only)")
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        require_host(interaction)
        t = await _own(interaction, tournament)
        service = service_of(interaction)
        guild = interaction.guild
        gone = [
            e.name
            for e in await service.entries(t.id)
            if not e.withdrawn
            and guild is not None
            and e.player_id.isdigit()
            and guild.get_member(int(e.player_id)) is None
        ]
        if gone:
            raise HostError(
                f"{', '.join(gone)} left the server: take them out with `/dm tournament remove` before the start."
            )
        await interaction.response.defer(ephemeral=True, thinking=True)
        await service.start_tournament(t.id, by=str(interaction.user.id))
        await respond(interaction, f"{t.name} has started.")

    @app_commands.command(name="remove", description="Take a player out of a tournament (hosts only)")
    @app_commands.guild_only()
    async def remove(
        self, interaction: discord.Interaction[Any], tournament: TournamentId, player: discord.User
    ) -> None:
        require_host(interaction)
        t = await _own(interaction, tournament)
        await service_of(interaction).leave(t.id, str(player.id), by=str(interaction.user.id))
        await respond(interaction, f"{player.display_name} is out of {t.name}.")

    @app_commands.command(name="standings", description="The table, as a picture and as text")
    @app_commands.guild_only()
    async def standings(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        from bot.tournaments.pictures import standings_png

        t = await _own(interaction, tournament)
        service = service_of(interaction)
        table, names = await service.standings(t.id), await service.names(t.id)
        text = "\n".join([f"**{t.name}** — round {t.round}", *standings_lines(table, names)])
        picture = discord.File(io.BytesIO(standings_png(f"{t.name} — round {t.round}", table, names)), "standings.png")
        await respond(interaction, text[:1900], file=picture)

    @app_commands.command(name="pairings", description="The pairings of a round (default: the current one)")
    @app_commands.guild_only()
    async def pairings(
        self,
        interaction: discord.Interaction[Any],
        tournament: TournamentId,
        round: app_commands.Range[int, 1] | None = None,
    ) -> None:
        t = await _own(interaction, tournament)
        service = service_of(interaction)
        number = round or t.round
        rounds = await service.rounds(t.id)
        if not 1 <= number <= len(rounds):
            raise HostError(f"{t.name} has {len(rounds)} round(s) paired so far.")
        await respond(interaction, "\n".join(pairing_lines(number, rounds[number - 1], await service.names(t.id))))

    @app_commands.command(name="bracket", description="The elimination bracket as a picture")
    @app_commands.guild_only()
    async def bracket(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        from bot.tournaments.pictures import bracket_png

        t = await _own(interaction, tournament)
        if t.format is not Format.ELIMINATION:
            raise HostError(f"{t.name} is a {t.format.value}: see /dm tournament standings.")
        service = service_of(interaction)
        png = bracket_png(t.name, await service.rounds(t.id), await service.names(t.id), t.rounds or 1)
        await respond(interaction, f"**{t.name}**", file=discord.File(io.BytesIO(png), "bracket.png"))

    @app_commands.command(name="withdraw", description="Leave a tournament (what remains is forfeited)")
    @app_commands.guild_only()
    async def withdraw(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        t = await _own(interaction, tournament)
        await service_of(interaction).leave(t.id, str(interaction.user.id), by=str(interaction.user.id))
        await respond(interaction, f"You have left {t.name}.")

    @app_commands.command(name="result", description="Adjudicate a running game or override a result (hosts only)")
    @app_commands.choices(result=[app_commands.Choice(name=r, value=r) for r in ("1-0", "0-1", "1/2-1/2")])
    @app_commands.guild_only()
    async def result(
        self,
        interaction: discord.Interaction[Any],
        tournament: TournamentId,
        board: app_commands.Range[int, 1],
        result: str,
        round: app_commands.Range[int, 1] | None = None,
    ) -> None:
        require_host(interaction)
        t = await _own(interaction, tournament)
        await service_of(interaction).adjudicate(t.id, board, result, str(interaction.user.id), round)
        await respond(interaction, f"Board {board}: {result}.")

    @app_commands.command(name="pause", description="Pair no new round until resumed (hosts only)")
    @app_commands.guild_only()
    async def pause(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        require_host(interaction)
        t = await _own(interaction, tournament)
        await service_of(interaction).pause(t.id, str(interaction.user.id))
        await respond(interaction, f"{t.name} is paused.")

    @app_commands.command(name="resume", description="Pair rounds again (hosts only)")
    @app_commands.guild_only()
    async def resume(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        require_host(interaction)
        t = await _own(interaction, tournament)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await service_of(interaction).resume(t.id, str(interaction.user.id))
        await respond(interaction, f"{t.name} goes on.")

    @app_commands.command(name="cancel", description="End a tournament without a winner (hosts only)")
    @app_commands.guild_only()
    async def cancel(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        require_host(interaction)
        t = await _own(interaction, tournament)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await service_of(interaction).cancel(t.id, str(interaction.user.id))
        await respond(interaction, f"{t.name} is cancelled.")


class TournamentFeature(commands.Cog):
    """Owns the tournament service of this process, the `/dm tournament` group and the announcements."""

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot
        self.tournaments = TournamentService(bot.service, open_room=self.open_room, wall=discord.utils.utcnow)
        self.tournaments.subscribe(self.announce)
        self.group: TournamentGroup | None = None
        self._caught_up = False

    async def cog_load(self) -> None:
        """Join `/dm` as its `tournament` subgroup and listen to the host before it resumes matches."""
        dm = self.bot.tree.get_command("dm")
        if not isinstance(dm, app_commands.Group):
            raise RuntimeError("the /dm commands must be loaded before the tournament feature")
        self.group = TournamentGroup(dm)
        dm.add_command(self.group, override=True)
        self.tournaments.listen()

    async def cog_unload(self) -> None:
        """Leave `/dm`."""
        dm = self.bot.tree.get_command("dm")
        if isinstance(dm, app_commands.Group):
            dm.remove_command("tournament")

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Once connected: record results that arrived unheard, open what is still to open, pair what is due."""
        if self._caught_up:
            return
        self._caught_up = True
        try:
            await self.tournaments.catch_up()
        except Exception:
            log.exception("tournament catch-up failed")

    async def open_room(self, t: Tournament, white: Entry, black: Entry) -> int | None:
        """A public thread per match under the tournament's channel (the channel itself if that fails)."""
        channel = self.bot.get_channel(t.channel_id) if t.channel_id else None
        if not isinstance(channel, discord.TextChannel):
            return t.channel_id
        try:
            thread = await channel.create_thread(
                name=f"{t.name} R{t.round}: {white.name} vs {black.name}"[:100],
                type=discord.ChannelType.public_thread,
            )
        except discord.HTTPException:
            log.warning("tournament %s: no thread for %s vs %s; playing in the channel", t.id, white.name, black.name)
            return t.channel_id
        return thread.id

    async def announce(self, ev: TournamentEvent) -> None:
        """Rounds, rematches and the winner, said in the tournament's channel."""
        if ev.kind not in ("round", "rematch", "finished", "cancelled", "paused", "resumed"):
            return
        t = await self.tournaments.get(ev.tournament_id)
        channel = self.bot.get_channel(t.channel_id) if t.channel_id else None
        if not isinstance(channel, discord.abc.Messageable):
            return
        names = await self.tournaments.names(t.id)
        if ev.kind == "round":
            text = "\n".join([f"**{t.name}**", *pairing_lines(ev.data["round"], ev.data["pairings"], names)])
        elif ev.kind == "rematch":
            games = [g for g in ev.data["pairings"] if isinstance(g, Game)]
            text = f"**{t.name}**: drawn, so replayed with colours swapped: " + ", ".join(
                f"{names.get(g.white, '?')} – {names.get(g.black, '?')}" for g in games
            )
        elif ev.kind == "finished":
            winner = ev.data.get("winner_name")
            text = winner_line(t.name, winner, t.prize) if winner else f"**{t.name}** is over."
        else:
            text = f"**{t.name}** is {ev.kind}."
        try:
            await channel.send(text[:1990], allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            log.warning("tournament %s: could not announce %s", t.id, ev.kind)
