"""`/dm config timezone: reminders: checkin: no_show:`: a server's scheduling settings (hosts change them)."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import require_host, respond
from bot.adapters.discord.render import markdown
from bot.host.service import HostError
from bot.schedule.store import ScheduleSettings
from bot.schedule.when import WhenError, zone
from bot.wording import schedule as words
from bot.wording.commands import NO_SCHEDULING, SETTINGS_SERVER_ONLY
from bot.wording.schedule import duration

_UNITS = {"d": 86400, "h": 3600, "m": 60, "min": 60}
_DURATION = re.compile(r"(\d{1,4})\s*(d|h|min|m)")
MAX_REMINDERS = 5
MIN_REMINDER_S = 60
MAX_REMINDER_S = 14 * 86400


def parse_offsets(text: str) -> tuple[int, ...]:
    """`24h 1h 10m` → (86400, 3600, 600); `off` → (); HostError for anything else."""
    raw = text.strip().lower().replace(",", " ")
    if raw in ("off", "none", "no"):
        return ()
    items = raw.split()
    offsets = []
    for item in items:
        found = _DURATION.fullmatch(item)
        if found is None:
            raise HostError(words.reminders_unreadable(item))
        offsets.append(int(found.group(1)) * _UNITS[found.group(2)])
    if not offsets or len(offsets) > MAX_REMINDERS:
        raise HostError(words.reminders_count(MAX_REMINDERS))
    if any(not MIN_REMINDER_S <= o <= MAX_REMINDER_S for o in offsets):
        raise HostError(words.REMINDER_RANGE)
    return tuple(sorted(set(offsets), reverse=True))


def describe(settings: ScheduleSettings) -> str:
    """The scheduling settings as a host reads them."""
    reminders = [duration(o) for o in settings.reminders]
    return markdown(words.settings_text(settings.timezone, reminders, settings.checkin_s, settings.no_show_s))


async def schedule_config(
    interaction: discord.Interaction[Any],
    *,
    timezone: str | None,
    reminders: str | None,
    checkin: int | None,
    no_show: int | None,
) -> None:
    """Change the scheduling settings given (hosts only) and show them all. They apply to DMs scheduled
    from now on."""
    require_host(interaction)
    if interaction.guild_id is None:
        raise HostError(SETTINGS_SERVER_ONLY)
    cog = parts(interaction.client).schedule
    scheduler = cog.scheduler if cog is not None else None
    if scheduler is None:
        raise HostError(NO_SCHEDULING)
    values: dict[str, Any] = {}
    if timezone is not None:
        try:
            values["timezone"] = zone(timezone).key
        except WhenError as exc:
            raise HostError(str(exc)) from None
    if reminders is not None:
        values["reminders"] = list(parse_offsets(reminders))
    if checkin is not None:
        values["checkin_s"] = checkin * 60
    if no_show is not None:
        values["no_show_s"] = no_show * 60
    settings = await scheduler.save_settings(interaction.guild_id, **values)
    await respond(interaction, markdown(words.SAVED + "\n" + describe(settings)))
