"""What every Discord feature shares: finding a match, host permission, polite replies, mentions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord.render import Said, markdown
from bot.host.events import Refusal
from bot.host.service import HostError, Live, MatchService
from bot.text import Text, name, verbatim

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

NO_PINGS = discord.AllowedMentions.none()
"""Never let a player's text (echoed in a reason) ping anyone."""


def pinging(*user_ids: str | int) -> discord.AllowedMentions:
    """Allow exactly these users to be pinged (no @everyone, no roles)."""
    users = [discord.Object(int(u)) for u in user_ids if str(u).isdigit()]
    return discord.AllowedMentions(everyone=False, roles=False, users=users, replied_user=False)


def mention(player_id: str) -> Text:
    """A ping for a player id that is a Discord id (ids from other rooms are shown as their words)."""
    return verbatim(f"<@{player_id}>") if player_id.isdigit() else name(player_id)


def board_linked(bot: DMHost, match_id: int, text: str | Text) -> Said:
    """A reply in a match's room, its words rendered, with a link to its board at the end (the announcer knows
    the board; the words alone while none is known)."""
    said = markdown(text)
    announcer = parts(bot).announcer
    return Said(announcer.linked(match_id, said)) if announcer is not None else said


def host_bot(interaction: discord.Interaction[Any]) -> DMHost:
    """The bot an interaction arrived on."""
    return cast("DMHost", interaction.client)


def parse_pairs(text: str | None, what: str) -> dict[str, str]:
    """`'rows=1 cols=2'` → `{'rows': '1', 'cols': '2'}` (commas also separate)."""
    out: dict[str, str] = {}
    for item in (text or "").replace(",", " ").split():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise HostError(Refusal("pairs", data={"what": what, "text": item}))
        out[key.strip().lower()] = value.strip()
    return out


def find_match(
    service: MatchService,
    channel_id: int | None,
    match_id: int | None = None,
    user_id: str | None = None,
    guild_id: int | None = None,
) -> Live:
    """The match a command is about: the explicit id, else the one in this channel (the user's own first).
    Only matches of the invoking guild are found: another server's match is "no such match" here."""
    if match_id is not None:
        live = service.live.get(match_id)
        if live is None or not same_guild(live.guild_id, guild_id):
            raise HostError(Refusal("no_running_match", data={"match": match_id}))
        return live
    here = (
        [lv for lv in service.matches_in_channel(channel_id) if same_guild(lv.guild_id, guild_id)] if channel_id else []
    )
    if user_id is not None:
        mine = [lv for lv in here if lv.seat_of(user_id) is not None]
        if len(mine) == 1:
            return mine[0]
    if len(here) == 1:
        return here[0]
    if not here:
        raise HostError(Refusal("no_match_here"))
    raise HostError(Refusal("several_here", data={"ids": ", ".join(str(lv.id) for lv in here)}))


def same_guild(match_guild: int | None, invoking_guild: int | None) -> bool:
    """Whether a match may be reached from where a command was invoked (its own guild only)."""
    return match_guild is None or match_guild == invoking_guild


def may_read_room(interaction: discord.Interaction[Any], room_id: int | None, player_ids: list[str]) -> bool:
    """Whether the user may see a match: a player, a host, or someone who can read its room."""
    user = interaction.user
    if str(user.id) in player_ids or is_host(interaction):
        return True
    guild = interaction.guild
    if guild is None or room_id is None or not isinstance(user, discord.Member):
        return False
    room = guild.get_channel_or_thread(room_id)
    if room is None:
        return False
    if isinstance(room, discord.Thread) and room.is_private():
        return room.permissions_for(user).manage_threads or any(m.id == user.id for m in room.members)
    return room.permissions_for(user).read_messages


def _guild_host_role(interaction: discord.Interaction[Any]) -> int | None:
    """The host role this guild chose with `/dm config` (None: the role named in the bot's settings)."""
    store = getattr(host_bot(interaction), "guild_settings", None)
    return store.cached(interaction.guild_id).host_role_id if store is not None else None


def is_host(interaction: discord.Interaction[Any]) -> bool:
    """Manage Server permission, or the guild's host role (`/dm config`), else the configured role name."""
    user = interaction.user
    if not isinstance(user, discord.Member):
        return False
    if interaction.permissions.manage_guild or user.guild_permissions.manage_guild:
        return True
    role_id = _guild_host_role(interaction)
    if role_id is not None:
        return any(role.id == role_id for role in user.roles)
    role_name = host_bot(interaction).settings.host_role.strip().lower()
    return any(role.name.lower() == role_name for role in user.roles)


def require_host(interaction: discord.Interaction[Any]) -> None:
    """Refuse politely unless the user may run host commands."""
    if not is_host(interaction):
        role = host_bot(interaction).settings.host_role
        role_id = _guild_host_role(interaction)
        if role_id is not None:
            found = interaction.guild.get_role(role_id) if interaction.guild is not None else None
            role = found.name if found is not None else "host"
        raise HostError(Refusal("host_only", data={"role": role}))


async def respond(interaction: discord.Interaction[Any], content: Said | Text | None = None, **kwargs: Any) -> None:
    """Answer an interaction, or follow up if it was already answered (ephemeral unless told otherwise). Words are
    rendered here (`markdown`); a `Said` is sent as it is."""
    if isinstance(content, Text):
        content = markdown(content)
    kwargs.setdefault("ephemeral", True)
    kwargs.setdefault("allowed_mentions", NO_PINGS)
    if interaction.response.is_done():
        if content is None:
            await interaction.followup.send(**kwargs)
        else:
            await interaction.followup.send(content, **kwargs)
    else:
        await interaction.response.send_message(content, **kwargs)


SEAT_CHOICES = [
    app_commands.Choice(name="player 1 moves first", value="1"),
    app_commands.Choice(name="player 2 moves first", value="2"),
    app_commands.Choice(name="player 1 has the advantage (chooses)", value="a1"),
    app_commands.Choice(name="player 2 has the advantage (chooses)", value="a2"),
]
"""`first:` of `/dm start` and `/dm event schedule`: who moves first, or who chooses."""

RATED_ADVANTAGE_CHOICES = [
    app_commands.Choice(name="the lower-rated player has the advantage", value="lower-rated"),
    app_commands.Choice(name="the higher-rated player has the advantage", value="higher-rated"),
]
"""More `first:` choices of `/dm start` and `/dm event schedule`: the advantage by rating (for a scheduled DM,
the ratings at its start)."""

FIRST_CHOICES = [*SEAT_CHOICES, *RATED_ADVANTAGE_CHOICES]
"""Every `first:` choice."""

ROOM_CHOICES = [
    app_commands.Choice(name="a public thread everyone can watch", value="public"),
    app_commands.Choice(name="a private thread (players and host only)", value="private"),
    app_commands.Choice(name="this channel", value="channel"),
]
"""`room:` of `/dm start` and `/dm event schedule`: where the match is played."""
