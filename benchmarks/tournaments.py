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
    if not quick:
        got = practice_swiss()
        ok = got["finished"] == 1.0 and got["timeouts"] == 0.0
        rows.append(
            (
                "64-player Swiss, 6 rounds, every match played by practice bots at once (one process, SQLite)",
                f"{got['matches']:.0f} matches in {got['wall']:.1f} s, {got['timeouts']:.0f} lost on time",
                "finishes, no clock missed",
                ok,
            )
        )
    return rows


if __name__ == "__main__":
    for measure, figure, target, ok in table_rows(False):
        print(f"{measure}: {figure} (target {target}) {'PASS' if ok else 'FAIL'}")


def practice_swiss(players: int = 64, rounds: int = 6, level: str = "random") -> dict[str, float]:
    """A whole Swiss on one process: practice bots play every match of each round at once (3×3 Boxes, the
    default clock), on a SQLite file. Returns wall seconds, matches, and how many ended on time (none should)."""
    import asyncio
    import os
    import tempfile

    from bot.host.service import MatchService
    from bot.store.db import sqlite_url_for
    from bot.store.matches import MatchStore
    from bot.tournaments.service import TournamentService
    from bot.tournaments.terminal import play_out

    async def run() -> dict[str, float]:
        with tempfile.TemporaryDirectory() as tmp:
            store = MatchStore(sqlite_url_for(os.path.join(tmp, "t.db")))
            host = MatchService(store, heartbeat_seconds=5.0)
            await host.start()
            timeouts = 0

            def count(ev: object) -> None:
                nonlocal timeouts
                data = getattr(ev, "data", {})
                if getattr(ev, "kind", "") == "finished" and data.get("reason") == "timeout":
                    timeouts += 1

            host.subscribe(count)
            service = TournamentService(host)
            await service.start()
            tid = await service.create("bench", "boxes", "swiss", rounds=rounds, options={"rows": 3, "cols": 3})
            for i in range(players):
                await service.join(tid, f"p{i}", f"p{i}")
            t0 = time.perf_counter()
            await service.start_tournament(tid)
            await play_out(service, tid, level, timeout=1800)
            wall = time.perf_counter() - t0
            t = await service.get(tid)
            games = [g for g in await service.games(tid) if g.match_id]
            await host.close()
            await store.close()
            return {
                "wall": wall,
                "matches": float(len(games)),
                "timeouts": float(timeouts),
                "finished": float(t.status == "finished"),
            }

    return asyncio.run(run())
