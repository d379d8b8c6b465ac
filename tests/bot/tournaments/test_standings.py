"""Standings and tie-breaks against hand-worked tables in tests/data/tournaments/standings.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.tournaments.rounds import Bye, Format, Game, Pairing, Result
from bot.tournaments.standings import standings

CASES = json.loads((Path(__file__).parents[2] / "data" / "tournaments" / "standings.json").read_text())["cases"]


def _pairing(row: list[Any]) -> Pairing:
    if row[0] == "bye":
        return Bye(int(row[1]), float(row[2]))
    return Game(int(row[0]), int(row[1]), Result(row[2]))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_standings(case: dict[str, Any]) -> None:
    rounds = [[_pairing(row) for row in rnd] for rnd in case["rounds"]]
    table = standings(case["players"], rounds, Format(case["format"]))
    assert [s.to_json() for s in table] == case["table"]
    assert [s.rank for s in table] == list(range(1, len(table) + 1))
