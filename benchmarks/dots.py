"""Random full Dots games on the default 39×32 field: engine speed in moves per second.

Run: `python -m benchmarks.dots [games]`. Target: at least 10,000 moves/s in CPython.
Moves are drawn uniformly from the empty live points (kept in a list beside the game, so the
figure measures `apply`, captures included, not the listing of legal moves); `stop` is not played.
A second figure times the same games driven through `legal_moves` + `apply`.
"""

from __future__ import annotations

import random
import sys
import time

from games.dots import RULESET as R
from games.dots import DotsState

TARGET = 10_000


def random_game(seed: int, width: int = 39, height: int = 32) -> tuple[int, DotsState]:
    """Play one random game to a full field; returns (moves, final state)."""
    rng = random.Random(seed)
    state = R.new_game(R.parse_options({"width": width, "height": height}))
    free = [i for i in state.geo.points if state.board[i] == 0]
    moves = 0
    while state.reason == "":
        while True:
            k = rng.randrange(len(free))
            idx = free[k]
            free[k] = free[-1]
            free.pop()
            if state.board[idx] == 0:
                break
        state, _ = R.apply(state, (state.turn, idx))
        moves += 1
    return moves, state


def via_legal_moves(seed: int) -> int:
    """One random game choosing among `legal_moves` without `stop`; returns the move count."""
    rng = random.Random(seed)
    state = R.new_game(R.parse_options({}))
    moves = 0
    while state.reason == "":
        legal = R.legal_moves(state)
        state, _ = R.apply(state, legal[rng.randrange(len(legal) - 1)])
        moves += 1
    return moves


def main(argv: list[str]) -> int:
    """Print the measured figures against the target."""
    games = int(argv[0]) if argv else 20
    total = 0
    caps = 0
    t0 = time.perf_counter()
    for seed in range(games):
        n, state = random_game(seed)
        total += n
        caps += sum(state.caps)
    dt = time.perf_counter() - t0
    rate = total / dt
    print(f"dots apply: {games} random games on 39x32, {total} moves, {caps} dots captured, {dt:.2f} s")
    print(f"  {rate:,.0f} moves/s (target {TARGET:,}) -> {'OK' if rate >= TARGET else 'BELOW TARGET'}")
    t0 = time.perf_counter()
    total = sum(via_legal_moves(seed) for seed in range(max(1, games // 4)))
    dt = time.perf_counter() - t0
    print(f"  through legal_moves + apply: {total / dt:,.0f} moves/s")
    return 0 if rate >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
