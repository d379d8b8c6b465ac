"""Game ids → rulesets. Modules are imported on first use, so a missing game fails alone."""

from __future__ import annotations

import importlib

from games.base import TITLES, AnyRuleset

__all__ = ["GAME_MODULES", "TITLES", "GameNotImplementedError", "UnknownGameError", "get", "implemented"]

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


class GameNotImplementedError(LookupError):
    """The id is known but its engine is not built yet."""


def get(game_id: str) -> AnyRuleset:
    """The ruleset for `game_id` (e.g. 'boxes')."""
    key = game_id.strip().lower()
    if key in _cache:
        return _cache[key]
    if key not in GAME_MODULES:
        raise UnknownGameError(f"unknown game {game_id!r}; known: {', '.join(GAME_MODULES)}")
    name = GAME_MODULES[key]
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            raise GameNotImplementedError(f"{key} is not implemented yet") from None
        raise
    ruleset: AnyRuleset = module.RULESET
    _cache[key] = ruleset
    return ruleset


def implemented() -> list[str]:
    """Ids of the games whose engines load."""
    out = []
    for key in GAME_MODULES:
        try:
            get(key)
        except GameNotImplementedError:
            continue
        out.append(key)
    return out
