"""Value types shared by the host core and the store (below both): time controls, match statuses, end reasons.

`bot.store` and `bot.host` both import from here, so the store never imports the host.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from games.base import ClockKind, ClockSpec, Termination

__all__ = [
    "BACK",
    "HOLD_STATUSES",
    "OVER_STATUSES",
    "REMINDER",
    "VACATION",
    "ClockKind",
    "ClockNotice",
    "EndReason",
    "MatchStatus",
    "TimeControl",
    "days_hours",
]

EndReason = Termination
"""Why a match ended: the games' terminations plus the host's (`time`, `resign`, `award`, `agreement`, `aborted`)."""


class MatchStatus(StrEnum):
    """Where a hosted match stands (the values are what the database and snapshots store)."""

    ONGOING = "ongoing"
    PAUSED = "paused"
    HELD = "held"
    """A house rule holds the match (a choice, an answer it waits for): which one, the rules' own state says."""
    FINISHED = "finished"
    ABORTED = "aborted"

    @classmethod
    def _missing_(cls, value: object) -> MatchStatus | None:
        """A status stored before `held`, named after the rule that held the match (e.g. the advantage's
        `choosing`): each rule declares its old names (`HouseRule.legacy_statuses`), and they read back as HELD."""
        return cls.HELD if isinstance(value, str) and value in HELD_BEFORE else None


HELD_BEFORE: set[str] = set()
"""Statuses older versions stored for a match some rule held (filled by the rules that held them)."""
HOLD_STATUSES = (MatchStatus.HELD,)
"""Statuses in which a rule holds the match (nobody moves until the rule lets go)."""
OVER_STATUSES = (MatchStatus.FINISHED, MatchStatus.ABORTED)
"""Statuses of a match that is over."""


class ClockNotice(StrEnum):
    """A clock's deadlines for the player on move, and the notices they give (the `notice` of `clock`
    events and log entries; the deadlines a snapshot records as passed)."""

    WARN_60 = "warn60"
    WARN_30 = "warn30"
    WARN_10 = "warn10"
    """So many seconds left before the player loses on time."""
    MOVE_WARN_30 = "move_warn30"
    MOVE_WARN_10 = "move_warn10"
    """So many seconds left of this move's time (a reserve or grace follows)."""
    RESERVE_STARTED = "reserve_started"
    GRACE_STARTED = "grace_started"
    TIMEOUT = "timeout"
    """The player lost on time."""
    REMINDER = "reminder"
    """Correspondence: `remind` of the player's time for this move is used (once per move)."""
    RESTART = "restart"
    """The player's clock was restarted (Trax's three-same rule)."""

    @classmethod
    def warning(cls, seconds: float, *, of_move: bool = False) -> ClockNotice:
        """The warning `seconds` before the end of the move time (`of_move`) or of all the player's time."""
        return cls(f"{'move_warn' if of_move else 'warn'}{int(seconds)}")

    @property
    def seconds_left(self) -> int | None:
        """For a warning, the seconds it warns of (None: not a warning)."""
        digits = self.value.removeprefix("move_warn").removeprefix("warn")
        return int(digits) if digits.isdigit() else None

    @property
    def of_move(self) -> bool:
        """A warning about this move's time only."""
        return self.value.startswith("move_warn")


# The correspondence clock's events (the `correspondence` rule publishes and words them) and its time text.
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


