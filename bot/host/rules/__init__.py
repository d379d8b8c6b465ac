"""House rules: which a game takes, its Death Match defaults, and the rule objects of one match.

A host sets them per match with `K=V` pairs (`takeback=5 mulligan=1 clock=grace`); see each game's
rule card in `seeds/rules/`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.host.events import Refusal
from bot.host.rules.advantage import AdvantageChoice
from bot.host.rules.base import HOLD_STATUSES, Effects, HouseRule, Log, MatchView, Note, Provisional, Refused
from bot.host.rules.mulligan import Mulligan
from bot.host.rules.presence import GracePresence
from bot.host.rules.shiftconfirm import ShiftConfirm
from bot.host.rules.takeback import TakeBack
from bot.host.rules.threesame import ThreeSameRestart

__all__ = [
    "HOLD_STATUSES",
    "Effects",
    "HouseRule",
    "Log",
    "MatchView",
    "Note",
    "Provisional",
    "Refused",
    "RulesError",
    "accepted",
    "build",
    "clock_overrides",
    "defaults",
    "describe",
    "keyword_actions",
    "parse",
]

COMMON = ("takeback", "mulligan", "clock")
EXTRA: dict[str, tuple[str, ...]] = {"trax": ("threesame",), "dotdash": ("shiftconfirm",)}
DEFAULTS: dict[str, dict[str, Any]] = {
    "trax": {"takeback": 5.0, "mulligan": 1, "threesame": True},
    "dotdash": {"shiftconfirm": True},
}
"""Each game's Death Match defaults (anything not named is off; `clock` is the game's own clock)."""

_ON = {"1": True, "on": True, "yes": True, "true": True, "0": False, "off": False, "no": False, "false": False}


class RulesError(ValueError):
    """A rule the game does not take, or a value the rule does not take."""

    @property
    def refusal(self) -> Refusal:
        """The refusal to show the host."""
        return Refusal("rules", data={"detail": str(self)})


def accepted(game: str) -> tuple[str, ...]:
    """The rules a game takes."""
    return COMMON + EXTRA.get(game, ())


def defaults(game: str) -> dict[str, Any]:
    """A game's Death Match house rules, as settings."""
    return {"takeback": 0.0, "mulligan": 0, **{k: True for k in EXTRA.get(game, ())}, **DEFAULTS.get(game, {})}


def parse(game: str, raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """The game's defaults with the host's `K=V` choices applied (values may be strings)."""
    settings = defaults(game)
    for key, value in (raw or {}).items():
        if key not in accepted(game):
            raise RulesError(f"{game} takes no rule {key!r}; it accepts {', '.join(accepted(game))}")
        text = str(value).strip().lower()
        if key == "takeback":
            try:
                seconds = float(text)
            except ValueError:
                raise RulesError(f"takeback is a number of seconds (0 = off), not {value!r}") from None
            if not 0 <= seconds <= 600:
                raise RulesError("takeback must be between 0 and 600 seconds")
            settings[key] = seconds
        elif key == "mulligan":
            if not text.isdigit() or int(text) > 9:
                raise RulesError(f"mulligan is a number of mulligans per player (0 = off), not {value!r}")
            settings[key] = int(text)
        elif key == "clock":
            if text not in ("grace", "move_reserve"):
                raise RulesError(f"clock is grace or move_reserve, not {value!r}")
            settings[key] = text
        else:
            if text not in _ON:
                raise RulesError(f"{key} is on or off, not {value!r}")
            settings[key] = _ON[text]
    return settings


def clock_overrides(settings: Mapping[str, Any], default_kind: str, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Clock settings after `clock=…`: switching to the one-grace clock brings 10 minutes of grace,
    switching to move + reserve brings a 5-minute reserve (explicit clock settings still win)."""
    out = dict(overrides)
    kind = settings.get("clock")
    if kind is None or kind == default_kind:
        return out
    out.setdefault("kind", kind)
    if kind == "grace":
        out.setdefault("grace", 600)
    else:
        out.setdefault("reserve", 300)
    return out


def build(game: str, settings: Mapping[str, Any]) -> list[HouseRule]:
    """The rule objects of one match, in the order their hooks run."""
    rules: list[HouseRule] = [AdvantageChoice()]
    if settings.get("takeback"):
        rules.append(TakeBack(float(settings["takeback"])))
    if settings.get("mulligan"):
        rules.append(Mulligan(int(settings["mulligan"])))
    rules.append(GracePresence())
    if settings.get("threesame"):
        rules.append(ThreeSameRestart())
    if settings.get("shiftconfirm"):
        rules.append(ShiftConfirm())
    return rules


def keyword_actions() -> dict[str, str]:
    """Every phrase any rule answers → its action."""
    out: dict[str, str] = {}
    for cls in (AdvantageChoice, TakeBack, Mulligan, GracePresence, ShiftConfirm):
        out.update(cls.keywords)
    return out


def describe(settings: Mapping[str, Any]) -> str:
    """`takeback=5 mulligan=1 clock=grace`, for logs."""
    parts = []
    for key, value in settings.items():
        if isinstance(value, bool):
            parts.append(f"{key}={'on' if value else 'off'}")
        elif isinstance(value, float):
            parts.append(f"{key}={value:g}")
        else:
            parts.append(f"{key}={value}")
    return " ".join(parts)
