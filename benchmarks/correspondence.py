"""Correspondence matches at scale (issue 41): many matches in one process and one SQLite file.

    python -m benchmarks.correspondence [--matches 10000] [--late 200]

Fills one SQLite file with `--matches` correspondence Boxes matches: most with two days a move (idle for the
whole run), and `--late` of them on short clocks, half due while no host runs (their deadlines pass during
the downtime) and half due a few seconds after the restart. Then it stops the host, waits until the first
half's deadlines have passed, starts a fresh host against the same file and measures:

- the start-up: `MatchService.start()` with every match in the file (idle ones are kept unloaded,
  `bot.host.idle`: their snapshots are read as text, not decoded);
- how late each short-clock loss on time is ruled (wall clock) by its deadline job (`bot.host.deadlines`,
  the service's own jobs runner): for a deadline that passed while no host ran, from the restart; for one
  after the restart, from the deadline itself;
- the memory each idle match holds once started (tracemalloc, on a third start-up of the same file).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
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
IDLE_MOVE = "2d"
CHUNK = 200
"""Matches created together (the store folds their writes)."""
DOWN_MOVE = 5.0
"""Seconds a move of the matches due while no host runs (created last, just before the stop)."""
AFTER_MOVE = 30.0
"""Seconds a move of the matches due after the restart (spread over `AFTER_SPREAD_S` more)."""
AFTER_SPREAD_S = 10.0


@dataclass
class CorrespondenceFigures:
    """What one run measured."""

    matches: int
    fill_s: float
    startup_s: float
    idle_kib: float
    idle: int
    """How many matches were idle (unloaded) in the memory figure."""
    down: int
    after: int
    ruled: int
    late_down_max_s: float
    """The worst time from the restart to the ruling of a deadline that passed while no host ran."""
    late_after_max_s: float
    """The worst lateness of a deadline after the restart, against the deadline."""


async def _create(service: MatchService, first: int, count: int, move: str | float) -> dict[int, dt.datetime]:
    """`count` matches of `move` a move, created `CHUNK` at a time: match id → deadline (wall clock)."""
    due: dict[int, dt.datetime] = {}
    seconds = None if isinstance(move, str) else float(move)
    for start in range(first, first + count, CHUNK):
        began = utcnow()
        ids = await asyncio.gather(
            *(
                service.create_match(
                    "boxes",
                    [PlayerRef(f"a{i}", f"a{i}"), PlayerRef(f"b{i}", f"b{i}")],
                    clock={"kind": "correspondence", "move": str(move)},
                )
                for i in range(start, min(first + count, start + CHUNK))
            )
        )
        if seconds is not None:
            due.update({mid: began + dt.timedelta(seconds=seconds) for mid in ids})
    return due


async def measure(
    count: int, late: int, tmp: Path, after_move: float = AFTER_MOVE, spread: float = AFTER_SPREAD_S
) -> CorrespondenceFigures:
    url = sqlite_url_for(tmp / "corr.db")
    first = MatchService(MatchStore(url), heartbeat_seconds=60)
    early: set[int] = set()  # ruled before the stop (a slow fill): left out of the figures
    first.subscribe(lambda ev: early.add(ev.match_id) if ev.kind == "finished" else None)
    await first.start()
    t0 = time.perf_counter()
    half = late // 2
    await _create(first, 0, count - late, IDLE_MOVE)
    after: dict[int, dt.datetime] = {}
    for k in range(late - half):  # due after the restart, spread
        after.update(await _create(first, count - late + k, 1, after_move + spread * k / max(1, late - half)))
    down = await _create(first, count - half, half, DOWN_MOVE)
    fill_s = time.perf_counter() - t0
    await first.close()
    await first.store.close()
    down = {m: due for m, due in down.items() if m not in early}
    after = {m: due for m, due in after.items() if m not in early}
    stopped = utcnow()

    ruled: dict[int, dt.datetime] = {}
    done = asyncio.Event()

    def on_event(ev: HostEvent) -> None:
        if ev.kind == "finished" and (ev.match_id in down or ev.match_id in after):
            ruled[ev.match_id] = utcnow()
            if len(ruled) == len(down) + len(after):
                done.set()

    pause = max(down.values(), default=stopped) + dt.timedelta(seconds=0.5) - utcnow()
    await asyncio.sleep(max(0.0, pause.total_seconds()))
    gc.collect()
    second = MatchService(MatchStore(url), heartbeat_seconds=60)
    second.subscribe(on_event)
    restarted = utcnow()
    t1 = time.perf_counter()
    await second.start()
    startup_s = time.perf_counter() - t1
    try:
        last = max(after.values(), default=restarted)
        with_margin = max(0.0, (last - utcnow()).total_seconds()) + 60
        try:
            await asyncio.wait_for(done.wait(), with_margin)
        except TimeoutError:
            pass
    finally:
        await second.close()
        await second.store.close()
    late_down = [(ruled[m] - restarted).total_seconds() for m in down if m in ruled]
    late_after = [(ruled[m] - max(due, restarted)).total_seconds() for m, due in after.items() if m in ruled]

    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    probe = MatchService(MatchStore(url), heartbeat_seconds=60)
    probe.caught_up.clear()  # nothing is built or ruled: the idle matches as start-up leaves them
    await probe.start()
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    idle = len(probe.live.idle)
    await probe.close()
    await probe.store.close()
    return CorrespondenceFigures(
        matches=count,
        fill_s=fill_s,
        startup_s=startup_s,
        idle_kib=held / max(1, idle) / 1024,
        idle=idle,
        down=len(down),
        after=len(after),
        ruled=len(ruled),
        late_down_max_s=max(late_down, default=float("nan")),
        late_after_max_s=max(late_after, default=float("nan")),
    )


def run(count: int, late: int = 200, quick: bool = False) -> CorrespondenceFigures:
    """One measurement in a temporary directory (`quick`: the matches due after the restart fall due within
    10 s of it instead of 30-40 s, for `python -m benchmarks --quick`)."""
    after_move, spread = (8.0, 2.0) if quick else (AFTER_MOVE, AFTER_SPREAD_S)
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(measure(count, min(late, count), Path(tmp), after_move, spread))


def passed(fig: CorrespondenceFigures) -> bool:
    """Every target met: the start-up, every late deadline ruled, each within `TARGET_LATE_S`."""
    return (
        fig.startup_s <= TARGET_STARTUP_S
        and fig.ruled == fig.down + fig.after
        and max(fig.late_down_max_s, fig.late_after_max_s) <= TARGET_LATE_S
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.correspondence")
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--late", type=int, default=200, help="matches on short clocks (half due while down)")
    args = parser.parse_args(argv)
    fig = run(args.matches, args.late)
    print(fig)
    return 0 if passed(fig) else 1


if __name__ == "__main__":
    sys.exit(main())
