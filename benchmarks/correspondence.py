"""Correspondence matches at scale (issue 41): many matches in one process and one SQLite file.

    python -m benchmarks.correspondence [--matches 10000] [--move SECONDS] [--spread SECONDS]

Creates the matches (each with its own move time, so the deadlines are spread), stops the host, starts a
fresh one against the same file and measures: its start-up (every match resumed, its clock charged for the
time away), the memory each idle resumed match holds (tracemalloc), and how late each loss on time is
ruled against the deadline the match had when it was created (wall clock).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import statistics
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from bot.host.events import HostEvent
from bot.host.service import MatchService, PlayerRef
from bot.store.db import sqlite_url_for, utcnow
from bot.store.matches import MatchStore

TARGET_STARTUP_S = 2.0
TARGET_LATE_S = 1.0
PROBE = 500
"""How many matches the memory figure is measured on."""


@dataclass
class CorrespondenceFigures:
    """What one run measured."""

    matches: int
    fill_s: float
    startup_s: float
    idle_kib: float
    ruled: int
    late_p50_s: float
    late_p99_s: float
    late_max_s: float


async def measure(count: int, move: float, spread: int, tmp: Path) -> CorrespondenceFigures:
    url = sqlite_url_for(tmp / "corr.db")
    first = MatchService(MatchStore(url), heartbeat_seconds=60)
    await first.start()
    due: dict[int, dt.datetime] = {}
    t0 = time.perf_counter()
    for i in range(count):
        seconds = move + i % spread
        began = utcnow()
        mid = await first.create_match(
            "boxes",
            [PlayerRef(f"a{i}", f"a{i}"), PlayerRef(f"b{i}", f"b{i}")],
            clock={"kind": "correspondence", "move": str(seconds)},
        )
        due[mid] = began + dt.timedelta(seconds=seconds)
    fill_s = time.perf_counter() - t0
    await first.close()
    await first.store.close()

    late: list[float] = []
    done = asyncio.Event()

    def on_event(ev: HostEvent) -> None:
        if ev.kind == "finished" and ev.match_id in due:
            late.append((utcnow() - due[ev.match_id]).total_seconds())
            if len(late) == count:
                done.set()

    gc.collect()
    tracemalloc.start()  # a first restart measures memory only (tracemalloc slows everything down)
    base = tracemalloc.get_traced_memory()[0]
    probe = MatchService(MatchStore(url), heartbeat_seconds=60)
    await probe.start(select=lambda m: m.id <= PROBE)  # a sample: resuming under tracemalloc is slow
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    resumed = len(probe.live)
    await probe.close()
    await probe.store.close()
    second = MatchService(MatchStore(url), heartbeat_seconds=60)
    second.subscribe(on_event)
    t1 = time.perf_counter()
    await second.start()
    startup_s = time.perf_counter() - t1
    try:
        last = max(due.values())
        wait = max(0.0, (last - utcnow()).total_seconds()) + 30
        try:
            await asyncio.wait_for(done.wait(), wait)
        except TimeoutError:
            pass
    finally:
        await second.close()
        await second.store.close()
    late.sort()
    return CorrespondenceFigures(
        matches=count,
        fill_s=fill_s,
        startup_s=startup_s,
        idle_kib=held / max(1, resumed) / 1024,
        ruled=len(late),
        late_p50_s=statistics.median(late) if late else float("nan"),
        late_p99_s=late[min(len(late) - 1, int(len(late) * 0.99))] if late else float("nan"),
        late_max_s=late[-1] if late else float("nan"),
    )


def run(count: int, move: float | None = None, spread: int = 60) -> CorrespondenceFigures:
    """One measurement in a temporary directory (`move`: the shortest move time; by default long enough
    for the matches to be created and the host restarted before any deadline)."""
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(measure(count, move if move is not None else 60 + count / 25, spread, Path(tmp)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.correspondence")
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--move", type=float, default=None)
    parser.add_argument("--spread", type=int, default=60)
    args = parser.parse_args(argv)
    fig = run(args.matches, args.move, args.spread)
    print(fig)
    ok = fig.startup_s <= TARGET_STARTUP_S and fig.ruled == fig.matches and fig.late_max_s <= TARGET_LATE_S
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
