"""Glickman's Glicko-2 steps written out from his paper (not through the library the bot uses), with the
lichess bounds the bot applies: the independent arithmetic the rating tests compare the bot's figures to."""

from __future__ import annotations

import math

SCALE = 173.7178
EPSILON = 1e-6


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5: the new volatility by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2.0
        big_b, fb = c, fc
    return math.exp(big_a / 2.0)


def one_game(
    me: tuple[float, float, float], other: tuple[float, float], score: float, tau: float
) -> tuple[float, float, float]:
    """Steps 2–8 for one game: (rating, deviation, volatility) after it, unbounded."""
    mu, phi, sigma = (me[0] - 1500.0) / SCALE, me[1] / SCALE, me[2]
    mu_j, phi_j = (other[0] - 1500.0) / SCALE, other[1] / SCALE
    g = _g(phi_j)
    e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
    v = 1.0 / (g * g * e * (1.0 - e))
    delta = v * g * (score - e)
    sigma2 = _volatility(delta, phi, v, sigma, tau)
    phi_star = math.sqrt(phi * phi + sigma2 * sigma2)
    phi2 = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu2 = mu + phi2 * phi2 * g * (score - e)
    return 1500.0 + SCALE * mu2, SCALE * phi2, sigma2


def grown(deviation: float, volatility: float, days: float, periods_per_day: float) -> float:
    """Step 6 over the fraction of rating periods since the last game (how the bot grows an idle deviation)."""
    phi = deviation / SCALE
    return SCALE * math.sqrt(phi * phi + days * periods_per_day * volatility * volatility)


def bounded(before: float, after: tuple[float, float, float], bounds: dict[str, float]) -> tuple[float, float, float]:
    """Lichess's bounds: a change of at most `max_change`, the deviation in its range, the volatility capped."""
    change = min(max(after[0] - before, -bounds["max_change"]), bounds["max_change"])
    deviation = min(max(after[1], bounds["min_deviation"]), bounds["max_deviation"])
    return before + change, deviation, min(after[2], bounds["max_volatility"])
