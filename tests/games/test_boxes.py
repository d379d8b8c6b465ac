"""Dots-and-Boxes rules: properties on random games and a few hand-worked positions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import IllegalMoveError, MoveSyntaxError, OptionsError
from games.boxes import RULESET as R


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(min_value=1, max_value=5),
    cols=st.integers(min_value=1, max_value=5),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_random_game_properties(rows: int, cols: int, seed: int) -> None:
    rng = random.Random(seed)
    state = R.new_game(R.parse_options({"rows": rows, "cols": cols}))
    plies = 0
    while R.to_move(state) is not None:
        mover = R.to_move(state)
        before = R.scores(state)
        new, events = R.apply(state, rng.choice(R.legal_moves(state)))
        gained = R.scores(new)[mover] - before[mover]
        assert R.scores(new)[3 - mover] == before[3 - mover]
        if R.to_move(new) is not None:
            # A completing move keeps the turn; any other passes it.
            assert R.to_move(new) == (mover if gained else 3 - mover)
            assert any(e.kind == "extra_turn" for e in events) == bool(gained)
        assert gained in (0, 1, 2)
        state = new
        plies += 1
    assert plies == (rows + 1) * cols + rows * (cols + 1)
    assert sum(R.scores(state).values()) == rows * cols
    assert R.outcome(state) is not None


def test_options_validate_with_clear_errors() -> None:
    assert R.parse_options({"rows": "2", "cols": "5"}).cols == 5
    with pytest.raises(OptionsError, match="rows"):
        R.parse_options({"rows": 0})
    with pytest.raises(OptionsError, match="cols"):
        R.parse_options({"cols": 9})
    with pytest.raises(OptionsError, match="colour"):
        R.parse_options({"colour": "red"})


def test_errors_name_input_and_reason() -> None:
    state = R.new_game(R.parse_options({}))
    with pytest.raises(MoveSyntaxError, match="'A1': a move names two dots"):
        R.parse(state, "A1")
    with pytest.raises(IllegalMoveError, match="not adjacent"):
        R.parse(state, "A1 C3")
    assert isinstance(MoveSyntaxError("x", "y"), ValueError)


def test_render_shows_labels_edges_and_owners() -> None:
    state = R.new_game(R.parse_options({"rows": 1, "cols": 1}))
    for text in ["A1-B1", "A2-B2", "A1-A2", "B1-B2"]:
        state, _ = R.apply(state, R.parse(state, text))
    text = R.render_text(state)
    assert text.splitlines()[0].split() == ["A", "B"]
    assert "o---o" in text and "| 2 |" in text and "game over" in text
