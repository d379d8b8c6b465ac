"""`clock=grace|move_reserve`: which time control a match uses (the game's own unless the host chooses)."""

from __future__ import annotations

from typing import Any, ClassVar

from bot.host.rules.base import HouseRule, RulesError
from bot.types import ClockKind
from games import registry

KINDS = (ClockKind.GRACE, ClockKind.MOVE_RESERVE)


class ClockChoice(HouseRule):
    """A setting only: the clock kind is read when the match's time control is made; no hooks."""

    key: ClassVar[str] = "clock"
    card: ClassVar[str | None] = (
        "`clock=grace`: the one-grace clock instead of move + reserve (10 minutes of grace unless the\n"
        "host sets `grace`). `clock=move_reserve` gives a 5-minute reserve unless the host sets `reserve`."
    )
    order: ClassVar[int] = 35
    default: ClassVar[Any] = None
    in_defaults: ClassVar[bool] = False

    @classmethod
    def card_default(cls, game: str) -> str | None:
        """The game's own clock kind."""
        ruleset = registry.get(game)
        return f"`{cls.key}={ruleset.default_clock(ruleset.parse_options({})).kind}`"

    @classmethod
    def parse(cls, text: str) -> Any:
        """`grace` or `move_reserve`."""
        kind = text.strip().lower()
        if kind not in KINDS:
            raise RulesError("rule_choice", rule=cls.key, value=text, choices=" or ".join(KINDS))
        return ClockKind(kind)

    @classmethod
    def build(cls, value: Any) -> HouseRule | None:
        """Nothing to run: the time control carries the choice."""
        return None
