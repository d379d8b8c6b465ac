"""The sign-up card (its text, its Join/Leave/I'm here buttons) and a game's I'm here button, and how a click
finds the tournament feature of its bot."""

from __future__ import annotations

import datetime as dt
from typing import Any

import discord

from bot.adapters.discord._parts import TournamentsPart, parts
from bot.adapters.discord._shared import NO_PINGS, respond
from bot.adapters.discord.errors import report_error
from bot.adapters.discord.render import Said, markdown
from bot.adapters.discord.tournament._withdraw import ask_withdraw
from bot.host.service import HostError
from bot.tournaments.service import SIGNUP, Entry, Tournament, TournamentService
from bot.wording import tournament_told as told
from games import registry


def stamp(at: dt.datetime) -> str:
    """`<t:…:F> (<t:…:R>)`: every reader sees the time in their own zone, and how far it is."""
    return f"{discord.utils.format_dt(at, 'F')} ({discord.utils.format_dt(at, 'R')})"


def _minutes(seconds: int) -> str:
    return told.span(seconds)


def feature_of(interaction: discord.Interaction[Any]) -> TournamentsPart:
    """The tournament feature of the bot an interaction arrived on."""
    feature = parts(interaction.client).tournaments
    if feature is None:
        raise HostError(told.NO_TOURNAMENTS)
    return feature


def service_of(interaction: discord.Interaction[Any]) -> TournamentService:
    """The tournament service of the bot an interaction arrived on."""
    return feature_of(interaction).tournaments


async def own(interaction: discord.Interaction[Any], tid: int) -> Tournament:
    """A tournament of this server, or a refusal."""
    t = await service_of(interaction).get(tid)
    if t.guild_id is not None and t.guild_id != interaction.guild_id:
        raise HostError(told.no_such(tid))
    return t


def gone_from(guild: discord.Guild, entries: list[Entry]) -> list[Entry]:
    """The entrants (Discord users) who are no longer members of the server: none of them may start."""
    return [e for e in entries if e.player_id.isdigit() and guild.get_member(int(e.player_id)) is None]


def card_text(t: Tournament, entries: list[Entry]) -> Said:
    """The sign-up card (mentioning nobody: its players are words)."""
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
        far = opens is not None and opens - discord.utils.utcnow() > dt.timedelta(days=1)  # then with its date
        when = (
            f"from {discord.utils.format_dt(opens, 'f' if far else 't')}" if opens is not None else "before the start"
        )
        lines.append(
            f"Check-in {when}: click **I'm here** or type `here` in this channel; whoever has not is out at the start"
        )
    rules = []
    if t.no_show_s is not None:
        rules.append(f"each game: check in in its room; absent {_minutes(t.no_show_s)} after its start loses")
    if t.round_every_s is not None:
        rules.append(told.round_every(t.round_every_s))
    if t.missed == "withdraw":
        rules.append("a player who misses a game is withdrawn unless they confirm with /dm tournament stay")
    if t.seeding == "rating":
        rules.append("seeded by rating")
    if rules:
        lines.append("; ".join(rules).capitalize())
    players = [e.name + (" ✓" if e.checked_in else "") for e in entries if not e.withdrawn]
    limit = f"/{t.max_players}" if t.max_players else ""
    lines.append(f"Players ({len(players)}{limit}): {', '.join(players) if players else 'none yet'}")
    if t.status != SIGNUP:
        lines.append(told.signup_closed(t.status))
    return markdown("\n".join(lines))


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
            t = await own(interaction, self.tid)
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
        await respond(interaction, markdown(told.checked_in(g.match_id is not None)))


def game_view(gid: int) -> discord.ui.View:
    """The persistent I'm here button of a game's check-in card."""
    view = discord.ui.View(timeout=None)
    view.add_item(GameHereButton(gid))
    return view
