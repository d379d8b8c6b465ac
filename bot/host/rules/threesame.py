"""Trax: the first attempt in a match at a turn leaving three same-coloured tracks restarts the clock."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bot.host.rules.base import Effects, HouseRule, Log, MatchView, Note
from bot.types import ClockNotice


class ThreeSameRestart(HouseRule):
    """Once per match (for both players together), a three-same attempt restarts the mover's clock."""

    key: ClassVar[str] = "threesame"
    card: ClassVar[str | None] = (
        "`threesame=on|off`: the once-per-match clock restart for a three-of-a-colour attempt (above)."
    )
    order: ClassVar[int] = 50
    games: ClassVar[tuple[str, ...] | None] = ("trax",)
    default: ClassVar[Any] = True
    events: ClassVar[tuple[str, ...]] = ("clock",)
    words: ClassVar[Mapping[str, str]] = {
        f"clock:{ClockNotice.RESTART}": (
            "{player}: that turn would leave three same-coloured tracks; your clock is restarted once."
        ),
        f"ping:clock:{ClockNotice.RESTART}": (
            "that turn would leave three same-coloured tracks, so your clock is restarted once."
        ),
    }

    def __init__(self) -> None:
        self.used = False

    def after_illegal(self, m: MatchView, seat: int, code: str | None) -> Effects | None:
        """The first three-same attempt: a fresh clock for the mover."""
        if code != "three-same" or self.used:
            return None
        self.used = True
        return Effects(
            clock=["restart"],
            log=[Log("clock", seat, {"notice": ClockNotice.RESTART})],
            say=[Note("clock", {"notice": ClockNotice.RESTART}, seat)],
        )

    def dump(self, now: float) -> dict[str, Any]:
        """Whether the restart is used."""
        return {"used": self.used}

    def load(self, data: Mapping[str, Any], now: float) -> None:
        """Inverse of `dump`."""
        self.used = bool(data.get("used"))

    def load_legacy(self, flags: Mapping[str, Any], pending: Mapping[str, Any] | None, now: float) -> None:
        """Old flag: `three_same_used`."""
        self.used = bool(flags.get("three_same_used"))
