"""`/dm config timezone: reminders: checkin: no_show:`: a server's scheduling settings (hosts change them)."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import require_host, respond
from bot.host.service import HostError
from bot.schedule.store import ScheduleSettings
from bot.schedule.when import WhenError, zone
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
            raise HostError(
                f"`reminders:` takes times before the start such as `24h 1h 10m` (or `off`), not `{item[:20]}`."
            )
        offsets.append(int(found.group(1)) * _UNITS[found.group(2)])
    if not offsets or len(offsets) > MAX_REMINDERS:
        raise HostError(f"`reminders:` takes 1 to {MAX_REMINDERS} times, e.g. `24h 1h 10m`, or `off`.")
    if any(not MIN_REMINDER_S <= o <= MAX_REMINDER_S for o in offsets):
        raise HostError("Each reminder must be between 1 minute and 14 days before the start.")
    return tuple(sorted(set(offsets), reverse=True))


def describe(settings: ScheduleSettings) -> str:
    """The scheduling settings as a host reads them."""
    reminders = ", ".join(duration(o) for o in settings.reminders) or "none"
    return "\n".join(
        [
            "**Scheduled DMs**",
            f"Time zone of times written without one: {settings.timezone}",
            f"Reminders before the start: {reminders}",
            f"Check-in opens {duration(settings.checkin_s)} before the start",
            f"A player still absent {duration(settings.no_show_s)} after the start loses by no-show",
        ]
    )


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
        raise HostError("Settings belong to a server: use `/dm config` in one.")
    cog = parts(interaction.client).schedule
    scheduler = cog.scheduler if cog is not None else None
    if scheduler is None:
        raise HostError("Scheduling is not running in this process.")
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
    await respond(interaction, "Saved (for DMs scheduled from now on).\n" + describe(settings))
