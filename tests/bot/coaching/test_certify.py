"""Certifying by exhaustive search (Dots): exactly one decisive move, every other failing it; the stored verdict
decides which positions are candidates."""

from __future__ import annotations

from typing import Any

from bot.coaching.certify import certify, check, search_values
from games import registry

DOTS = {"width": 6, "height": 6, "start": "empty"}


def _dots(moves: list[str]) -> Any:
    ruleset = registry.get("dots")
    state = ruleset.new_game(ruleset.parse_options(DOTS))
    for text in moves:
        state, _ev = ruleset.apply(state, ruleset.parse(state, text))
    return state


def test_the_one_capturing_move_is_a_certified_puzzle() -> None:
    ruleset = registry.get("dots")
    # Red surrounds blue's C3 on three sides; only C4 closes the ring.
    state = _dots(["B3", "C3", "C2", "F6", "D3", "A6"])
    values = search_values("dots", ruleset, state)
    assert values["C4"] >= 1 and all(v < 1 for m, v in values.items() if m != "C4")
    draft = certify("dots", ruleset, state, 6, {"analysed": True, "verdict": "blunder", "move": "E5"})
    assert draft is not None and draft.answer == ["C4"] and draft.seat == 1
    assert draft.proof["depth"] == 1 and draft.proof["moves"] == len(values)
    assert draft.proof["played"] == "E5" and draft.proof["played_value"] == 0.0
    assert check("dots", ruleset, state, "C4") and not check("dots", ruleset, state, "E5")


def test_no_puzzle_where_the_move_was_not_an_error_or_the_answer_was_played_or_is_not_alone() -> None:
    ruleset = registry.get("dots")
    state = _dots(["B3", "C3", "C2", "F6", "D3", "A6"])
    assert certify("dots", ruleset, state, 6, {"analysed": True, "verdict": "good", "move": "E5"}) is None
    assert certify("dots", ruleset, state, 6, {"analysed": False, "verdict": None, "move": "E5"}) is None
    assert certify("dots", ruleset, state, 6, {"analysed": True, "verdict": "mistake", "move": "C4"}) is None
    # Two separate rings to close: two decisive moves, no certified puzzle.
    two = _dots(["B3", "C3", "C2", "F6", "D3", "E2", "D1", "F1", "E3", "A6", "F2", "A5"])
    decisive = [m for m, v in search_values("dots", ruleset, two).items() if v >= 1]
    assert len(decisive) >= 2
    assert certify("dots", ruleset, two, 12, {"analysed": True, "verdict": "blunder", "move": "A1"}) is None


def test_trax_placements_that_force_the_same_tiles_are_one_move() -> None:
    import random

    from bot.coaching.certify import decisive_moves

    ruleset = registry.get("trax")
    found = None
    for seed in range(40):
        rng = random.Random(seed)
        state = ruleset.new_game(ruleset.parse_options({}))
        while ruleset.to_move(state) is not None and found is None:
            groups = decisive_moves("trax", ruleset, state)
            if len(groups) == 1 and len(groups[0]) > 1:
                found = state, groups[0]
                break
            state, _ev = ruleset.apply(state, rng.choice(ruleset.legal_moves(state)))
        if found is not None:
            break
    assert found is not None, "a random Trax game offers a win at once by two placements"
    state, group = found
    other = next(ruleset.format(state, m) for m in ruleset.legal_moves(state) if ruleset.format(state, m) not in group)
    draft = certify("trax", ruleset, state, 9, {"analysed": True, "verdict": "blunder", "move": other})
    assert draft is not None and draft.answer == group[:1] and draft.proof["same_as"] == group[1:]
    assert draft.proof["decisive"] == "wins at once" and draft.value == 1000.0
    assert check("trax", ruleset, state, group[0])
    assert certify("trax", ruleset, state, 9, {"analysed": True, "verdict": "blunder", "move": group[1]}) is None
