"""Sentences of decided results (issue 37): who decided a match, and a win by the opponent's withdrawal.

`bot.wording.result_sentence` says "by the host's decision" where no host is known; these name the host, or
say the opponent withdrew (a tournament withdrawal ends the live game with an award that no host made).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.wording import result_sentence

WITHDRAWN_PREFIX = "withdrawn:"
"""How an award made by a withdrawal is marked in place of a host's id (`withdrawn:<player id>`)."""


def withdrawal_by(player_id: str) -> str:
    """The `by` of an award made because `player_id` withdrew."""
    return f"{WITHDRAWN_PREFIX}{player_id}"


def is_withdrawal(by: str | None) -> bool:
    """Whether an award's `by` marks a withdrawal (not a host's decision)."""
    return bool(by) and str(by).startswith(WITHDRAWN_PREFIX)


def withdrew_sentence(winner: int | None, names: Mapping[int, str]) -> str:
    """`alice wins: bob withdrew from the tournament`."""
    if winner not in (1, 2):
        return "no result: a player withdrew from the tournament"
    won, left = names.get(winner, f"player {winner}"), names.get(3 - winner, "the opponent")
    return f"{won} wins: {left} withdrew from the tournament"


def name_decider(sentence: str, host: str | None) -> str:
    """`alice wins by the host's decision` → `alice wins by carol's decision (host)` when the host is known."""
    if not host:
        return sentence
    return sentence.replace("the host's decision", f"{host}'s decision (host)")


def told_result(
    reason: str | None,
    winner: int | None,
    names: Mapping[int, str],
    *,
    score: Any = None,
    by: str | None = None,
    decider: str | None = None,
) -> str:
    """`bot.wording.result_sentence`, except that an award says who decided it (`decider`) or, when a tournament
    player withdrew (`by` marks it), that the opponent withdrew."""
    if reason == "award" and is_withdrawal(by):
        return withdrew_sentence(winner, names)
    said = result_sentence(reason, winner, names, score=score)
    return name_decider(said, decider) if reason == "award" else said
