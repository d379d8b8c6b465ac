"""Dot Dash speed: random playouts on 13×13 through the public API (target ≥ 5,000 moves/s).

Run as `python -m benchmarks.dotdash [seconds]`. Each playout opens with a random setup anywhere on
the board, takes a random colour, then plays random legal slides (`legal_moves` + `apply`, with the
win checks `apply` does) until the game ends. Only the slides are counted as moves.
"""

from __future__ import annotations

import random
import sys
import time

from games.dotdash import RULESET as R
from games.dotdash import DotDashState, Setup, Take

TARGET = 5_000


def random_setup(state: DotDashState, rng: random.Random) -> Setup:
    """Three distinct random points, one colour single."""
    geo = state.geo
    points = rng.sample([geo.width * r + c for r in range(geo.size) for c in range(geo.size)], 3)
    single, pair = (points[0],), tuple(sorted(points[1:]))
    return Setup(single, pair) if rng.random() < 0.5 else Setup(pair, single)


def playout(options: dict[str, object], rng: random.Random) -> int:
    """One random game; returns the number of slides played."""
    state = R.new_game(R.parse_options(options))
    state, _ = R.apply(state, random_setup(state, rng))
    state, _ = R.apply(state, Take(rng.randrange(2)))
    moves = 0
    while state.reason is None:
        state, _ = R.apply(state, rng.choice(R.legal_moves(state)))
        moves += 1
    return moves


def measure(options: dict[str, object], seconds: float) -> tuple[float, float, int, int]:
    """(moves per wall second, moves per CPU second, moves, games) over about `seconds`.

    The CPU figure is what the code costs; the wall figure drops when the machine is busy.
    """
    rng = random.Random(1)
    moves = games = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        moves += playout(options, rng)
        games += 1
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    return moves / wall, moves / used, moves, games


def main() -> int:
    """Print the figures; exit 1 if the 13×13 standard figure misses the target."""
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    ok = True
    for options in (
        {"size": 13},
        {"size": 13, "variant": "frozen"},
        {"size": 13, "variant": "sacrificial"},
        {"size": 19},
    ):
        rate, cpu_rate, moves, games = measure(options, seconds)
        label = ", ".join(f"{k}={v}" for k, v in options.items())
        print(
            f"{label:<30} {rate:>7,.0f} moves/s wall, {cpu_rate:>7,.0f} per CPU second"
            f"  ({moves} moves in {games} games, {moves / games:.1f}/game)"
        )
        if options == {"size": 13}:
            ok = rate >= TARGET
            print(f"{'':<30} target {TARGET:,} moves/s: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
