"""Dot Dash: five-rows decide, so count fours and threes on the way; a losing shift is just a loss."""

from __future__ import annotations

import random
from typing import Any

from games.base import AnyRuleset, Seat
from games.dotdash import RULESET as DOTDASH
from games.dotdash import DotDashState, Slide, geometry

FIVE = 100.0
FOUR = 6.0
THREE = 1.0


def runs(stones: int, size: int) -> tuple[int, int]:
    """(fours, threes): windows of 4 and of 3 stones in a line, all four directions."""
    geo = geometry(size)
    fours = threes = 0
    for s, s2, _s4, _, _, _ in geo.lines:
        pairs = stones & (stones >> s)
        three = pairs & (stones >> s2)
        threes += three.bit_count()
        fours += (pairs & (pairs >> s2)).bit_count()
    return fours, threes


def evaluate(state: DotDashState, me: Seat) -> float:
    """Five-row margin first, then fours and threes."""
    mine = state.colour_of(me)
    score = FIVE * (state.fives[mine] - state.fives[1 - mine])
    f1, t1 = runs(state.board[mine], state.size)
    f2, t2 = runs(state.board[1 - mine], state.size)
    return score + FOUR * (f1 - f2) + THREE * (t1 - t2)


def candidates(ruleset: AnyRuleset, state: DotDashState) -> list[Any]:
    """Every slide, or both colours in the colour choice (the setup is chosen before searching)."""
    return ruleset.legal_moves(state)


def random_moves(ruleset: AnyRuleset, state: DotDashState) -> list[Any]:
    """Every legal move except slides that lose by shifting (unless nothing else is left)."""
    moves = ruleset.legal_moves(state)
    safe = [m for m in moves if not (isinstance(m, Slide) and DOTDASH.loses_by_shifting(state, m))]
    return safe or moves


def setup(ruleset: AnyRuleset, state: DotDashState, rng: random.Random) -> Any:
    """An opening placement: a random one from the engine's central sample."""
    moves = ruleset.legal_moves(state)
    return moves[rng.randrange(len(moves))]
