"""Pathing speed: random playouts through the public API (target ≥ 20,000 swaps/s in CPython).

Run as `python -m benchmarks.pathing [seconds]`. Each playout starts from a seed layout, then plays
uniformly random legal actions (`legal_moves` + `apply`, events and win checks included) until the
match ends. Swaps are counted as moves; the penalty picks are played but not counted.
"""

from __future__ import annotations

import random
import sys
import time

from games.pathing import PICK
from games.pathing import RULESET as R

TARGET = 20_000
LAYOUTS = {
    "empty": "..../..../..../....",
    "corners": "R..B/..../..../B..R",
    "chequer": "RBRB/BRBR/RBRB/BRBR",
}


def playout(layout: str, rng: random.Random) -> tuple[int, int, int]:
    """One random match; returns (swaps, picks, rounds)."""
    state = R.new_game(R.parse_options({"layout": layout}))
    swaps = picks = 0
    while not state.winner:
        move = rng.choice(R.legal_moves(state))
        state, _events = R.apply(state, move)
        if move < PICK:
            swaps += 1
        else:
            picks += 1
    return swaps, picks, state.round_no


def measure(layout: str, seconds: float) -> tuple[float, int, float]:
    """(swaps per second, matches played, mean rounds per match) over about `seconds`."""
    rng = random.Random(2024)
    swaps = games = rounds = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        s, _p, r = playout(layout, rng)
        swaps += s
        rounds += r
        games += 1
    elapsed = time.perf_counter() - start
    return swaps / elapsed, games, rounds / games


def main(argv: list[str]) -> int:
    """Print swaps/s per layout against the target; exit 1 if any falls short."""
    seconds = float(argv[0]) if argv else 2.0
    ok = True
    python = f"{sys.implementation.name} {sys.version.split()[0]}"
    print(f"Pathing random playouts, {python}, target {TARGET:,} swaps/s")
    for name, layout in LAYOUTS.items():
        rate, games, mean_rounds = measure(layout, seconds)
        verdict = "ok" if rate >= TARGET else "BELOW TARGET"
        ok &= rate >= TARGET
        print(f"  {name:<8} {rate:>10,.0f} swaps/s  ({games} matches, {mean_rounds:.1f} rounds each)  {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
