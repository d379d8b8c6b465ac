"""Verdict scales that fit each game (issue 49): Dots and Dot Dash moves are judged by the win chance they give
away, so a one-dot loss in an open Dots game is no mistake, and a game between the `hard` and `easy` practice
levels reads as such: several kinds of verdict, and the hard side mostly best or good."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from games import registry
from games.analysis import VERDICTS, by_win_chance, judge_engine, value_scale, win_chance
from tests import DATA

GAMES = json.loads((DATA / "analysis" / "dots-8x8-hard-easy.json").read_text(encoding="utf-8"))["games"]
LIGHT = {"nodes": 1_000, "max_depth": 4}
"""A lighter engine than the background analysis' (`ENGINE_NODES`, `ENGINE_DEPTH`) for the quick run: the
scale is what is tested; the slow test runs the analysis' own engine."""


def _verdicts(game: dict[str, Any], **engine: Any) -> list[tuple[int, str]]:
    ruleset = registry.get("dots")
    state = ruleset.new_game(ruleset.parse_options({"width": 8, "height": 8}))
    out = []
    for text in game["moves"]:
        seat = ruleset.to_move(state)
        move = ruleset.parse(state, text, seat)
        judged = judge_engine(ruleset, state, move, **engine)
        assert judged.analysed and judged.verdict in VERDICTS
        out.append((seat, judged.verdict))
        state, _events = ruleset.apply(state, move)
    assert state.reason  # the stored game is played to its end
    return out


def _check(game: dict[str, Any], verdicts: list[tuple[int, str]]) -> None:
    assert len({v for _s, v in verdicts}) >= 3, Counter(v for _s, v in verdicts)
    hard = [v for s, v in verdicts if s == game["hard"]]
    bad = sum(1 for v in hard if v in ("mistake", "blunder"))
    assert bad <= 0.4 * len(hard), Counter(hard)


@pytest.mark.parametrize("game", GAMES, ids=[f"seed-{g['seed']}" for g in GAMES])
def test_hard_against_easy_reads_as_such(game: dict[str, Any]) -> None:
    _check(game, _verdicts(game, **LIGHT))


@pytest.mark.slow
def test_hard_against_easy_with_the_analysis_engine() -> None:
    game = GAMES[0]
    _check(game, _verdicts(game))


def test_every_class_occurs_on_the_dots_scale() -> None:
    scale = value_scale("dots", 8, 8)
    assert scale == pytest.approx(25.0)
    dot = 10.0
    assert by_win_chance(0.0, 0.0, scale) == "best"
    assert by_win_chance(0.3 * 3, 0.0, scale) == "good"  # three dots' worth of pressure
    assert by_win_chance(dot, 0.0, scale) == "inaccuracy"  # one dot in an even game
    assert by_win_chance(dot, -dot, scale) == "mistake"  # two dots
    assert by_win_chance(2 * dot, -dot, scale) == "blunder"  # three dots
    assert by_win_chance(6 * dot, 5 * dot, scale) == "good"  # one dot, five dots up
    assert by_win_chance(1_000_000.0, 0.0, scale) == "blunder"  # a win missed
    # A larger field: one dot matters less.
    assert value_scale("dots", 39, 32) > 4 * scale
    assert by_win_chance(dot, 0.0, value_scale("dots", 39, 32)) == "good"


def test_win_chance_is_bounded_and_even_at_zero() -> None:
    for scale in (value_scale("dots", 8, 8), value_scale("dotdash"), value_scale("boxes"), value_scale("trax")):
        assert win_chance(0.0, scale) == 50.0
        assert 99.9 < win_chance(1e9, scale) <= 100.0 and 0.0 <= win_chance(-1e9, scale) < 0.1
        assert win_chance(1.0, scale) > 50.0 > win_chance(-1.0, scale)
