"""Shared behaviour proven once over the registry: random playouts with round-trips at every ply.

Each game lists the options it is played with in tests/data/conformance/<game>.json.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games import registry
from games.base import AnyRuleset, MoveError, Termination, play_text
from tests import DATA as TEST_DATA
from tests import seed_note, seeds

DATA = TEST_DATA / "conformance"


def _cases() -> list[Any]:
    out = []
    for game in registry.GAME_MODULES:
        spec_file = DATA / f"{game}.json"
        assert spec_file.exists(), f"game {game} has no conformance spec"
        spec = json.loads(spec_file.read_text())
        for i, opts in enumerate(spec["options"]):
            out.append(pytest.param(game, opts, spec["games_per_option"], spec["max_plies"], id=f"{game}-{i}"))
    return out


def _playout(ruleset: AnyRuleset, opts: dict[str, Any], seed: int, max_plies: int) -> None:
    rng = random.Random(seed)
    state = ruleset.new_game(ruleset.parse_options(opts))
    for _ply in range(max_plies):
        # JSON round-trip through real text at every ply.
        blob = json.dumps(ruleset.to_json(state))
        assert ruleset.to_json(ruleset.from_json(json.loads(blob))) == ruleset.to_json(state)
        text = ruleset.render_text(state)
        assert isinstance(text, str) and text
        outcome = ruleset.outcome(state)
        seat = ruleset.to_move(state)
        assert (outcome is None) == (seat is not None), "to_move is None exactly when finished"
        if outcome is not None:
            assert outcome.winner in (None, 1, 2)
            assert isinstance(outcome.termination, Termination)
            assert outcome.reason == outcome.termination.value
            assert ruleset.legal_moves(state) == []
            return
        moves = ruleset.legal_moves(state)
        assert moves, "an ongoing game has a legal move"
        move = rng.choice(moves)
        notation = ruleset.format(state, move)
        assert ruleset.parse(state, notation) == move, f"parse(format(m)) != m for {notation!r}"
        new_state, move2, events = play_text(ruleset, state, notation)
        assert move2 == move
        assert events and events[0].kind == "move"
        state = new_state
    # Games that may run long stop at max_plies; that is fine, the checks above ran.


@pytest.mark.parametrize(("game", "opts", "games", "max_plies"), _cases())
def test_random_playouts(game: str, opts: dict[str, Any], games: int, max_plies: int) -> None:
    ruleset = registry.get(game)
    for seed in seeds(0, games):
        with seed_note(seed):
            _playout(ruleset, opts, seed, max_plies)


@pytest.mark.parametrize("game", registry.ids())
def test_garbage_is_a_syntax_error(game: str) -> None:
    ruleset = registry.get(game)
    state = ruleset.new_game(ruleset.parse_options({}))
    for text in ["", "hello there", "\x00\x01\x02", "🙂" * 50, "x" * 10_000]:
        with pytest.raises(MoveError) as info:
            play_text(ruleset, state, text)
        assert info.value.kind == "syntax"
        assert len(str(info.value)) < 200


def test_registry_knows_all_five_games() -> None:
    assert set(registry.GAME_MODULES) == {"boxes", "pathing", "trax", "dots", "dotdash"}
    with pytest.raises(registry.UnknownGameError):
        registry.get("chess")
