"""Tournament pairing speed: `python -m benchmarks.tournaments`.

Target (issue 31): pairing one round of a 256-player Swiss in ≤ 1 s. The figure is the slowest of
the rounds of a seeded 256-player, 8-round Swiss on random results (10 % draws), CPU time.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace

from bot.tournaments.pairing import swiss_round
from bot.tournaments.rounds import Game, Pairing, Result

TARGET_SECONDS = 1.0


def swiss_round_times(players: int, rounds: int, seed: int = 1) -> list[float]:
    """CPU seconds of pairing each round of a seeded Swiss on random results."""
    rng = random.Random(seed)
    field = list(range(1, players + 1))
    history: list[list[Pairing]] = []
    times = []
    for _ in range(rounds):
        t0 = time.process_time()
        pairings = swiss_round(field, history)
        times.append(time.process_time() - t0)
        played: list[Pairing] = []
        for p in pairings:
            if isinstance(p, Game):
                x = rng.random()
                p = replace(p, result=Result.DRAW if x < 0.1 else Result.WHITE if x < 0.55 else Result.BLACK)
            played.append(p)
        history.append(played)
    return times


def table_rows(quick: bool) -> list[tuple[str, str, str, bool | None]]:
    """(measure, figure, target, ok) rows for `python -m benchmarks`."""
    rows: list[tuple[str, str, str, bool | None]] = []
    for players in (256, 255):
        times = swiss_round_times(players, 4 if quick else 8)
        worst = max(times)
        rows.append(
            (
                f"pair a {players}-player Swiss round, slowest of {len(times)} (CPU)",
                f"{worst:.3f} s (mean {sum(times) / len(times):.3f} s)",
                f"≤ {TARGET_SECONDS:g} s",
                worst <= TARGET_SECONDS,
            )
        )
    return rows


if __name__ == "__main__":
    for measure, figure, target, ok in table_rows(False):
        print(f"{measure}: {figure} (target {target}) {'PASS' if ok else 'FAIL'}")
