"""Ratings, profiles and leaderboards per server and game (Glicko-2), beside the host core.

`bot.ratings.glicko` is the arithmetic, `bot.ratings.replay` which matches are rated and their replay
into tables (pure), `bot.ratings.models` the tables, `bot.ratings.store` their SQL, `bot.ratings.views`
the answers as values, `bot.ratings.service` the subscriber that rates finished matches (after the
commit, in batches) and answers the look-ups (leaderboard, profile, seeding).
"""

from collections.abc import Mapping
from typing import Any

_RATED = {"1": True, "on": True, "yes": True, "true": True, "0": False, "off": False, "no": False, "false": False}


class RatedChoiceError(ValueError):
    """A `rated=` value that is neither on nor off."""


def split_rated(rules: Mapping[str, Any]) -> tuple[bool, dict[str, Any]]:
    """`rated=off` among a match's `K=V` rule pairs (`dmhost room --rule`, `/dm start rules:`) makes it
    casual: whether the match is rated, and the other pairs (the house rules)."""
    rest = {k: v for k, v in rules.items() if k != "rated"}
    if "rated" not in rules:
        return True, rest
    text = str(rules["rated"]).strip().lower()
    if text not in _RATED:
        raise RatedChoiceError(f"rated is on or off, not {rules['rated']!r}")
    return _RATED[text], rest
