"""Practice opponents for every game, at levels from `random` to `hard` (pure, seeded, budgeted).

`choose_move(game, state, level, seed=..., budget_seconds=..., nodes=...)` returns the move text the
opponent plays for the seat to act, in the game's notation. The budget is wall-clock seconds (play)
or, with `nodes`, a count of positions searched: the same move for a seed on any machine, however
busy (tests and reproducible duels use it). Levels:

- `random`: any legal move (Dots never stops; Dot Dash avoids slides that lose by shifting).
- `easy`: takes a win in one, otherwise the best-looking move one ply ahead, with some noise.
- `medium`: two plies (its move and the reply), so it sees the opponent's immediate threats.
  In Dots it checks the replies only to the seven moves that look best one ply ahead (with
  `easy`'s noise), which leaves room below `hard` (a full two-ply search at least).
- `hard`: deepens the search one ply at a time while its budget lasts (default 2 s).
  In Trax it first spends up to 30 % of the budget looking for a move that wins next turn whatever
  the reply (`trax.unstoppable`: threats no nearby reply stops, double threats), and keeps 30 % at
  the end to check its best moves against the same from the opponent, playing the best one not
  refuted.
- Boxes keeps the solver's levels (`easy`, `medium`, `perfect`; `hard` is `perfect`).

Duties outside the ordinary turn are moves of the engines too (Dot Dash colour choice, Pathing penalty
pick) and go through the same search; the Dot Dash opening placement is drawn from the engine's
central sample.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games import registry
from games.base import AnyRuleset
from games.opponents import dotdash, dots, pathing, trax
from games.opponents.search import Budget, Candidates, Profile, all_moves, best_move

DEFAULT_BUDGET = 2.0
BASE_LEVELS = ("random", "easy", "medium", "hard")
LEVELS: dict[str, tuple[str, ...]] = {
    "trax": BASE_LEVELS,
    "dots": BASE_LEVELS,
    "dotdash": BASE_LEVELS,
    "pathing": BASE_LEVELS,
    "boxes": (*BASE_LEVELS, "perfect"),
}

PROFILES: dict[str, Profile] = {
    "trax": trax.PROFILE,
    "dots": Profile(
        evaluate=dots.evaluate,
        candidates=dots.candidates,
        beam=8,
        depth={"hard": 4},
        noise=0.5,
        root_all=False,
        depth_step=2,
        deeper_margin=3 * dots.CAPTURE,
        medium_roots=7,
    ),
    "dotdash": Profile(evaluate=dotdash.evaluate, candidates=dotdash.candidates, beam=10, depth={"hard": 5}, noise=1.5),
    "pathing": Profile(evaluate=pathing.evaluate, beam=12, depth={"hard": 10}, noise=1.0),
}
RANDOM_MOVES: dict[str, Candidates] = {"dots": dots.random_moves, "dotdash": dotdash.random_moves}


class NoMoveError(ValueError):
    """The game is over, or the seat to act has no move."""


def check_level(game: str, level: str) -> str:
    """The level in canonical form, or a ValueError naming the levels of `game`."""
    key = level.strip().lower()
    levels = LEVELS.get(game, BASE_LEVELS)
    if key not in levels:
        raise ValueError(f"unknown level {level!r} for {game}; levels: {', '.join(levels)}")
    return key


def uses_solver(game: str, level: str) -> bool:
    """Whether the opponent at `level` searches with the compiled Boxes solver (`games.solver`), whose one-time
    build (seconds, once per machine) a host makes ready before any clock runs."""
    return game == "boxes" and check_level(game, level) in ("hard", "perfect")


def pick(
    ruleset: AnyRuleset,
    state: Any,
    level: str,
    rng: random.Random,
    budget_seconds: float = DEFAULT_BUDGET,
    avoid: Sequence[Any] = (),
    *,
    nodes: int | None = None,
) -> Any:
    """The move (an engine move value) `level` plays for the seat to act, other than those in
    `avoid` when there is another (the practice bot avoids the move that lost before its mulligan).
    With `nodes` the search is bounded by that much work instead of `budget_seconds` of wall time."""
    level = check_level(ruleset.id, level)
    if ruleset.to_move(state) is None:
        raise NoMoveError("the game is over")
    if nodes is not None and nodes < 1:
        raise ValueError("nodes must be positive")
    if ruleset.id == "boxes":
        return _boxes(ruleset, state, level, rng, budget_seconds, nodes)
    if level == "random":
        moves = RANDOM_MOVES.get(ruleset.id, all_moves)(ruleset, state)
        moves = [m for m in moves if m not in avoid] or moves
        if not moves:
            raise NoMoveError("no legal move")
        return moves[rng.randrange(len(moves))]
    if ruleset.id == "dotdash" and state.phase == "setup":
        return dotdash.setup(ruleset, state, rng)
    profile = PROFILES[ruleset.id]
    try:
        return best_move(ruleset, profile, state, level, rng, Budget(budget_seconds, nodes), avoid)
    except ValueError as exc:
        raise NoMoveError(str(exc)) from None


def _boxes(ruleset: AnyRuleset, state: Any, level: str, rng: random.Random, budget: float, nodes: int | None) -> Any:
    moves = ruleset.legal_moves(state)
    if not moves:
        raise NoMoveError("no legal move")
    if level == "random":
        return moves[rng.randrange(len(moves))]
    from games.solver.play import choose_move as solver_move

    return solver_move(state, "perfect" if level == "hard" else level, rng, budget, nodes=nodes)


def choose_move(
    ruleset_id: str,
    state: Any,
    level: str,
    *,
    seed: int | None = None,
    rng: random.Random | None = None,
    budget_seconds: float = DEFAULT_BUDGET,
    nodes: int | None = None,
) -> str:
    """The move text the opponent at `level` plays for the seat to act in `state` (within `nodes`
    units of work instead of `budget_seconds` when it is set)."""
    ruleset = registry.get(ruleset_id)
    move = pick(ruleset, state, level, rng or random.Random(seed), budget_seconds, nodes=nodes)
    return ruleset.format(state, move)
