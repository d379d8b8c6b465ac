"""`/dm config`: a guild's host settings — shown to anyone who asks, changed by hosts only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.adapters.discord._shared import host_bot, parse_pairs, require_host, respond
from bot.adapters.discord.render import Said, markdown
from bot.host.service import HostError, Refusal
from bot.store.guilds import ROOM_MODES, GuildSettings, SettingsError
from bot.text import Text, lines, verbatim
from bot.wording.commands import NO_SCHEDULING
from games import registry

if TYPE_CHECKING:
    from bot.adapters.discord._parts import Parts

RESETTABLE = ("host_role", "room_channel", "room_mode", "clock", "results_channel")
"""What `reset:` can put back to the built-in default (`clock` needs `game:`)."""

ROOM_MODE_TEXT = {
    "public": "a public thread (everyone can watch)",
    "private": "a private thread (players and hosts)",
    "channel": "the channel itself",
}


def describe(settings: GuildSettings, guild: discord.Guild | None, default_role: str) -> Said:
    """The settings as a host reads them: every value, or what applies when none is set."""
    role = guild.get_role(settings.host_role_id) if guild is not None and settings.host_role_id else None
    role_text: str | Text
    if settings.host_role_id is None:
        role_text = f"not set: members with a role named `{default_role}` (and Manage Server) are hosts"
    else:
        role_text = verbatim(role.mention) if role is not None else "a role that no longer exists (set another one)"
    if settings.room_channel_id is None:
        channel_text = "not set: rooms open under the channel where `/dm start` runs"
    else:
        channel_text = f"<#{settings.room_channel_id}>"
    mode = settings.room_mode
    mode_text = ROOM_MODE_TEXT.get(mode, mode) if mode else "not set: a public thread"
    clocks = [
        f"{registry.TITLES.get(game, game)}: " + " ".join(f"{k}={v}" for k, v in sorted(clock.items()))
        for game, clock in sorted(settings.clocks.items())
    ]
    said: list[str | Text] = [
        "**Host settings of this server**",
        "Host role: " + role_text,
        f"Game-room channel: {channel_text}",
        f"Default room: {mode_text}",
        "Default clocks: " + ("; ".join(clocks) if clocks else "each game's own"),
        "Results channel: "
        + (
            f"<#{settings.results_channel_id}>"
            if settings.results_channel_id is not None
            else "not set: results are posted in each room's parent channel"
        ),
    ]
    return markdown(lines(said))


async def guild_config(
    interaction: discord.Interaction[Any],
    *,
    host_role: discord.Role | None,
    room_channel: discord.TextChannel | None,
    room_mode: str | None,
    game: str | None,
    clock: str | None,
    reset: str | None,
    results_channel: discord.TextChannel | None = None,
    more: str | None = None,
) -> None:
    """Show the settings (no options), or change the ones given and show the result; `more`: other features'
    settings, shown after these (the correspondence vacation allowance)."""
    bot = host_bot(interaction)
    store = bot.guild_settings
    guild_id = interaction.guild_id
    if guild_id is None:
        raise HostError(Refusal("config_in_server"))
    changing = any(v is not None for v in (host_role, room_channel, room_mode, game, clock, reset, results_channel))
    if not changing:
        settings = await store.get(guild_id)
        shown = describe(settings, interaction.guild, bot.settings.host_role)
        await respond(interaction, shown if more is None else Said(f"{shown}\n{markdown(more)}"))
        return
    require_host(interaction)
    changes: dict[str, Any] = {}
    if host_role is not None:
        if host_role.is_default():
            raise HostError(Refusal("config_everyone"))
        changes["host_role_id"] = host_role.id
    if room_channel is not None:
        changes["room_channel_id"] = room_channel.id
    if room_mode is not None:
        changes["room_mode"] = room_mode
    if results_channel is not None:
        changes["results_channel_id"] = results_channel.id
    if clock is not None and game is None:
        raise HostError(Refusal("config_clock_game"))
    if game is not None and clock is None and reset != "clock":
        raise HostError(Refusal("config_game_clock"))
    if game is not None and clock is not None:
        changes["clock"] = (game, parse_pairs(clock, "clock"))
    if reset is not None:
        if reset not in RESETTABLE:
            raise HostError(Refusal("config_reset", data={"choices": ", ".join(RESETTABLE)}))
        if reset == "clock":
            if game is None:
                raise HostError(Refusal("config_reset_game"))
            changes["clock"] = (game, None)
        else:
            changes[f"{reset}_id" if reset != "room_mode" else reset] = None
    if changes.get("room_mode") is not None and changes["room_mode"] not in ROOM_MODES:
        raise HostError(Refusal("config_room_mode", data={"modes": ", ".join(ROOM_MODES)}))
    try:
        settings = await store.update(guild_id, **changes)
    except SettingsError as exc:
        raise HostError(Refusal(exc.code, data=exc.data)) from None
    await respond(interaction, Said("Saved.\n" + describe(settings, interaction.guild, bot.settings.host_role)))


class Config:
    """`/dm config`: these settings, and the ones of scheduling and correspondence (their features' own)."""

    def __init__(self, features: Parts) -> None:
        self.features = features

    async def config(
        self,
        interaction: discord.Interaction[Any],
        *,
        host_role: discord.Role | None,
        room_channel: discord.TextChannel | None,
        room_mode: str | None,
        game: str | None,
        clock: str | None,
        reset: str | None,
        results_channel: discord.TextChannel | None,
        timezone: str | None,
        reminders: str | None,
        checkin: int | None,
        no_show: int | None,
        vacation_days: int | None,
    ) -> None:
        """No options: show the settings; options: change them (hosts only)."""
        if vacation_days is not None:
            correspondence = self.features.correspondence
            if correspondence is not None:
                await correspondence.config(interaction, vacation_days)
            others = (host_role, room_channel, room_mode, game, clock, reset, results_channel)
            if all(v is None for v in (*others, timezone, reminders, checkin, no_show)):
                return
        if any(v is not None for v in (timezone, reminders, checkin, no_show)):
            schedule = self.features.schedule
            if schedule is None:
                require_host(interaction)
                raise HostError(NO_SCHEDULING)
            await schedule.config(interaction, timezone=timezone, reminders=reminders, checkin=checkin, no_show=no_show)
            if all(v is None for v in (host_role, room_channel, room_mode, game, clock, reset, results_channel)):
                return
        correspondence = self.features.correspondence
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
