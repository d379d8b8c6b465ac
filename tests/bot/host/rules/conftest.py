"""A fake match for driving one house rule alone: plain data, no database, no event loop."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.host.clocks import Clocks, TimeControl
from bot.host.rules import Effects, HouseRule, Provisional


@dataclass
class FakeMatch:
    """Just enough of a match for a rule's hooks (`MatchView`), and the rule's timers as the service keeps them."""

    ruleset: Any = None
    state: Any = None
    ply: int = 0
    status: str = "ongoing"
    clocks: Clocks = field(default_factory=lambda: Clocks.new(TimeControl("move_reserve", 60, 300)))
    history: list[tuple[int, Any, int]] = field(default_factory=list)
    mover: int | None = 1
    game: str = "boxes"
    due: dict[tuple[str, str], float] = field(default_factory=dict)
    paused: bool = False
    held: Provisional | None = None

    def to_move(self) -> int | None:
        return self.mover

    def player_id(self, seat: int) -> str:
        return f"p{seat}"

    def timer_due(self, rule: str, name: str) -> float | None:
        due = self.due.get((rule, name))
        return None if due is None else (math.inf if self.paused else due)

    def provisional(self) -> Provisional | None:
        return self.held

    def final_at_once(self, seat: int) -> bool:
        return False

    def timers(self, rule: HouseRule, eff: Effects | None, now: float) -> None:
        """Set or clear the rule's timers as the service would."""
        for name, after in (eff.timers if eff else {}).items():
            if after is None:
                self.due.pop((rule.key, name), None)
            else:
                self.due[(rule.key, name)] = now + after


@pytest.fixture
def match() -> FakeMatch:
    return FakeMatch()
