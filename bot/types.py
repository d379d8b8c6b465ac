"""Value types shared by the host core and the store (below both): time controls, match statuses, end reasons.

`bot.store` and `bot.host` both import from here, so the store never imports the host.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, cast

from games.base import ClockKind, ClockSpec, Termination

__all__ = ["HOLD_STATUSES", "OVER_STATUSES", "ClockKind", "EndReason", "MatchStatus", "TimeControl"]

EndReason = Termination
"""Why a match ended: the games' terminations plus the host's (`time`, `resign`, `award`, `agreement`, `aborted`)."""


class MatchStatus(StrEnum):
    """Where a hosted match stands (the values are what the database and snapshots store)."""

    ONGOING = "ongoing"
    PAUSED = "paused"
    CHOOSING = "choosing"
    """The advantage player chooses who starts."""
    MULLIGAN_WAIT = "mulligan_wait"
    """A win waits for the loser's mulligan answer."""
    FINISHED = "finished"
    ABORTED = "aborted"


HOLD_STATUSES = (MatchStatus.CHOOSING, MatchStatus.MULLIGAN_WAIT)
"""Statuses in which a rule holds the match (nobody moves until the rule lets go)."""
OVER_STATUSES = (MatchStatus.FINISHED, MatchStatus.ABORTED)
"""Statuses of a match that is over."""


@dataclass(frozen=True)
class TimeControl:
    """Time-control settings of one match (seconds; fractions allowed)."""

    kind: ClockKind
    move: float
    reserve: float = 0.0
    grace: float = 0.0
    presence: float = 120.0
    takeback: float | None = None
    """Seconds a move stays provisional (None: the game's default, 5 s for Trax)."""
    odds: Mapping[int, Mapping[str, float]] = field(default_factory=dict)
    """Time odds: per seat, the `move`, `reserve` or `grace` that differ from the match's (empty: even time)."""

    @classmethod
    def from_spec(cls, spec: ClockSpec, overrides: Mapping[str, Any] | None = None) -> TimeControl:
        """The game's default, with per-match overrides (`move`, `reserve`, `grace`, `presence`, `kind`)."""
        values: dict[str, Any] = {
            "kind": spec.kind,
            "move": spec.move,
            "reserve": spec.reserve,
            "grace": spec.grace,
            "presence": 120.0,
            "takeback": None,
        }
        odds: dict[int, dict[str, float]] = {}
        for key, raw in (overrides or {}).items():
            prefix, colon, setting = key.rpartition(":")
            if colon:
                if prefix not in ("p1", "p2") or setting not in ODDS_KEYS:
                    raise ValueError(
                        f"unknown clock setting {key!r} (a player's own time: p1: or p2: before move, reserve or grace)"
                    )
                odds.setdefault(int(prefix[1]), {})[setting] = _seconds(setting, raw)
                continue
            if key not in values:
                raise ValueError(f"there is no clock setting {key!r}; the settings are {', '.join(values)}")
            if key == "kind":
                if raw not in ("move_reserve", "grace"):
                    raise ValueError("clock kind must be move_reserve or grace")
                values[key] = cast(ClockKind, raw)
                continue
            values[key] = _seconds(key, raw)
        if values["move"] <= 0 or any(seat.get("move", 1.0) <= 0 for seat in odds.values()):
            raise ValueError("clock setting move must be more than 0 seconds")
        return cls(**values, odds=odds)

    def for_seat(self, seat: int | None) -> TimeControl:
        """The time control one seat plays under (the match's, with that seat's odds)."""
        own = self.odds.get(seat, {}) if seat is not None else {}
        if not own:
            return self
        return replace(
            self,
            odds={},
            move=own.get("move", self.move),
            reserve=own.get("reserve", self.reserve),
            grace=own.get("grace", self.grace),
        )

    def swapped(self) -> TimeControl:
        """The same time control after the players changed seats (their odds go with them)."""
        if not self.odds:
            return self
        return replace(self, odds={3 - s: dict(o) for s, o in self.odds.items()})

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {
            "kind": self.kind,
            "move": self.move,
            "reserve": self.reserve,
            "grace": self.grace,
            "presence": self.presence,
            "takeback": self.takeback,
            **({"odds": {str(s): dict(o) for s, o in sorted(self.odds.items())}} if self.odds else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeControl:
        """Inverse of `to_json`."""
        odds = {int(s): {k: float(v) for k, v in o.items()} for s, o in (data.get("odds") or {}).items()}
        return cls(
            **{k: data[k] for k in ("kind", "move", "reserve", "grace", "presence", "takeback") if k in data},
            odds=odds,
        )


ODDS_KEYS = ("move", "reserve", "grace")
"""The clock settings that may differ between the two players (time odds)."""


def _seconds(key: str, raw: Any) -> float:
    """A clock setting's value: seconds between 0 and a week."""
    try:
        number = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"clock setting {key} must be a number of seconds, got {raw!r}") from None
    if not 0 <= number <= 7 * 24 * 3600:
        raise ValueError(f"clock setting {key} must be between 0 and a week, got {raw}")
    return number