@dataclass(frozen=True)
class TimeControl:
    """Time-control settings of one match (seconds; fractions allowed)."""

    kind: ClockKind
    move: float
    reserve: float = 0.0
    grace: float = 0.0
    presence: float = 120.0
    odds: Mapping[int, Mapping[str, float]] = field(default_factory=dict)
    """Time odds: per seat, the `move`, `reserve` or `grace` that differ from the match's (empty: even time)."""
    bank: float = 0.0
    """Correspondence: the cap of the bank that saves unused move time (0: every move starts afresh)."""
    remind: float = 0.8
    """Correspondence: the share of the time for a move after which the player is reminded (0: never)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ClockKind(self.kind))  # a stored or typed string becomes the enum

    @classmethod
    def from_spec(cls, spec: ClockSpec, overrides: Mapping[str, Any] | None = None) -> TimeControl:
        """The game's default, with per-match overrides (`move`, `reserve`, `grace`, `presence`, `kind`); a
        take-back window typed with them (`WINDOW`) is checked as a clock setting and left to that rule."""
        values: dict[str, Any] = {
            "kind": spec.kind,
            "move": spec.move,
            "reserve": spec.reserve,
            "grace": spec.grace,
            "presence": 120.0,
            "bank": 0.0,
            "remind": 0.8,
        }
        window = None
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
            if key == WINDOW:
                window = _seconds(key, raw)
                continue
            if key not in values:
                raise ValueError(f"there is no clock setting {key!r}; the settings are {', '.join(TYPED_KEYS)}")
            if key == "kind":
                if raw not in tuple(ClockKind):
                    raise ValueError("clock kind must be move_reserve, grace or correspondence")
                values[key] = ClockKind(raw)
                continue
            values[key] = _fraction(key, raw) if key == "remind" else _seconds(key, raw)
        if values["move"] <= 0 or any(seat.get("move", 1.0) <= 0 for seat in odds.values()):
            raise ValueError("clock setting move must be more than 0 seconds")
        _check_kind({**values, WINDOW: window}, overrides or {})
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
            "kind": self.kind.value,
            "move": self.move,
            "reserve": self.reserve,
            "grace": self.grace,
            "presence": self.presence,
            **({"odds": {str(s): dict(o) for s, o in sorted(self.odds.items())}} if self.odds else {}),
            **({"bank": self.bank, "remind": self.remind} if self.kind == ClockKind.CORRESPONDENCE else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeControl:
        """Inverse of `to_json` (a time control stored with a take-back window reads without it: that window is the
        take-back rule's, `bot.host.rules.takeback.from_clock`)."""
        odds = {int(s): {k: float(v) for k, v in o.items()} for s, o in (data.get("odds") or {}).items()}
        return cls(
            **{k: data[k] for k in ("kind", "move", "reserve", "grace", "presence", "bank", "remind") if k in data},
            odds=odds,
        )


LIVE_CLOCK_KEYS = ("kind", "move", "reserve", "grace", "presence")
"""The settings of a live (not correspondence) time control as `TimeControl.to_json` writes them."""
WINDOW = "takeback"
"""The one key a typed clock may carry that is not the clock's: the take-back rule's window (`--clock takeback=5`,
`/dm start clock:takeback=5`, as before that window was only a house rule). `TimeControl.from_spec` checks it as a
clock setting; the rule reads it (`bot.host.rules.takeback.from_clock`)."""
TYPED_KEYS = (*LIVE_CLOCK_KEYS, WINDOW, "bank", "remind")
"""Every key a typed clock takes, in the order an unknown key's error names them."""
ODDS_KEYS = ("move", "reserve", "grace")
"""The clock settings that may differ between the two players (time odds)."""


WEEK = 7 * 24 * 3600.0
"""The longest live clock setting."""
LONGEST = 366 * 24 * 3600.0
"""The longest correspondence setting (a move or a bank of a year)."""
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_ONLY_CORRESPONDENCE = ("bank", "remind")


def duration(raw: Any) -> float:
    """Seconds of a duration: a number (seconds) or a number with `s`, `m`, `h` or `d` (`2d`, `36h`, `90m`);
    ValueError when it is neither."""
    text = str(raw).strip().lower()
    unit = _UNITS.get(text[-1:], None) if text else None
    number = float(text[:-1] if unit is not None else text)
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(text)
    return number * (unit or 1.0)


def _seconds(key: str, raw: Any) -> float:
    """A clock setting's value: a duration between 0 and a year (a week outside correspondence, checked later)."""
    try:
        number = duration(raw)
    except (TypeError, ValueError):
        raise ValueError(
            f"clock setting {key} must be a number of seconds or a duration such as 90m, 36h or 2d, got {raw!r}"
        ) from None
    if not 0 <= number <= LONGEST:
        raise ValueError(f"clock setting {key} must be between 0 and a week (a year in correspondence), got {raw}")
    return number


def _fraction(key: str, raw: Any) -> float:
    """A share of the time for a move: from 0 (never) up to, not including, 1."""
    try:
        number = float(raw)
    except (TypeError, ValueError):
        number = -1.0
    if not 0 <= number < 1:
        raise ValueError(
            f"clock setting {key} must be a fraction from 0 up to 1 (0.8: at 80 % of the time), got {raw!r}"
        )
    return number


def _check_kind(values: Mapping[str, Any], overrides: Mapping[str, Any]) -> None:
    """`bank` and `remind` belong to correspondence; a live clock stays within a week."""
    if values["kind"] == ClockKind.CORRESPONDENCE:
        return
    for key in _ONLY_CORRESPONDENCE:
        if key in overrides:
            raise ValueError(f"clock setting {key} belongs to kind=correspondence")
    for key in ("move", "reserve", "grace", "presence", WINDOW):
        value = values.get(key)
        if value is not None and value > WEEK:
            raise ValueError(f"clock setting {key} must be between 0 and a week, got {overrides.get(key, value)}")


WITHDRAWN_PREFIX = "withdrawn:"
"""How an award made by a withdrawal is marked in place of a host's id (`withdrawn:<player id>`)."""


def withdrawal_by(player_id: str) -> str:
    """The `by` of an award made because `player_id` withdrew."""
    return f"{WITHDRAWN_PREFIX}{player_id}"


def is_withdrawal(by: str | None) -> bool:
    """Whether an award's `by` marks a withdrawal (not a host's decision)."""
    return bool(by) and str(by).startswith(WITHDRAWN_PREFIX)
