"""When a rating stops being provisional (issue 37: two members who had played each other 14 times still
showed `?`). The bot's figures for that series equal Glickman's steps worked by hand (`glicko_by_hand`) and
the recorded expectation (`tests/data/ratings/fourteen_games.json`); lichess's line (deviation 110) alone
would still call both provisional after 14 games, so the tenth rated game ends it."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from bot.ratings.glicko import PARAMS, Rating, is_provisional, rate_match
from tests.bot.ratings.glicko_by_hand import bounded, grown, one_game

CASE = json.loads((Path(__file__).resolve().parents[2] / "data" / "ratings" / "fourteen_games.json").read_text())
T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def test_the_constants_are_lichesss() -> None:
    start, bounds = CASE["start"], CASE["bounds"]
    assert (PARAMS.start_rating, PARAMS.start_deviation, PARAMS.start_volatility) == (
        start["rating"],
        start["deviation"],
        start["volatility"],
    )
    assert (PARAMS.tau, PARAMS.periods_per_day) == (CASE["tau"], CASE["periods_per_day"])
    assert (PARAMS.min_deviation, PARAMS.max_deviation, PARAMS.max_volatility, PARAMS.max_change) == (
        bounds["min_deviation"],
        bounds["max_deviation"],
        bounds["max_volatility"],
        bounds["max_change"],
    )
    assert PARAMS.provisional_from == 110.0  # lichess: provisional while the deviation is 110 or more


def _series() -> list[tuple[Rating, Rating]]:
    a, b = Rating.new(), Rating.new()
    out = []
    for i, score in enumerate(CASE["scores"]):
        ra, rb = rate_match(a, b, float(score), T0 + dt.timedelta(hours=CASE["hours_apart"] * i))
        a, b = ra.rating, rb.rating
        out.append((a, b))
    return out


def test_fourteen_games_rated_as_glickmans_steps_say() -> None:
    a = b = (CASE["start"]["rating"], CASE["start"]["deviation"], CASE["start"]["volatility"])
    tol = CASE["tolerance"]
    for i, (score, (ours_a, ours_b), want) in enumerate(zip(CASE["scores"], _series(), CASE["expected"], strict=True)):
        days = 0.0 if i == 0 else CASE["hours_apart"] / 24  # since the previous game
        da, db = grown(a[1], a[2], days, CASE["periods_per_day"]), grown(b[1], b[2], days, CASE["periods_per_day"])
        a, b = (
            bounded(a[0], one_game((a[0], da, a[2]), (b[0], db), score, CASE["tau"]), CASE["bounds"]),
            bounded(b[0], one_game((b[0], db, b[2]), (a[0], da), 1 - score, CASE["tau"]), CASE["bounds"]),
        )
        for ours, by_hand, recorded in ((ours_a, a, want["a"]), (ours_b, b, want["b"])):
            # the library stops its volatility search at its own tolerance: agreement to a hundredth of a point
            assert ours.rating == pytest.approx(by_hand[0], abs=tol)
            assert ours.deviation == pytest.approx(by_hand[1], abs=tol)
            assert ours.volatility == pytest.approx(by_hand[2], abs=1e-5)
            assert [ours.rating, ours.deviation] == pytest.approx(recorded, abs=tol)


def test_after_fourteen_games_nobody_is_provisional_though_the_deviation_is_still_above_110() -> None:
    series = _series()
    for games, (a, b) in enumerate(series, start=1):
        settled = games >= PARAMS.settled_games
        assert is_provisional(a.deviation, games) is not settled
        assert is_provisional(b.deviation, games) is not settled
    last_a, last_b = series[-1]
    assert last_a.deviation >= PARAMS.provisional_from and last_b.deviation >= PARAMS.provisional_from
    assert not is_provisional(last_a.deviation, len(series)) and not is_provisional(last_b.deviation, len(series))


def test_a_settled_deviation_ends_it_before_ten_games_and_the_line_is_lichesss() -> None:
    assert is_provisional(110.0, 0) and not is_provisional(109.9, 0)
    assert is_provisional(500.0, PARAMS.settled_games - 1) and not is_provisional(500.0, PARAMS.settled_games)
