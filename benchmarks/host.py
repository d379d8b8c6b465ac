"""Host throughput: the full path (parse → apply → commit → event) for `boxes`, many matches at once.

    python -m benchmarks.host [--matches 500] [--seconds 10] [--db-url URL] [--subscribed | --small] [--together]

Each match is driven by its own coroutine that submits a random legal move for whoever is to move,
the way the terminal room or the Discord listener would. A finished match is replaced by a new one.
Latency is measured per `submit` call (it includes the commit that precedes the announcement).

`--subscribed` (issue 38, point 9): 2×2 Boxes, so a match ends every 12 moves, with every subscriber a
finished match has attached as `dmhost run` attaches them (the ratings through `bot.compose.build_host`,
the series, the tournaments and the scheduled DMs, on the bus): their work at each end runs after the
commit, off the move path. Before the measured time each first match is played to a random point of its 12
moves, so that matches end spread out as they do in a steady state (`--together`: all 500 begin at once and
end within the same two seconds, their replacements all created then); `--small` is the same row without
subscribers, to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.host.service import MatchService, PlayerRef
from bot.store.db import sqlite_url_for
from bot.store.matches import MatchStore

TARGET_MOVES_PER_S = 1000.0
TARGET_P99_MS = 10.0
TARGET_SUBSCRIBED_P99_MS = 20.0
"""Issue 38: with every subscriber on and a match ending every 12 moves."""
SMALL = {"rows": 2, "cols": 2}
"""2×2 Boxes: 12 lines, so a match ends every 12 moves."""


@dataclass
class HostFigures:
    """What one run measured."""

    matches: int
    moves: int
    seconds: float
    p50_ms: float
    p99_ms: float
    cpu_s: float = 0.0
    """The process's CPU time over the run (every thread: the database driver's too), which other
    programs on a shared machine do not inflate."""

    @property
    def cpu_ms_per_move(self) -> float:
        """CPU per accepted move, set-up and wind-down included (1 ms/move: one core at 1,000 moves/s)."""
        return 1000 * self.cpu_s / self.moves if self.moves else 0.0

    @property
    def moves_per_s(self) -> float:
        """Sustained accepted moves per second."""
        return self.moves / self.seconds if self.seconds else 0.0


async def _drive(
    service: MatchService,
    seconds: float,
    matches: int,
    seed: int,
    rate: float,
    opts: dict[str, int] | None = None,
    *,
    spread: bool = False,
) -> tuple[int, list[float], float]:
    """Each match moves every `matches / rate` seconds on average (open loop); rate 0 = as fast as possible.
    `spread`: before the measured time, each first match is played to a random point of its course, so that
    the matches end spread out as in a steady state, not all 500 within the same two seconds. Returns the
    moves, their latencies, and the CPU seconds the spreading took (not counted)."""
    rng = random.Random(seed)
    interval = matches / rate if rate > 0 else 0.0
    latencies: list[float] = []
    moves = 0
    players = [PlayerRef(f"p{i}", f"player{i}") for i in range(2 * matches)]
    opts = opts or {"rows": 8, "cols": 8}
    first = await asyncio.gather(
        *(service.create_match("boxes", [players[2 * i], players[2 * i + 1]], options=opts) for i in range(matches))
    )
    spreading = time.process_time()
    if spread:
        for slot, mid in enumerate(first):
            live = service.live[mid]
            by_seat = {1: players[2 * slot].id, 2: players[2 * slot + 1].id}
            for _ in range(rng.randrange(len(live.ruleset.legal_moves(live.state)))):
                state = live.state
                text = live.ruleset.format(state, rng.choice(live.ruleset.legal_moves(state)))
                seat = live.ruleset.to_move(state)
                assert seat is not None, "a match in play has a player to move"
                await service.submit(mid, by_seat[seat], text)
        await service.drained()
    spreading = time.process_time() - spreading
    deadline = time.perf_counter() + seconds

    async def one(slot: int) -> None:
        nonlocal moves
        a, b = players[2 * slot], players[2 * slot + 1]
        mid = first[slot]
        if interval:
            await asyncio.sleep(rng.uniform(0, interval))
        while time.perf_counter() < deadline:
            if mid not in service.live:
                mid = await service.create_match("boxes", [a, b], options=opts)
            live = service.live[mid]
            ruleset = live.ruleset
            by_seat = {1: a.id, 2: b.id}
            while mid in service.live and time.perf_counter() < deadline:
                state = live.state
                seat = ruleset.to_move(state)
                text = ruleset.format(state, rng.choice(ruleset.legal_moves(state)))
                t0 = time.perf_counter()
                result = await service.submit(mid, by_seat[seat], text)
                latencies.append(time.perf_counter() - t0)
                if result.status != "accepted":
                    raise RuntimeError(f"move refused: {result.reason}")
                moves += 1
                if interval:
                    await asyncio.sleep(max(0.0, interval * rng.uniform(0.5, 1.5) - (time.perf_counter() - t0)))
            if mid in service.live:
                await service.abort(mid, by="benchmark")

    await asyncio.gather(*(one(i) for i in range(matches)))
    return moves, latencies, spreading


def _subscribe_all(service: MatchService) -> Callable[[], Awaitable[None]]:
    """Attach every subscriber of a finished match through the composition root's bus, as `dmhost run` does:
    the ratings (`Stage.RECORD`), then the series, the tournaments and the scheduled DMs (`Stage.FOLLOW`),
    all after the commit. Returns what closes them."""
    from bot.compose import Stage, build_host, build_scheduler, build_tournaments
    from bot.series.core import SeriesService

    host = build_host(service=service)
    series = SeriesService(service, listening=False)
    host.bus.subscribe(series.on_host_event, Stage.FOLLOW)
    tournaments = build_tournaments(host)
    scheduler = build_scheduler(host)

    async def close() -> None:
        await series.drain()  # the host's after-commit queues, then the series' retries
        await tournaments.close()
        await scheduler.close()
        await host.ratings.close()

    return close


async def measure(
    matches: int,
    seconds: float,
    db_url: str | None = None,
    rate: float = 0.0,
    *,
    subscribed: bool = False,
    small: bool = False,
    spread: bool = True,
) -> HostFigures:
    """Run the load for `seconds` with `matches` concurrent matches offering `rate` moves/s in total
    (0: each match moves as fast as it can); a temp SQLite file by default. `subscribed`: 2×2 Boxes with
    every subscriber on (see the module docstring); `small`: 2×2 Boxes without them (the comparison);
    `spread` (2×2 only): the first matches begin at random points of their 12 moves (`_drive`)."""
    small = small or subscribed
    spread = spread and small
    with tempfile.TemporaryDirectory() as tmp:
        url = db_url or sqlite_url_for(os.path.join(tmp, "bench.db"))
        service = MatchService(MatchStore(url), heartbeat_seconds=5.0)
        close = _subscribe_all(service) if subscribed else None
        cpu = time.process_time()
        await service.start()
        try:
            opts = SMALL if small else None
            moves, lat, spreading = await _drive(service, seconds, matches, seed=1, rate=rate, opts=opts, spread=spread)
            elapsed = seconds
        finally:
            if close is not None:
                await close()
            await service.close()
            await service.store.close()
        cpu = time.process_time() - cpu - spreading
    lat_ms = sorted(x * 1000 for x in lat) or [0.0]
    p99 = lat_ms[min(len(lat_ms) - 1, int(len(lat_ms) * 0.99))]
    return HostFigures(matches, moves, elapsed, statistics.median(lat_ms), p99, cpu)


def main(argv: list[str] | None = None) -> int:
    """Print the figures beside the targets."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.host")
    parser.add_argument("--matches", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=TARGET_MOVES_PER_S, help="offered moves/s in total")
    parser.add_argument("--db-url", default=None)
    parser.add_argument("--subscribed", action="store_true", help="2×2 Boxes, every subscriber on (issue 38)")
    parser.add_argument("--small", action="store_true", help="2×2 Boxes, no subscriber (the comparison)")
    parser.add_argument("--together", action="store_true", help="2×2: the first matches all begin at once (not spread)")
    args = parser.parse_args(argv)
    from bot.ops.runtime import tune_gc

    tune_gc()  # as `dmhost run` does
    if args.subscribed or args.small:
        fig = asyncio.run(
            measure(
                args.matches,
                args.seconds,
                args.db_url,
                rate=args.rate,
                subscribed=args.subscribed,
                small=True,
                spread=not args.together,
            )
        )
        ok = fig.moves_per_s >= 0.95 * args.rate and fig.p99_ms <= TARGET_SUBSCRIBED_P99_MS
        who = "every subscriber on" if args.subscribed else "no subscriber"
        print(
            f"host, {fig.matches} matches, a match ends every 12 moves, {who}, offering "
            f"{args.rate:,.0f} moves/s: {fig.moves_per_s:,.0f} moves/s held, p50 {fig.p50_ms:.2f} ms, "
            f"p99 {fig.p99_ms:.2f} ms (target ≤ {TARGET_SUBSCRIBED_P99_MS:g} ms), "
            f"CPU {fig.cpu_ms_per_move:.2f} ms/move — {'PASS' if ok else 'FAIL'}"
        )
        return 0
    sat = asyncio.run(measure(args.matches, args.seconds, args.db_url, rate=0))
    print(
        f"host boxes full path, {sat.matches} matches moving as fast as they can: {sat.moves_per_s:,.0f} moves/s "
        f"(target ≥ {TARGET_MOVES_PER_S:,.0f}) — {'PASS' if sat.moves_per_s >= TARGET_MOVES_PER_S else 'FAIL'}"
    )
    fig = asyncio.run(measure(args.matches, args.seconds, args.db_url, rate=args.rate))
    ok = fig.moves_per_s >= 0.95 * args.rate and fig.p99_ms <= TARGET_P99_MS
    print(
        f"host boxes full path, {fig.matches} matches offering {args.rate:,.0f} moves/s: "
        f"{fig.moves_per_s:,.0f} moves/s sustained, p50 {fig.p50_ms:.2f} ms, p99 {fig.p99_ms:.2f} ms "
        f"(target ≤ {TARGET_P99_MS:g} ms) — {'PASS' if ok else 'FAIL'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
