"""Correspondence: days per move, an optional capped bank, one reminder per move (`--clock kind=correspondence`).

The time control itself lives in the clocks (`ClockKind.CORRESPONDENCE`: the reminder and the loss on time
are two of its deadlines, and its deadlines are absolute: a restart charges the time no host ran). This
rule is the part that speaks: the `reminder` event and its words (the events' names and how time left is
written, days and hours, are the clock's: `bot.types`). Every match has it; it acts only in a match whose
clock is correspondence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bot.host.rules.base import HouseRule
from bot.types import BACK, REMINDER, VACATION, days_hours

__all__ = ["BACK", "REMINDER", "VACATION", "Correspondence", "days_hours"]


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
