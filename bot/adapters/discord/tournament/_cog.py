"""The tournament feature on Discord: the `/dm tournament` group, the sign-up buttons, the announcements."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import NO_PINGS, mention, pinging, require_host, respond
from bot.adapters.discord._trust import refuse_own_match
from bot.adapters.discord.errors import report_error
from bot.adapters.discord.public import PUBLIC, answer_table
from bot.adapters.discord.tournament._told import Teller, marked_names, players_of_board, round_title, standings_message
from bot.adapters.discord.tournament._withdraw import ask_withdraw
from bot.host.service import HostError
from bot.schedule.when import WhenError, parse_when
from bot.tournaments.refusals import RefusalCode
from bot.tournaments.rounds import Format
from bot.tournaments.service import (
    SIGNUP,
    Entry,
    Tournament,
    TournamentEvent,
    TournamentRefused,
    TournamentService,
)
from bot.wording import error_sentence
from bot.wording import tournament_told as told
from bot.wording.tournaments import announcement, checkin_card, no_show_line, pairing_lines
from bot.wording.zone_note import zone_note
from games import registry

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

TournamentId = app_commands.Range[int, 1]
Minutes = app_commands.Range[int, 1, 60 * 24 * 7]


def stamp(at: dt.datetime) -> str:
    """`<t:…:F> (<t:…:R>)`: every reader sees the time in their own zone, and how far it is."""
    return f"{discord.utils.format_dt(at, 'F')} ({discord.utils.format_dt(at, 'R')})"


def _minutes(seconds: int) -> str:
    return f"{seconds // 60} min"


def _pairs(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in (text or "").split():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise HostError(f"`{item}` is not key=value")
        out[key.strip().lower()] = value.strip()
    return out


def feature_of(interaction: discord.Interaction[Any]) -> TournamentFeature:
    """The tournament feature of the bot an interaction arrived on."""
    feature = parts(interaction.client).tournaments
    if feature is None:
        raise HostError("Tournaments are not running on this bot.")
    return feature


def service_of(interaction: discord.Interaction[Any]) -> TournamentService:
    """The tournament service of the bot an interaction arrived on."""
    return feature_of(interaction).tournaments


async def _own(interaction: discord.Interaction[Any], tid: int) -> Tournament:
    """A tournament of this server, or a refusal."""
    t = await service_of(interaction).get(tid)
    if t.guild_id is not None and t.guild_id != interaction.guild_id:
        raise HostError(f"There is no tournament {tid} in this server.")
    return t


def gone_from(guild: discord.Guild, entries: list[Entry]) -> list[Entry]:
    """The entrants (Discord users) who are no longer members of the server: none of them may start."""
    return [e for e in entries if e.player_id.isdigit() and guild.get_member(int(e.player_id)) is None]


def card_text(t: Tournament, entries: list[Entry]) -> str:
    """The sign-up card."""
    title = registry.TITLES.get(t.game, t.game)
    rounds = f", {told.plural(t.rounds, 'round')}" if t.rounds else ""
    lines = [f"**Tournament {t.id} · {t.name}** — {title}, {t.format.value}{rounds}"]
    if t.prize:
        lines.append(f"Prize: {t.prize}")
    if t.signup_closes_at is not None:
        lines.append(f"Sign-up closes {discord.utils.format_dt(t.signup_closes_at, 'R')}")
    if t.starts_at is not None and t.status == SIGNUP:
        lines.append(f"Starts by itself {stamp(t.starts_at)}")
    if t.checkin_s is not None:
        opens = t.checkin_opens()
        when = f"from {discord.utils.format_dt(opens, 't')}" if opens is not None else "before the start"
        lines.append(
            f"Check-in {when}: click **I'm here** or type `here` in this channel; whoever has not is out at the start"
        )
    rules = []
    if t.no_show_s is not None:
        rules.append(f"each game: check in in its room; absent {_minutes(t.no_show_s)} after its start loses")
    if t.round_every_s is not None:
        rules.append(f"a round every {_minutes(t.round_every_s)}")
    if t.seeding == "rating":
        rules.append("seeded by rating")
    if rules:
        lines.append("; ".join(rules).capitalize())
    players = [e.name + (" ✓" if e.checked_in else "") for e in entries if not e.withdrawn]
    limit = f"/{t.max_players}" if t.max_players else ""
    lines.append(f"Players ({len(players)}{limit}): {', '.join(players) if players else 'none yet'}")
    if t.status != "signup":
        lines.append(f"Sign-up is closed ({t.status}).")
    return "\n".join(lines)


LABELS = {"join": "Join", "leave": "Leave", "here": "I'm here"}


class SignupButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"tour:(?P<tid>\d+):(?P<action>join|leave|here)"
):
    """Join, Leave or I'm here (check-in) on a sign-up card; rebuilt from its custom id after a restart."""

    def __init__(self, tid: int, action: str) -> None:
        style = discord.ButtonStyle.secondary if action == "leave" else discord.ButtonStyle.success
        super().__init__(discord.ui.Button(label=LABELS[action], style=style, custom_id=f"tour:{tid}:{action}"))
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
            elif self.action == "here":
                await service.check_in(t.id, str(user.id))
            elif t.status != SIGNUP:  # a stale card: ask first, naming the game it forfeits
                await ask_withdraw(interaction, service, t)
                return
            else:
                await service.leave(t.id, str(user.id), by=str(user.id))
            t = await service.get(t.id)
            text = card_text(t, await service.entries(t.id))
        except Exception as exc:
            await report_error(interaction, exc)
            return
        if interaction.message is not None:
            feature_of(interaction).cards[t.id] = interaction.message.id
        view = signup_view(t.id, t.checkin_s is not None) if t.status == SIGNUP else None
        await interaction.response.edit_message(content=text, view=view, allowed_mentions=NO_PINGS)


