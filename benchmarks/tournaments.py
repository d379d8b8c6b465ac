"""Tournament pairing speed: `python -m benchmarks.tournaments`.

Target (issue 31): pairing one round of a 256-player Swiss in ≤ 1 s. The figure is the slowest of
the rounds of a seeded 256-player, 8-round Swiss on random results (10 % draws), CPU time.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Any

from bot.tournaments.pairing import swiss_round
from bot.tournaments.rounds import Game, Pairing, Result

TARGET_SECONDS = 1.0
LATE_MS = 50.0
"""A clock is missed when its timer fires more than this after the deadline (the soak's bound)."""


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
        ok = got["finished"] == 1.0 and got["timeouts"] == 0.0 and got["late_max_ms"] <= LATE_MS
        rows.append(
            (
                "64-player Swiss, 6 rounds, every match played by practice bots at once (one process, SQLite)",
                f"{got['matches']:.0f} matches in {got['wall']:.1f} s, {got['timeouts']:.0f} lost on time; "
                f"{got['firings']:.0f} timer firings, lateness p99 {got['late_p99_ms']:.1f} ms, "
                f"max {got['late_max_ms']:.1f} ms",
                f"finishes, no clock missed (every firing within {LATE_MS:g} ms)",
                ok,
            )
        )
    return rows


def practice_swiss(
    players: int = 64, rounds: int = 6, level: str = "random", think: float = 0.6, clock: str = "10.5"
) -> dict[str, float]:
    """A whole Swiss on one process: practice bots play every match of each round at once (3×3 Boxes), on a
    SQLite file. Each bot waits `think` seconds before each action (a player thinking), and the clock gives
    `clock` seconds a move plus a reserve, so the "10 s left" announcement falls due during every action:
    the host's timers fire all the time. Returns wall seconds, matches, how many ended on time (none should),
    and every timer firing's lateness against its deadline (max, p99, count), measured as `benchmarks.soak`
    measures it."""
    import asyncio
    import functools
    import os
    import tempfile

    from bot.adapters.practice import PracticeBot
    from bot.adapters.terminal.tournament import play_out
    from bot.compose import Stage, bus_of
    from bot.host.service import MatchService
    from bot.store.db import sqlite_url_for
    from bot.store.matches import MatchStore
    from bot.tournaments.core import TournamentCore
    from bot.tournaments.service import TournamentService

    original_act = PracticeBot._act

    async def thinking_act(self: PracticeBot, match_id: int) -> bool:
        await asyncio.sleep(think)
        return await original_act(self, match_id)

    async def run() -> dict[str, float]:
        from bot.ops.runtime import tune_gc

        tune_gc()  # as `dmhost run` does
        with tempfile.TemporaryDirectory() as tmp:
            store = MatchStore(sqlite_url_for(os.path.join(tmp, "t.db")))
            host = MatchService(store, heartbeat_seconds=5.0)
            lateness: list[float] = []
            fire_due = host.timers.fire_due

            async def timed_fire_due(live: Any) -> None:
                now = host.now()
                if live.status == "ongoing":
                    lateness.extend(now - d.at for d in live.clocks.next_deadlines(now) if d.at <= now + 1e-9)
                await fire_due(live)

            host.timers.fire_due = timed_fire_due  # type: ignore[method-assign]
            await host.start()
            timeouts = 0

            def count(ev: object) -> None:
                nonlocal timeouts
                data = getattr(ev, "data", {})
                if getattr(ev, "kind", "") == "finished" and data.get("reason") == "timeout":
                    timeouts += 1

            bus = bus_of(host)  # the bus a host service built without the root publishes to
            bus.subscribe(count)
            service = TournamentService(TournamentCore(host))
            service.hear = functools.partial(bus.subscribe, stage=Stage.FOLLOW)  # as the root subscribes it
            await service.start()
            tid = await service.create(
                "bench",
                "boxes",
                "swiss",
                rounds=rounds,
                options={"rows": 3, "cols": 3},
                clock={"move": clock, "reserve": 60},
            )
            for i in range(players):
                await service.join(tid, f"p{i}", f"p{i}")
            t0, cpu0 = time.perf_counter(), time.process_time()
            PracticeBot._act = thinking_act  # type: ignore[method-assign]
            try:
                await service.start_tournament(tid)
                await play_out(service, tid, level, bus=bus, timeout=1800)
            finally:
                PracticeBot._act = original_act  # type: ignore[method-assign]
            wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            t = await service.get(tid)
            games = [g for g in await service.games(tid) if g.match_id]
            await service.close()
            await host.close()
            await store.close()
            late = sorted(lateness)
            return {
                "wall": wall,
                "cpu": cpu,
                "load": os.getloadavg()[0],
                "matches": float(len(games)),
                "timeouts": float(timeouts),
                "finished": float(t.status == "finished"),
                "firings": float(len(late)),
                "late_max_ms": 1000 * (late[-1] if late else 0.0),
                "late_p99_ms": 1000 * (late[min(len(late) - 1, int(0.99 * len(late)))] if late else 0.0),
            }

    return asyncio.run(run())


if __name__ == "__main__":
    import sys

    if "--practice" in sys.argv:  # only the 64-player Swiss played by practice bots
        print(practice_swiss())
    else:
        for measure, figure, target, ok in table_rows(False):
            print(f"{measure}: {figure} (target {target}) {'PASS' if ok else 'FAIL'}")
