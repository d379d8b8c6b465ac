"""Simulated players for the coaching tests: practice levels (and a solver user) playing whole matches
through the real host service, each match analysed and stored as the analysis worker would."""

from __future__ import annotations

import random
from typing import Any

from bot.host.service import MatchService, PlayerRef
from bot.records.analysis import analyse_match
from bot.records.analysis_store import save_analysis
from games import registry
from games.opponents import choose_move

NODES = 400
"""Work per practice move: the same moves for a seed on any machine."""


def solver_move(game: str, state: Any) -> str:
    """A player who copies the solver: always an optimal move (Boxes)."""
    from games.solver import solve

    ruleset = registry.get(game)
    res = solve(state.rows, state.cols, state.drawn)
    return ruleset.format(state, res.best[0])


def move_of(game: str, state: Any, level: str, rng: random.Random) -> str:
    if level == "solver":
        return solver_move(game, state)
    return choose_move(game, state, level, rng=rng, nodes=NODES)


async def play(
    service: MatchService,
    game: str,
    options: dict[str, Any],
    players: list[tuple[str, str, str]],
    seed: int,
    *,
    rated: bool = True,
    guild_id: int | None = None,
) -> int:
    """A finished, analysed match between `players` ((id, name, level) per seat); returns its id."""
    refs = [PlayerRef(pid, name) for pid, name, _level in players]
    rules: dict[str, Any] = {"takeback": 0}
    mid = await service.create_match(game, refs, options=options, rules=rules, guild_id=guild_id, rated=rated)
    live = service.get(mid)
    rng = random.Random(seed)
    while (seat := live.ruleset.to_move(live.state)) is not None:
        text = move_of(game, live.state, players[seat - 1][2], rng)
        outcome = await service.submit(mid, live.players[seat].id, text)
        assert outcome.status == "accepted", (text, outcome)
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    await save_analysis(service.store, mid, analyse_match(stored))
    return mid
