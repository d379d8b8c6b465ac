"""The rating arithmetic: Glicko-2 through the `glicko2-py` library, with lichess-like parameters.

Pure: no database, no Discord, no clock of its own (every time is passed in, aware UTC).

Each rated match is one rating period for its two players (as on lichess): before the update each
player's deviation grows with the time since their last rated match (Glickman's step 6 over the
elapsed fraction of rating periods), then both are updated against the other's pre-match figures
through `glicko2.math.algorithm.update_rating`, then the bounds are applied: deviation kept in
45..500, volatility at most 0.1, a rating moves at most 700 points in one match.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import NamedTuple

from glicko2.math.algorithm import update_rating
from glicko2.math.conversions import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi


@dataclass(frozen=True)
class Params:
    """The system's constants (lichess's, see the README)."""

    start_rating: float = 1500.0
    start_deviation: float = 500.0
    start_volatility: float = 0.09
    tau: float = 0.75
    min_deviation: float = 45.0
    max_deviation: float = 500.0
    max_volatility: float = 0.1
    max_change: float = 700.0
    provisional_from: float = 110.0
    """A rating whose deviation is at least this is provisional (shown with "?"): lichess's line."""
    settled_games: int = 10
    """…unless its player has this many rated games (in that game and server). Lichess's players mostly meet
    settled opponents; a server's players meet one another, all starting at ±500, so two of them still
    had a deviation of 128 after 14 games (and one who wins every game keeps 264): the count ends it."""
    periods_per_day: float = 0.21436
    """Rating periods per day of inactivity, for the growth of the deviation."""


PARAMS = Params()


class Rating(NamedTuple):
    """One player's figures after their last rated match (`at`: that match's end, None before any)."""

    rating: float
    deviation: float
    volatility: float
    at: dt.datetime | None = None

    @classmethod
    def new(cls, params: Params = PARAMS) -> Rating:
        """An unrated player's figures."""
        return cls(params.start_rating, params.start_deviation, params.start_volatility, None)


def _clamp(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


def deviation_at(r: Rating, when: dt.datetime, params: Params = PARAMS) -> float:
    """The deviation at `when`: it grows with the time since the player's last rated match."""
    return grown_deviation(r.deviation, r.volatility, None if r.at is None else (when - r.at).total_seconds(), params)


def grown_deviation(deviation: float, volatility: float, seconds: float | None, params: Params = PARAMS) -> float:
    """`deviation_at` on bare figures: `seconds` since the player's last rated match (None: never rated)."""
    if seconds is None:
        return _clamp(deviation, params.min_deviation, params.max_deviation)
    days = max(seconds, 0.0) / 86400.0
    phi = rd_to_phi(deviation)
    grown = math.sqrt(phi * phi + days * params.periods_per_day * volatility * volatility)
    return _clamp(phi_to_rd(grown), params.min_deviation, params.max_deviation)


def is_provisional(deviation: float, games: int, params: Params = PARAMS) -> bool:
    """Whether a rating with this deviation, after this many rated games, is still provisional: while the
    deviation is at least 110 (lichess) and the player has fewer than 10 rated games."""
    return deviation >= params.provisional_from and games < params.settled_games


def rate_period(
    player: Rating, results: list[tuple[Rating, float]], tau: float, when: dt.datetime | None = None
) -> Rating:
    """Glickman's update of one player over one rating period against `(opponent, score)` results, with
    no bounds applied (scores 1, 0.5, 0). This is the bare library call: Glickman's worked example runs
    through it."""
    out = update_rating(
        rating_to_mu(player.rating),
        rd_to_phi(player.deviation),
        player.volatility,
        [(rating_to_mu(o.rating), rd_to_phi(o.deviation), score) for o, score in results],
        tau,
    )
    return Rating(mu_to_rating(out.mu), phi_to_rd(out.phi), out.sigma, when)


class Rated(NamedTuple):
    """A player's figures after a match, and the deviation the match was rated with."""

    rating: Rating
    deviation_before: float


def rate_match(a: Rating, b: Rating, score_a: float, when: dt.datetime, params: Params = PARAMS) -> tuple[Rated, Rated]:
    """Both players' figures after a match that ended at `when` (`score_a`: 1 a won, 0.5 a draw, 0 b won)."""
    if score_a not in (0.0, 0.5, 1.0):
        raise ValueError(f"a score is 1, 0.5 or 0, not {score_a!r}")
    dev_a, dev_b = deviation_at(a, when, params), deviation_at(b, when, params)
    (ra, da, va), (rb, db, vb) = rate_pair(
        a.rating, dev_a, a.volatility, b.rating, dev_b, b.volatility, score_a, params
    )
    return Rated(Rating(ra, da, va, when), dev_a), Rated(Rating(rb, db, vb, when), dev_b)


Figures3 = tuple[float, float, float]
"""(rating, deviation, volatility)."""


def rate_pair(
    rating_a: float,
    deviation_a: float,
    volatility_a: float,
    rating_b: float,
    deviation_b: float,
    volatility_b: float,
    score_a: float,
    params: Params = PARAMS,
) -> tuple[Figures3, Figures3]:
    """`rate_match` on bare figures, the deviations already grown to the match's time (`grown_deviation`):
    both players' (rating, deviation, volatility) after it, bounds applied. The one place the library is
    called for a match, so a rebuild and the match-by-match updates make the very same figures."""
    mu_a, phi_a = rating_to_mu(rating_a), rd_to_phi(deviation_a)
    mu_b, phi_b = rating_to_mu(rating_b), rd_to_phi(deviation_b)
    new_a = update_rating(mu_a, phi_a, volatility_a, [(mu_b, phi_b, score_a)], params.tau)
    new_b = update_rating(mu_b, phi_b, volatility_b, [(mu_a, phi_a, 1.0 - score_a)], params.tau)
    return (
        _bounded(rating_a, mu_to_rating(new_a.mu), phi_to_rd(new_a.phi), new_a.sigma, params),
        _bounded(rating_b, mu_to_rating(new_b.mu), phi_to_rd(new_b.phi), new_b.sigma, params),
    )


def _bounded(before: float, rating: float, deviation: float, volatility: float, params: Params) -> Figures3:
    change = _clamp(rating - before, -params.max_change, params.max_change)
    return (
        before + change,
        _clamp(deviation, params.min_deviation, params.max_deviation),
        min(volatility, params.max_volatility),
    )