def signup_view(tid: int, checkin: bool = False) -> discord.ui.View:
    """The persistent Join/Leave (and I'm here) buttons of a card."""
    view = discord.ui.View(timeout=None)
    view.add_item(SignupButton(tid, "join"))
    view.add_item(SignupButton(tid, "leave"))
    if checkin:
        view.add_item(SignupButton(tid, "here"))
    return view


class GameHereButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"tourgame:(?P<gid>\d+):here"):
    """I'm here on a tournament game's check-in card (in its room); rebuilt from its custom id after a restart."""

    def __init__(self, gid: int) -> None:
        super().__init__(
            discord.ui.Button(label="I'm here", style=discord.ButtonStyle.success, custom_id=f"tourgame:{gid}:here")
        )
        self.gid = gid

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> GameHereButton:
        """Rebuild from a click."""
        return cls(int(match["gid"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Check the player in; a refusal is said privately."""
        try:
            g = await service_of(interaction).check_in_game(self.gid, str(interaction.user.id))
        except Exception as exc:
            await report_error(interaction, exc)
            return
        opened = "" if g.match_id is None else " Both players are here: the match has started."
        await respond(interaction, f"You are checked in.{opened}")


def game_view(gid: int) -> discord.ui.View:
    """The persistent I'm here button of a game's check-in card."""
    view = discord.ui.View(timeout=None)
    view.add_item(GameHereButton(gid))
    return view


def read_start(text: str, tz: str | None) -> dt.datetime:
    """A start time as `/dm event schedule at:` reads it; a refusal with an example and the server's zone."""
    try:
        return parse_when(text, tz=tz, now=discord.utils.utcnow())
    except WhenError as exc:
        text = str(exc)
        raise HostError(text[:1].upper() + text[1:].rstrip(".") + ". " + zone_note(tz)) from None


async def _server_zone(interaction: discord.Interaction[Any]) -> str | None:
    """The server's time zone for reading times (set with `/dm config timezone:`), if the scheduler runs."""
    cog = parts(interaction.client).schedule
    scheduler = cog.scheduler if cog is not None else None
    if scheduler is None or interaction.guild_id is None:
        return None
    return str((await scheduler.settings(interaction.guild_id)).timezone)


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
        rules="house rules, e.g. `draw=on`",
        prize="what the winner gets",
        rated="whether results feed ratings",
        max_players="the most players who may join",
        signup_minutes="sign-up closes this many minutes from now",
        half_point_bye="a bye is worth ½ instead of 1",
        start="it starts by itself then, e.g. `in 2h`, `saturday 20:00` (the server's zone)",
        checkin="players check in during this many minutes before the start; whoever does not is out",
        no_show="each game: a player still absent this many minutes after its start loses by no-show",
        round_every="a round starts every this many minutes (or when the one before ends, if later)",
        seeding="seed order: sign-up order (default) or rating",
    )
    @app_commands.choices(
        format=[app_commands.Choice(name=f.value, value=f.value) for f in Format],
        seeding=[
            app_commands.Choice(name="sign-up order", value="joined"),
            app_commands.Choice(name="rating", value="rating"),
        ],
    )
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
        start: app_commands.Range[str, 1, 100] | None = None,
        checkin: Minutes | None = None,
        no_show: Minutes | None = None,
        round_every: Minutes | None = None,
        seeding: str = "joined",
    ) -> None:
        require_host(interaction)
        service = service_of(interaction)
        starts_at = read_start(start, await _server_zone(interaction)) if start else None
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
            starts_at=starts_at,
            checkin_s=None if checkin is None else checkin * 60,
            no_show_s=None if no_show is None else no_show * 60,
            round_every_s=None if round_every is None else round_every * 60,
            seeding=seeding,
        )
        t = await service.get(tid)
        sent = await interaction.response.send_message(
            card_text(t, []), view=signup_view(tid, t.checkin_s is not None), allowed_mentions=NO_PINGS
        )
        if isinstance(sent.resource, discord.Message):  # its id: edited as a channel message, not by the token
            feature_of(interaction).cards[tid] = sent.resource.id

    @app_commands.command(name="start", description="Close sign-up, pair round 1 and open its matches (hosts only)")
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        require_host(interaction)
        t = await _own(interaction, tournament)
        service = service_of(interaction)
        guild = interaction.guild
        gone = [] if guild is None else gone_from(guild, [e for e in await service.entries(t.id) if not e.withdrawn])
        if gone:
            raise HostError(
                f"{', '.join(e.name for e in gone)} left the server: "
                "take them out with `/dm tournament remove` before the start."
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
    @app_commands.describe(public=PUBLIC)
    @app_commands.guild_only()
    async def standings(
        self, interaction: discord.Interaction[Any], tournament: TournamentId, public: bool = False
    ) -> None:
        t = await _own(interaction, tournament)
        text, picture = await standings_message(service_of(interaction), t, f"**{t.name}** — round {t.round}")
        await answer_table(interaction, text, public, file=picture)

    @app_commands.command(name="pairings", description="The pairings of a round (default: the current one)")
    @app_commands.describe(public=PUBLIC)
    @app_commands.guild_only()
    async def pairings(
        self,
        interaction: discord.Interaction[Any],
        tournament: TournamentId,
        round: app_commands.Range[int, 1] | None = None,
        public: bool = False,
    ) -> None:
        t = await _own(interaction, tournament)
        service = service_of(interaction)
        number = round or t.round
        rounds = await service.rounds(t.id)
        if not 1 <= number <= len(rounds):
            raise HostError(f"{t.name} has {told.plural(len(rounds), 'round')} paired so far.")
        lines = pairing_lines(number, rounds[number - 1], await marked_names(service, t.id))
        lines[0] = f"**{t.name}** — {round_title(t, number)}"
        await answer_table(interaction, "\n".join(lines), public)

    @app_commands.command(name="bracket", description="The elimination bracket as a picture")
    @app_commands.describe(public=PUBLIC)
    @app_commands.guild_only()
    async def bracket(
        self, interaction: discord.Interaction[Any], tournament: TournamentId, public: bool = False
    ) -> None:
        from bot.wording.tournament_pictures import bracket_lines, bracket_png

        t = await _own(interaction, tournament)
        if t.format is not Format.ELIMINATION:
            raise HostError(f"{t.name} is a {t.format.value}: see /dm tournament standings.")
        service = service_of(interaction)
        rounds, names = await service.rounds(t.id), await marked_names(service, t.id)
        png = bracket_png(t.name, rounds, names, t.rounds or 1)
        text = "\n".join([f"**{t.name}**", *bracket_lines(rounds, names, t.rounds or 1)])
        await answer_table(interaction, text, public, file=discord.File(io.BytesIO(png), "bracket.png"))

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
        service = service_of(interaction)
        refuse_own_match(interaction, await players_of_board(service, t, board, round))
        await service.adjudicate(t.id, board, result, str(interaction.user.id), round)
        await respond(interaction, f"Board {board}: {result}, decided by {interaction.user.display_name}.")

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

    def __init__(self, bot: DMHost, tournaments: TournamentService) -> None:
        parts(bot).tournaments = self
        self.bot = bot
        self.tournaments = tournaments  # built (and subscribed) by the composition root (`bot.compose`)
        tournaments.open_room, tournaments.rating_order = self.open_room, self.rating_order
        tournaments.left_server = self.left_server
        self.tournaments.subscribe(self.announce)
        self.teller = Teller(bot, self.tournaments, stamp)
        self.group: TournamentGroup | None = None
        self._caught_up = False
        self.cards: dict[int, int] = {}
        """Tournament → its sign-up card's message id, as posted or last clicked in this process."""
        self._stale: set[int] = set()
        self._redrawing: dict[int, asyncio.Task[None]] = {}

    async def cog_load(self) -> None:
        """Join `/dm` as its `tournament` subgroup and listen to the host before it resumes matches."""
        dm = self.bot.tree.get_command("dm")
        if not isinstance(dm, app_commands.Group):
            raise RuntimeError("the /dm commands must be loaded before the tournament feature")
        self.group = TournamentGroup(dm)
        dm.add_command(self.group, override=True)

    async def before_close(self) -> None:
        """The bot is closing: stop the timer and the card redraws before the database closes."""
        await self._stop_redraws()
        await self.tournaments.close()

    async def cog_unload(self) -> None:
        """Stop the timer and leave `/dm`."""
        if parts(self.bot).tournaments is self:
            parts(self.bot).tournaments = None
        await self._stop_redraws()
        await self.tournaments.close()
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
        self.tournaments.run()

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """`here` checks a player in: in a game's room (its I'm here button's twin), or in the channel of a
        tournament whose check-in is open. Anyone else's `here` is ignored."""
        if message.author.bot or message.guild is None or message.content.strip().lower().rstrip("!.") != "here":
            return
        player = str(message.author.id)
        try:
            for g in await self.tournaments.waiting_in(message.channel.id):
                try:
                    await self.tournaments.check_in_game(g.id, player)
                except TournamentRefused as exc:
                    if exc.code == RefusalCode.NOT_IN_GAME:
                        continue
                    raise
                return
            if await self.teller.decided_here(message):
                return
            for t in await self.tournaments.signup_in(message.channel.id):
                if t.checkin_s is None or not any(e.player_id == player for e in await self.tournaments.entries(t.id)):
                    continue
                await self.tournaments.check_in(t.id, player)
                with contextlib.suppress(discord.HTTPException):
                    await message.add_reaction("✅")
                if isinstance(message.channel, discord.TextChannel | discord.Thread):
                    self.redraw_card(t.id, message.channel)
                return
        except TournamentRefused as exc:
            with contextlib.suppress(discord.HTTPException):
                await message.reply(error_sentence(exc), allowed_mentions=NO_PINGS)

    # -- the sign-up card ------------------------------------------------------------------
    def redraw_card(self, tid: int, channel: discord.TextChannel | discord.Thread) -> None:
        """Redraw a tournament's sign-up card soon (a typed `here`: no click edits it). Within the channel's
        write pacing; what changes while a redraw waits is drawn by that one edit."""
        self._stale.add(tid)
        if tid not in self._redrawing:
            self._redrawing[tid] = asyncio.create_task(self._redraw(tid, channel), name=f"tournament-card-{tid}")

    async def _redraw(self, tid: int, channel: discord.TextChannel | discord.Thread) -> None:
        announcer = parts(self.bot).announcer
        try:
            while tid in self._stale:
                if announcer is not None:
                    await announcer.take_write(channel.id)
                self._stale.discard(tid)
                card_id = self.cards.get(tid) or await self._find_card(tid, channel)
                if card_id is None:
                    return
                self.cards[tid] = card_id
                t = await self.tournaments.get(tid)
                text = card_text(t, await self.tournaments.entries(tid))
                card = channel.get_partial_message(card_id)
                if t.status == SIGNUP:
                    await card.edit(content=text, allowed_mentions=NO_PINGS)
                else:  # started: no Join/Leave any more
                    await card.edit(content=text, allowed_mentions=NO_PINGS, view=None)
        except discord.HTTPException:
            log.warning("tournament %s: the sign-up card could not be redrawn", tid)
        except Exception:
            log.exception("tournament %s: redrawing the sign-up card failed", tid)
        finally:  # here, not in a done callback: a `here` typed from now on starts a new redraw
            self._stale.discard(tid)
            self._redrawing.pop(tid, None)

    async def _find_card(self, tid: int, channel: discord.abc.Messageable) -> int | None:
        """The card among the channel's recent messages (after a restart, before anyone clicked it)."""
        head = f"**Tournament {tid} · "
        async for m in channel.history(limit=100):
            if m.author == self.bot.user and m.content.startswith(head):
                return m.id
        return None

    async def _stop_redraws(self) -> None:
        for task in list(self._redrawing.values()):
            task.cancel()
        await asyncio.gather(*self._redrawing.values(), return_exceptions=True)

    async def left_server(self, t: Tournament, entries: list[Entry] | Any) -> list[Entry]:
        """The entrants who are no longer members of the tournament's server (none while its member list is not
        complete here: a member missing from a partial cache has not left)."""
        guild = self.bot.get_guild(t.guild_id) if t.guild_id is not None else None
        return [] if guild is None or not guild.chunked else gone_from(guild, list(entries))

    async def rating_order(self, t: Tournament, entries: list[Entry] | Any) -> list[Entry]:
        """Entrants by rating in this server's table for the game (the unrated as 1500, in sign-up order)."""
        ratings = getattr(self.bot, "ratings", None)  # the ratings cog's `Ratings`
        if ratings is None:
            return list(entries)
        order = await ratings.seed_order(t.guild_id, t.game, [e.player_id for e in entries])
        by_player = {e.player_id: e for e in entries}
        return [by_player[p] for p in order]

    async def open_room(self, t: Tournament, white: Entry, black: Entry) -> int | None:
        """A public thread per game under the tournament's channel (the channel itself if that fails)."""
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
        """Rounds, rematches, withdrawals, decisions, the standings and the winner, said in the tournament's
        channel (the public side in `_told`)."""
        if ev.kind not in (
            "round",
            "rematch",
            "finished",
            "cancelled",
            "paused",
            "resumed",
            "started",
            "game_room",
            "no_show",
            "withdrawn",
            "result",
        ):
            return
        t = await self.tournaments.get(ev.tournament_id)
        if ev.kind == "game_room":
            await self._checkin_card(t, ev.data)
            await self.teller.room_opened(t, ev)
            return
        if ev.kind == "round":
            await self.teller.round(t, ev)
            return
        if ev.kind == "withdrawn":
            await self.teller.withdrawn(t, ev)
            return
        if ev.kind == "result":
            await self.teller.decided(t, ev)
            return
        if ev.kind == "started":
            await self.cards_closed(t)
        if ev.kind == "no_show":
            await self._no_show(t, ev.data)
        channel = self.bot.get_channel(t.channel_id) if t.channel_id else None
        if not isinstance(channel, discord.abc.Messageable):
            return
        names = await self.tournaments.names(t.id)
        text = announcement(t.name, ev.kind, ev.data, names, stamp, discord.utils.utcnow())
        try:
            await channel.send(text[:1990], allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            log.warning("tournament %s: could not announce %s", t.id, ev.kind)
        if ev.kind == "finished":
            await self.teller.standings(t, told.standings_title(t.name, t.round, final=True))

    async def cards_closed(self, t: Tournament) -> None:
        """The start: the sign-up card is redrawn without its buttons."""
        channel = self.bot.get_channel(t.channel_id) if t.channel_id else None
        if isinstance(channel, discord.TextChannel | discord.Thread):
            self.redraw_card(t.id, channel)

    async def _checkin_card(self, t: Tournament, data: dict[str, Any]) -> None:
        """A game's room opened: with a per-game check-in, both players are pinged with an I'm here button."""
        if not data.get("checkin"):
            return
        room = self.bot.get_channel(int(data["room"]))
        if not isinstance(room, discord.abc.Messageable):
            return
        white, black = data["white"], data["black"]
        text = checkin_card(t.name, data, mention, stamp, discord.utils.utcnow())
        try:
            await room.send(text, view=game_view(int(data["game"])), allowed_mentions=pinging(white, black))
        except discord.HTTPException:
            log.warning("tournament %s: could not post the check-in of game %s", t.id, data["game"])

    async def _no_show(self, t: Tournament, data: dict[str, Any]) -> None:
        """A no-show ruling: said in the game's room, pinging both; a rated tournament's forfeit is rated."""
        if data.get("rated"):
            ratings = getattr(self.bot, "ratings", None)  # the ratings cog's `Ratings`
            if ratings is not None:
                try:
                    await ratings.settle(int(data["match"]))
                except Exception:
                    log.exception("tournament %s: rating the no-show of match %s failed", t.id, data["match"])
        room = self.bot.get_channel(int(data["room"])) if data.get("room") else None
        if room is None or room.id == t.channel_id or not isinstance(room, discord.abc.Messageable):
            return
        text = no_show_line(data, mention)
        with contextlib.suppress(discord.HTTPException):
            await room.send(text, allowed_mentions=pinging(data["winner"], data["absent"]))
