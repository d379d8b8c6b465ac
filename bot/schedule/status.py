"""Where a scheduled DM stands: its statuses as one enum (stored as their values)."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class ScheduleStatus(StrEnum):
    """A scheduled DM's status."""

    SCHEDULED = "scheduled"
    """Waiting for its time (reminders, check-in)."""
    STARTING = "starting"
    """One process is creating its match right now (a claim that goes stale if the process stops)."""
    FORFEITING = "forfeiting"
    """One process is ruling on a no-show right now (a claim, as `STARTING`)."""
    STARTED = "started"
    """Its match is being played."""
    FINISHED = "finished"
    """Its match ended."""
    FORFEITED = "forfeited"
    """A player did not come: the other won."""
    CANCELLED = "cancelled"
    """Called off (by a host, for nobody coming, or the match was aborted)."""


OPEN: Final = (ScheduleStatus.SCHEDULED, ScheduleStatus.STARTING, ScheduleStatus.FORFEITING)
"""Statuses of a DM that has not begun (the last two only for a moment, while one process acts)."""
CLAIMED: Final = (ScheduleStatus.STARTING, ScheduleStatus.FORFEITING)
"""A DM one process is starting or ruling on right now."""
DONE: Final = (ScheduleStatus.FINISHED, ScheduleStatus.FORFEITED)
"""A DM with a result."""
DECIDED: Final = (*DONE, ScheduleStatus.CANCELLED)
"""A DM that is over, one way or the other."""


class ScheduleEventKind(StrEnum):
    """What a `ScheduleEvent` reports (the words are in `bot.wording.schedule`)."""

    SCHEDULED = "scheduled"
    RESCHEDULED = "rescheduled"
    PROPOSED = "proposed"
    CANCELLED = "cancelled"
    REMINDER = "reminder"
    CHECKIN_OPEN = "checkin_open"
    CHECKED_IN = "checked_in"
    WAITING = "waiting"
    EXTENDED = "extended"
    STARTED = "started"
    START_FAILED = "start_failed"
    FORFEITED = "forfeited"
    FINISHED = "finished"


class JobKind(StrEnum):
    """A scheduled DM's jobs (`schedule.<kind>` in the jobs runner)."""

    REMIND = "remind"
    CHECKIN = "checkin"
    START = "start"
    NOSHOW = "noshow"
