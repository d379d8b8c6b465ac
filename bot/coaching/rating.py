"""Puzzle ratings: Glicko-2 (the `glicko2-py` library), one attempt a rating period for the player and the puzzle,
as lichess rates its puzzles. Pure."""

from __future__ import annotations

from typing import NamedTuple

from glicko2.math.algorithm import update_rating
from glicko2.math.conversions import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi

START = (1500.0, 500.0, 0.09)
"""A new player's (and a new puzzle's) rating, deviation and volatility."""
TAU = 0.75
MIN_DEVIATION, MAX_DEVIATION, MAX_VOLATILITY = 45.0, 500.0, 0.1


class Figures(NamedTuple):
    """Rating, deviation and volatility."""

    rating: float
    deviation: float
    volatility: float


def rate(player: Figures, puzzle: Figures, solved: bool) -> tuple[Figures, Figures]:
    """The player's and the puzzle's figures after one attempt (the puzzle wins when it is not solved)."""
    score = 1.0 if solved else 0.0
    return _one(player, puzzle, score), _one(puzzle, player, 1.0 - score)


def _one(me: Figures, other: Figures, score: float) -> Figures:
    out = update_rating(
        rating_to_mu(me.rating),
        rd_to_phi(me.deviation),
        me.volatility,
        [(rating_to_mu(other.rating), rd_to_phi(other.deviation), score)],
        TAU,
    )
    deviation = min(max(phi_to_rd(out.phi), MIN_DEVIATION), MAX_DEVIATION)
    return Figures(mu_to_rating(out.mu), deviation, min(out.sigma, MAX_VOLATILITY))
