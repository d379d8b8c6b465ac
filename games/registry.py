"""Game ids → rulesets. A game's module is imported on first use (pictures, the solver and pydantic
models stay out of a process that never asks for that game)."""

from __future__ import annotations

import importlib

from games.base import TITLES, AnyRuleset

__all__ = ["GAME_MODULES", "TITLES", "UnknownGameError", "get", "ids"]

GAME_MODULES: dict[str, str] = {
    "pathing": "games.pathing",
    "trax": "games.trax",
    "boxes": "games.boxes",
    "dots": "games.dots",
    "dotdash": "games.dotdash",
}


_cache: dict[str, AnyRuleset] = {}


class UnknownGameError(KeyError):
    """No game has this id."""


def get(game_id: str) -> AnyRuleset:
    """The ruleset for `game_id` (e.g. 'boxes')."""
    key = game_id.strip().lower()
    if key in _cache:
        return _cache[key]
    if key not in GAME_MODULES:
        raise UnknownGameError(f"unknown game {game_id!r}; known: {', '.join(GAME_MODULES)}")
    ruleset: AnyRuleset = importlib.import_module(GAME_MODULES[key]).RULESET
    _cache[key] = ruleset
    return ruleset


def ids() -> list[str]:
    """Every game id, in the registry's order."""
    return list(GAME_MODULES)
