from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.coords import col_to_letters, find_points, letters_to_col, parse_point, point_name


@pytest.mark.parametrize(
    ("col", "letters"),
    [(0, "A"), (25, "Z"), (26, "AA"), (27, "AB"), (51, "AZ"), (52, "BA"), (701, "ZZ"), (702, "AAA")],
)
def test_bijective_base26(col: int, letters: str) -> None:
    assert col_to_letters(col) == letters
    assert letters_to_col(letters) == col
    assert letters_to_col(letters.lower()) == col


@given(st.integers(min_value=0, max_value=20_000))
def test_columns_round_trip(col: int) -> None:
    assert letters_to_col(col_to_letters(col)) == col


def test_points() -> None:
    assert parse_point("b7") == (1, 6)
    assert parse_point(" AA 12 ") == (26, 11)
    assert point_name(26, 31) == "AA32"
    for bad in ["A0", "7B", "", "A", "A-1"]:
        with pytest.raises(ValueError):
            parse_point(bad)
    assert find_points("Swap A4 and b4") == [(0, 3), (1, 3)]
    assert find_points("swap a4b4") == [(0, 3), (1, 3)]
    assert find_points("A10") == [(0, 9)]
