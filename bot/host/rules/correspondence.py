"""Correspondence: days per move, an optional capped bank, one reminder per move (`--clock kind=correspondence`).

The time control itself lives in the clocks (`ClockKind.CORRESPONDENCE`: the reminder and the loss on time
are two of its deadlines, and its deadlines are absolute: a restart charges the time no host ran). This
rule is the part that speaks: the `reminder` event, its words, and how time left is written (days and
hours). Every match has it; it acts only in a match whose clock is correspondence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bot.host.rules.base import HouseRule

REMINDER = "reminder"
"""The event a reminder publishes: `{"event": "reminder", "player": NAME, "left": SECONDS}`."""
VACATION = "vacation"
"""A player's vacation began (`/dm event vacation`): their clock stands still; addressed to the opponent."""
BACK = "vacation_over"
"""A player's vacation ended (its time came, or they ended it): their clock runs again."""


def days_hours(seconds: float) -> str:
    """Time left as a correspondence room writes it: `2d 5h`, `5h 20m`, `12m`, `40s`."""
    s = max(0, round(seconds))
    days, rest = divmod(s, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h {minutes}m" if minutes else f"{hours}h"
    if minutes:
        return f"{minutes}m"
    return f"{secs}s"


class Correspondence(HouseRule):
    """Not set with `--rule`: `--clock kind=correspondence move=2d [bank=5d] [remind=0.8]` chooses it."""

    key: ClassVar[str] = "correspondence"
    order: ClassVar[int] = 36
    settable: ClassVar[bool] = False
    default: ClassVar[Any] = None
    in_defaults: ClassVar[bool] = False
    events: ClassVar[tuple[str, ...]] = (REMINDER, VACATION, BACK)
    pings: ClassVar[tuple[str, ...]] = (REMINDER, VACATION, BACK)
    words: ClassVar[Mapping[str, str]] = {
        REMINDER: "{player}, your move against {opponent} is waiting: {left_text} left, time runs out {deadline}.",
        "log:reminder": "reminded",
        "logline:reminder": "{left_text} left",
    }

    @classmethod
    def build(cls, value: Any) -> HouseRule | None:
        """Nothing runs per match: the clock keeps the deadlines, the service publishes the reminder."""
        return None
