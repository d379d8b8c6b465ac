"""House rules: which a game takes, its Death Match defaults, and the rule objects of one match.

A host sets them per match with `K=V` pairs (`takeback=5 mulligan=1 clock=grace`); see each game's
rule card in `seeds/rules/`. Every module of this package is imported here, and each `HouseRule`
subclass in it registers itself (`HouseRule.registry`): a new rule is one new module.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Mapping
from typing import Any

from bot.host.rules.base import (
    HOLD_STATUSES,
    Action,
    Effects,
    HouseRule,
    Log,
    MatchView,
    Note,
    OpenAction,
    PracticeAnswer,
    PracticeTurn,
    Provisional,
    Refused,
    RuleDeadline,
    RulesError,
)
from bot.types import ClockKind

__all__ = [
    "HOLD_STATUSES",
    "REGISTRY",
    "Action",
    "Effects",
    "HouseRule",
    "Log",
    "MatchView",
    "Note",
    "OpenAction",
    "PracticeAnswer",
    "PracticeTurn",
    "Provisional",
    "Refused",
    "RuleDeadline",
    "RulesError",
    "accepted",
    "action",
    "build",
    "clock_overrides",
    "defaults",
    "describe",
    "discover",
    "from_clock",
    "keyword",
    "keyword_actions",
    "log_rewind",
    "parse",
    "phrase_action",
    "practice",
    "redraw_kinds",
    "tentative_kinds",
    "withdraw_action",
]


def discover() -> None:
    """Import every module of this package's folders (`__path__`): each `HouseRule` subclass in one registers
    itself. Run once here; a module already imported is not imported again."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


discover()

REGISTRY: list[type[HouseRule]] = HouseRule.registry
"""Every house rule, in the order their hooks run."""


def _settable(game: str) -> list[type[HouseRule]]:
    return [rule for rule in REGISTRY if rule.settable and rule.takes(game)]


def accepted(game: str) -> tuple[str, ...]:
    """The rules a game takes."""
    return tuple(rule.key for rule in _settable(game))


def defaults(game: str) -> dict[str, Any]:
    """A game's Death Match house rules, as settings."""
    settable = _settable(game)
    return {rule.key: rule.default_for(game) for rule in settable if rule.in_defaults}


def parse(game: str, raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """The game's defaults with the host's `K=V` choices applied (values may be strings)."""
    settings = defaults(game)
    by_key = {rule.key: rule for rule in _settable(game)}
    for key, value in (raw or {}).items():
        rule = by_key.get(key)
        if rule is None:
            raise RulesError("rule_unknown", game=game, rule=key, accepted=", ".join(by_key))
        settings[key] = rule.parse(str(value))
    return settings


def clock_overrides(
    settings: Mapping[str, Any], default_kind: ClockKind, overrides: Mapping[str, Any]
) -> dict[str, Any]:
    """Clock settings after `clock=…`: switching to the one-grace clock brings 10 minutes of grace,
    switching to move + reserve brings a 5-minute reserve (explicit clock settings still win)."""
    out = dict(overrides)
    kind = settings.get("clock")
    if kind is None or kind == default_kind:
        return out
    out.setdefault("kind", kind)
    if kind == ClockKind.GRACE:
        out.setdefault("grace", 600)
    else:
        out.setdefault("reserve", 300)
    return out


def from_clock(clock: Mapping[str, Any], chosen: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The settings a clock's fields carry (`HouseRule.from_clock`), except for rules the host chose itself."""
    out: dict[str, Any] = {}
    for rule in REGISTRY:
        if not (chosen and rule.key in chosen):
            out.update(rule.from_clock(clock))
    return out


def practice(kind: str, data: Mapping[str, Any], bot: PracticeTurn) -> PracticeAnswer | None:
    """What the practice opponent posts for an event, as the rule that publishes it says (`HouseRule.practice`)."""
    return next((said for rule in REGISTRY if (said := rule.practice(kind, data, bot)) is not None), None)


def build(game: str, settings: Mapping[str, Any]) -> list[HouseRule]:
    """The rule objects of one match, in the order their hooks run."""
    out = []
    for rule in REGISTRY:
        if rule.takes(game) or not rule.settable:
            made = rule.build(settings.get(rule.key, rule.default_for(game) if not rule.in_defaults else None))
            if made is not None:
                out.append(made)
    return out


def action(name: str) -> Action | None:
    """The action of that name some rule declares."""
    return next((a for rule in REGISTRY for a in rule.actions if a.name == name), None)


def withdraw_action() -> str | None:
    """The action that withdraws a provisional move (a deleted or edited message), if some rule declares one."""
    return next((rule.withdraw for rule in REGISTRY if rule.withdraw), None)


def redraw_kinds() -> frozenset[str]:
    """The event kinds after which the position is not the one last shown (`HouseRule.redraws`)."""
    return frozenset(kind for rule in REGISTRY for kind in rule.redraws)


def tentative_kinds() -> frozenset[str]:
    """The event kinds that play a move not final yet (`HouseRule.tentative`)."""
    return frozenset(kind for rule in REGISTRY for kind in rule.tentative)


def phrase_action(norm: str) -> str | None:
    """The action a phrase with a value stands for, as some rule reads it (`HouseRule.phrase_action`; a rule
    that reads no phrase is not asked)."""
    readers = (rule for rule in REGISTRY if rule.phrase_action.__func__ is not _NO_PHRASE)  # type: ignore[attr-defined]
    return next((said for rule in readers if (said := rule.phrase_action(norm)) is not None), None)


_NO_PHRASE = HouseRule.phrase_action.__func__  # type: ignore[attr-defined]
_RESIGN = {"resign": "resign", "i resign": "resign"}
_MARKUP = re.compile(r"[`*_~]+")
_TRAILING = re.compile(r"[\s.!]+$")


def keyword(text: str) -> str | None:
    """The host command a short text *is*, if any: case, Discord markup and trailing `.`/`!` aside
    ('Take back!' → 'takeback', '**Resign.**' → 'resign'), as the rules' phrases say. A question is never a
    command ('resign?', 'I resign?'), nor is a sentence that merely contains one ('should I resign')."""
    if len(text) > 40 or any(q in text for q in "?？¿"):
        return None
    norm = _TRAILING.sub("", " ".join(_MARKUP.sub(" ", text.replace("\u2019", "'")).lower().split()))
    return _RESIGN.get(norm) or keyword_actions().get(norm) or phrase_action(norm)


def keyword_actions() -> dict[str, str]:
    """Every phrase any rule answers → its action."""
    out: dict[str, str] = {}
    for rule in REGISTRY:
        out.update(rule.keywords)
    return out


def log_rewind(kind: str, data: Mapping[str, Any] | None, ply: int) -> int | None:
    """The one reading of a stored log's rewinds (replay, the board's record, the room): the ply the line
    of play goes back to after the entry `kind` (`data`) read at `ply`, as the rule that logged it says;
    None when it undoes nothing. The plies after it are gone."""
    for rule in REGISTRY:
        to = rule.log_rewind(kind, data or {}, ply)
        if to is not None:
            return to
    return None


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
