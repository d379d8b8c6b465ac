"""Scheduled Death Matches: a time, reminders, check-in, no-shows and stakes (beside the host core)."""

from bot.schedule.core import ScheduleError, ScheduleEvent, Scheduler, loop_wall
from bot.schedule.status import JobKind, ScheduleEventKind, ScheduleStatus
from bot.schedule.store import Schedule, ScheduleSettings, ScheduleStore
from bot.schedule.when import WhenError, parse_when

__all__ = [
    "JobKind",
    "Schedule",
    "ScheduleError",
    "ScheduleEvent",
    "ScheduleEventKind",
    "ScheduleSettings",
    "ScheduleStatus",
    "ScheduleStore",
    "Scheduler",
    "WhenError",
    "loop_wall",
    "parse_when",
]
