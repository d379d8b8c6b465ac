"""Per-game host flows on top of the rules: take-back windows, mulligans, confirmations."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HostPolicy:
    """Which host flows a game uses."""

    takeback_seconds: float = 0.0
    mulligans: int = 0
    mulligan_prompt_seconds: float = 60.0
    three_same_restart: bool = False
    confirm_shift: bool = False


POLICIES: dict[str, HostPolicy] = {
    "trax": HostPolicy(takeback_seconds=5.0, mulligans=1, three_same_restart=True),
    "dotdash": HostPolicy(confirm_shift=True),
}


def policy_for(game: str) -> HostPolicy:
    """The host flows of a game (none for most)."""
    return POLICIES.get(game, HostPolicy())
