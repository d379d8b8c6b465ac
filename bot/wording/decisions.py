"""Sentences of decided results (issue 37): who decided a match, and a win by the opponent's withdrawal.

`bot.wording.result_sentence` says "by the host's decision" where no host is known; these name the host, or
say the opponent withdrew (a tournament withdrawal ends the live game with an award that no host made).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.types import is_withdrawal
from bot.wording import result_sentence


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
