"""Buttons of scheduled DMs that survive restarts: `dms:<schedule>:<action>`."""

from __future__ import annotations

from typing import Any

import discord

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import is_host
from bot.adapters.discord.errors import report_error
from bot.adapters.discord.render import markdown
from bot.host.service import HostError
from bot.schedule.core import ScheduleError
from bot.wording import schedule as words
from bot.wording.commands import NO_SCHEDULING
from bot.wording.schedule import refusal

ACTIONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "here": ("I'm here", discord.ButtonStyle.success),
    "accept": ("Accept the new time", discord.ButtonStyle.primary),
    "extend": ("Wait 10 min more (host)", discord.ButtonStyle.secondary),
    "startnow": ("Start anyway (host)", discord.ButtonStyle.danger),
}
EXTEND_MINUTES = 10


def custom_id(schedule_id: int, action: str) -> str:
    """`dms:<schedule>:<action>`."""
    return f"dms:{schedule_id}:{action}"


def view(schedule_id: int, *actions: str) -> discord.ui.View:
    """A persistent view with these buttons of one DM."""
    out = discord.ui.View(timeout=None)
    for action in actions:
        out.add_item(ScheduleButton(schedule_id, action))
    return out


class ScheduleButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"dms:(?P<schedule>\d+):(?P<action>[a-z]+)",
):
    """One button of one scheduled DM."""

    def __init__(self, schedule_id: int, action: str) -> None:
        label, style = ACTIONS[action]
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id(schedule_id, action)))
        self.schedule_id = schedule_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> ScheduleButton:
        """Rebuild from a click."""
        action = match["action"]
        if action not in ACTIONS:
            raise ValueError(f"unknown schedule button {action!r}")
        return cls(int(match["schedule"]), action)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Hand the click to the scheduler; refusals are private."""
        cog = parts(interaction.client).schedule
        scheduler = cog.scheduler if cog is not None else None
        try:
            if scheduler is None:
                raise HostError(NO_SCHEDULING)
            user = str(interaction.user.id)
            guild = interaction.guild_id
            if self.action == "here":
                sched = await scheduler.get(self.schedule_id, guild)
                await scheduler.check_in(sched.id, user)
                text = words.CHECKED_IN
            elif self.action == "accept":
                await scheduler.accept(self.schedule_id, user, host=is_host(interaction), guild_id=guild)
                text = words.ACCEPTED
            else:
                if not is_host(interaction):
                    raise HostError(words.ONLY_HOST)
                if self.action == "extend":
                    await scheduler.extend(self.schedule_id, EXTEND_MINUTES, user, guild_id=guild)
                    text = words.longer_wait(EXTEND_MINUTES)
                else:
                    await scheduler.start_now(self.schedule_id, user, guild_id=guild)
                    text = words.STARTED
        except ScheduleError as exc:
            await report_error(interaction, HostError(refusal(exc.code, exc.data, _stamp)))
            return
        except Exception as exc:
            await report_error(interaction, exc)
            return
        await interaction.response.send_message(markdown(text), ephemeral=True)


def _stamp(at: Any) -> str:
    return discord.utils.format_dt(at, "F") + " (" + discord.utils.format_dt(at, "R") + ")"
