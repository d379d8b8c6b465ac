"""The one result sentence (`bot.wording.result_sentence`), pinned by data: every way a game ends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.wording import result_sentence
from games.base import Termination

DATA = Path(__file__).parents[2] / "data/wording/results.jsonl"
CASES = [json.loads(line) for line in DATA.read_text().splitlines()]
NAMES = {1: "alice", 2: "bob"}


IDS = [f"{c['reason']}-{c['winner']}{'-pending' if c.get('pending') else ''}" for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_result_sentence(case: dict[str, object]) -> None:
    score = case["score"]
    pending = bool(case.get("pending"))
    said = result_sentence(case["reason"], case["winner"], NAMES, score=score, pending=pending)  # type: ignore[arg-type]
    assert said == case["says"]


def test_every_termination_has_its_own_words() -> None:
    said = {c["reason"] for c in CASES}
    assert {t.value for t in Termination} <= said


def test_a_seat_without_a_name_is_called_by_its_colour() -> None:
    colours = {1: "red", 2: "blue"}
    assert result_sentence(Termination.NO_MOVES, 2, {}, colours=colours) == "Blue wins: Red has no move"
