"""The rating arithmetic: Glickman's worked example through the library, and the lichess-like bounds."""

from __future__ import annotations

import datetime as dt
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.ratings.glicko import PARAMS, Rating, deviation_at, is_provisional, rate_match, rate_period

DATA = Path(__file__).resolve().parents[2] / "data" / "ratings"
T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def test_glickmans_worked_example() -> None:
    case = json.loads((DATA / "glickman.json").read_text())
    p = case["player"]
    results = [(Rating(r["rating"], r["deviation"], 0.06), float(r["score"])) for r in case["results"]]
    after = rate_period(Rating(p["rating"], p["deviation"], p["volatility"]), results, case["tau"])
    want, tol = case["expected"], case["tolerance"]
    assert after.rating == pytest.approx(want["rating"], abs=tol["rating"])
    assert after.deviation == pytest.approx(want["deviation"], abs=tol["deviation"])
    assert after.volatility == pytest.approx(want["volatility"], abs=tol["volatility"])


def test_the_volatility_update_does_not_depend_on_where_the_scale_starts() -> None:
    """Glicko-2 only sees rating differences: the example moved up by 700 points gives the same figures
    moved up by 700 (a library that confused the rating with the deviation in step 5 would not)."""
    shifted = [(Rating(r + 700, d, 0.06), s) for r, d, s in ((1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0))]
    base = [(Rating(r - 700, o.deviation, 0.06), s) for (o, s), r in zip(shifted, (2100, 2250, 2400), strict=True)]
    high = rate_period(Rating(2200, 200, 0.06), shifted, 0.5)
    low = rate_period(Rating(1500, 200, 0.06), base, 0.5)
    assert high.rating - 700 == pytest.approx(low.rating, abs=1e-9)
    assert high.deviation == pytest.approx(low.deviation, abs=1e-9)
    assert high.volatility == pytest.approx(low.volatility, abs=1e-12)


def test_a_new_player_starts_provisional_at_1500_and_500() -> None:
    new = Rating.new()
    assert (new.rating, new.deviation) == (1500.0, 500.0)
    assert is_provisional(new.deviation, 0)
    assert is_provisional(110.0, 0) and not is_provisional(109.9, 0)


def test_provisional_until_the_deviation_falls_below_110() -> None:
    a, b = Rating.new(), Rating.new()
    deviations = []
    for i in range(60):
        a, b = (r.rating for r in rate_match(a, b, 1.0 if i % 2 else 0.0, T0 + dt.timedelta(hours=i)))
        deviations.append(a.deviation)
    assert is_provisional(deviations[0], 1) and not is_provisional(deviations[-1], 1)
    assert all(x >= y for x, y in itertools.pairwise(deviations))  # steady play: it only shrinks
    assert min(deviations) >= PARAMS.min_deviation


def test_the_deviation_grows_with_inactivity_up_to_500() -> None:
    a, b = Rating.new(), Rating.new()
    for i in range(40):
        a, b = (r.rating for r in rate_match(a, b, 0.5, T0 + dt.timedelta(hours=i)))
    last = a.at
    assert last is not None
    now = deviation_at(a, last)
    month = deviation_at(a, last + dt.timedelta(days=30))
    year = deviation_at(a, last + dt.timedelta(days=365))
    assert now == pytest.approx(a.deviation)
    assert now < month < year <= PARAMS.max_deviation
    assert deviation_at(a, last + dt.timedelta(days=365 * 200)) == PARAMS.max_deviation
    # and the next match is rated with the grown deviation: a win after a year moves the rating further
    c, d = Rating(a.rating, a.deviation, a.volatility, last), Rating(b.rating, b.deviation, b.volatility, last)
    soon = rate_match(c, d, 1.0, last + dt.timedelta(hours=1))[0].rating
    late = rate_match(c, d, 1.0, last + dt.timedelta(days=365))[0].rating
    assert late.rating - c.rating > soon.rating - c.rating > 0


def test_a_draw_between_equals_changes_no_rating_and_narrows_both() -> None:
    a, b = (r.rating for r in rate_match(Rating.new(), Rating.new(), 0.5, T0))
    assert a.rating == pytest.approx(1500.0) and b.rating == pytest.approx(1500.0)
    assert a.deviation < 500.0 and b.deviation < 500.0


def test_a_draw_moves_the_higher_rated_player_down() -> None:
    strong = Rating(1800.0, 80.0, 0.06, T0)
    weak = Rating(1500.0, 80.0, 0.06, T0)
    s, w = (r.rating for r in rate_match(strong, weak, 0.5, T0 + dt.timedelta(hours=1)))
    assert s.rating < 1800.0 < w.rating + 300.0 and w.rating > 1500.0


def test_a_score_is_1_half_or_0() -> None:
    with pytest.raises(ValueError, match="score"):
        rate_match(Rating.new(), Rating.new(), 0.7, T0)


@given(
    st.floats(800, 2800),
    st.floats(45, 500),
    st.floats(800, 2800),
    st.floats(45, 500),
    st.sampled_from([0.0, 0.5, 1.0]),
    st.floats(0, 3000),
)
def test_bounds_hold_for_any_match(ra: float, da: float, rb: float, db: float, score: float, days: float) -> None:
    a = Rating(ra, da, 0.09, T0)
    b = Rating(rb, db, 0.09, T0)
    for before, after, s in zip(
        (a, b),
        (r.rating for r in rate_match(a, b, score, T0 + dt.timedelta(days=days))),
        (score, 1 - score),
        strict=True,
    ):
        assert PARAMS.min_deviation <= after.deviation <= PARAMS.max_deviation
        assert after.volatility <= PARAMS.max_volatility
        assert abs(after.rating - before.rating) <= PARAMS.max_change
        if s == 1.0:
            assert after.rating >= before.rating
        elif s == 0.0:
            assert after.rating <= before.rating
