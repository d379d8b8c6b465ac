"""Per-game engine speed, the same way for every game in the registry.

- playout rate: random games with `legal_moves` + `apply` (moves/s);
- parse + apply latency: every move of random games written as text and read back through
  `play_text` (the path a player's message takes), p50 and p99 in microseconds.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

from games import registry
from games.base import play_text

# Options each game is measured with (the sizes the issues name).
OPTIONS: dict[str, dict[str, Any]] = {
    "boxes": {"rows": 3, "cols": 3},
    "pathing": {},
    "trax": {},
    "dots": {"width": 39, "height": 32},
    "dotdash": {"size": 13},
}
# Playout targets from the issues (moves/s); boxes' is "≤ 50 µs per move" on 3×3.
TARGETS: dict[str, float] = {"boxes": 20_000, "pathing": 20_000, "dots": 10_000, "dotdash": 5_000}
MAX_PLIES = 3000


@dataclass
class EngineFigures:
    """One game's measurements."""

    game: str
    moves_per_s: float
    cpu_moves_per_s: float
    p50_us: float
    p99_us: float


def _random_game(ruleset: Any, options: Any, rng: random.Random, *, setup_sample: int = 50) -> int:
    state = ruleset.new_game(options)
    n = 0
    while ruleset.to_move(state) is not None and n < MAX_PLIES:
        moves = ruleset.legal_moves(state)
        state, _ = ruleset.apply(state, rng.choice(moves))
        n += 1
    return n


def playout_rate(game: str, seconds: float) -> tuple[float, float]:
    """(wall, cpu) random-playout moves per second."""
    ruleset = registry.get(game)
    options = ruleset.parse_options(OPTIONS.get(game, {}))
    rng = random.Random(1)
    moves = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        moves += _random_game(ruleset, options, rng)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return moves / wall, moves / max(cpu, 1e-9)


def parse_apply_latency(game: str, plies: int) -> tuple[float, float]:
    """p50 and p99 (µs) of `play_text` over the moves of random games, as text."""
    ruleset = registry.get(game)
    options = ruleset.parse_options(OPTIONS.get(game, {}))
    rng = random.Random(2)
    samples: list[float] = []
    while len(samples) < plies:
        state = ruleset.new_game(options)
        n = 0
        while ruleset.to_move(state) is not None and len(samples) < plies and n < MAX_PLIES:
            text = ruleset.format(state, rng.choice(ruleset.legal_moves(state)))
            t0 = time.perf_counter()
            state, _move, _events = play_text(ruleset, state, text)
            samples.append((time.perf_counter() - t0) * 1e6)
            n += 1
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.99))]


def measure(game: str, seconds: float = 2.0, plies: int = 2000) -> EngineFigures:
    """All figures of one game."""
    wall, cpu = playout_rate(game, seconds)
    p50, p99 = parse_apply_latency(game, plies)
    return EngineFigures(game, wall, cpu, p50, p99)


def main(argv: list[str] | None = None) -> int:
    """Print one line per game."""
    args = sys.argv[1:] if argv is None else argv
    quick = "--quick" in args
    for game in registry.ids():
        f = measure(game, 0.5 if quick else 2.0, 300 if quick else 2000)
        target = TARGETS.get(game)
        mark = "" if target is None else (" PASS" if f.cpu_moves_per_s >= target else " FAIL")
        print(
            f"{game:8} playout {f.moves_per_s:10,.0f} moves/s (cpu {f.cpu_moves_per_s:,.0f}"
            f"{'' if target is None else f', target ≥ {target:,.0f}'}){mark}; "
            f"parse+apply p50 {f.p50_us:.0f} µs, p99 {f.p99_us:.0f} µs"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
