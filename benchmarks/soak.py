"""Soak: 1,000 concurrent matches with live clocks on one process and one SQLite file.

    python -m benchmarks.soak                 # 5 minutes
    python -m benchmarks.soak --quick         # about 30 s
    python -m benchmarks.soak --duration 120 --matches 2000 --db /tmp/soak.db

Simulated players think for a random while and post a random legal move; now and then one dozes off
and loses on time; a finished match is replaced by a new one, so the load stays constant. Measured:
- every clock deadline (reserve starting, timeout) fires within 50 ms of its time on the loop clock,
  none twice and none never (a sweep looks for overdue deadlines every 100 ms; the log is checked
  for at most one timeout per match at the end);
- memory stays flat (RSS sampled every 5 s after a warm-up);
- move latency (submit → accepted, committed and announced): p50 / p99 / max.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bot.host.service import Live, MatchService, PlayerRef
from bot.store.db import sqlite_url_for
from bot.store.matches import MatchStore

TARGET_LATENESS = 0.050


def rss_mb() -> float:
    """Resident memory of this process."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


class Soak:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.latencies: list[tuple[float, float]] = []
        self.lateness: list[float] = []
        self.fired: Counter[tuple[int, float, str]] = Counter()
        self.overdue: list[tuple[int, str, float]] = []
        self.rss: list[tuple[float, float]] = []
        self.created = 0
        self.finished: Counter[str] = Counter()
        self.rejected = 0

    async def run(self) -> dict[str, Any]:
        args = self.args
        db = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="dmhost-soak-")) / "soak.db"
        self.service = service = MatchService(MatchStore(sqlite_url_for(db)))
        self._instrument(service)
        service.subscribe(self._on_event)
        await service.start()
        if not args.no_gc_tune:
            from bot.ops.runtime import tune_gc

            tune_gc()
        loop = asyncio.get_running_loop()
        self.t0 = loop.time()
        self.end = self.t0 + args.duration
        tasks = [asyncio.create_task(self._table(i)) for i in range(args.matches)]
        sampler = asyncio.create_task(self._sample())
        sweeper = asyncio.create_task(self._sweep())
        await asyncio.gather(*tasks)
        sampler.cancel()
        sweeper.cancel()
        live_left = len(service.live)
        await service.close()
        await service.store.close()
        return self._report(db, live_left)

    def _instrument(self, service: MatchService) -> None:
        """Record, for every due deadline, how late it is handled (the lock included) and how often."""
        original = service.timers.fire_due

        async def fire_due(live: Live) -> None:
            now = service.now()
            if live.status == "ongoing":
                for d in live.clocks.next_deadlines(now):
                    if d.at <= now + 1e-9:
                        self.lateness.append(now - d.at)
                        self.fired[(live.id, round(d.at, 6), d.kind)] += 1
            await original(live)

        service.timers.fire_due = fire_due  # type: ignore[method-assign]

    def _on_event(self, ev: Any) -> None:
        if ev.kind == "finished":
            self.finished[ev.data.get("reason", "?")] += 1

    async def _table(self, i: int) -> None:
        """One table: a match after another until the time is up."""
        service, rng, args = self.service, self.rng, self.args
        loop = asyncio.get_running_loop()
        await asyncio.sleep(rng.uniform(0, 2))  # stagger the start
        while loop.time() < self.end:
            players = [PlayerRef(f"{i}-{self.created}-1", f"p{i}a"), PlayerRef(f"{i}-{self.created}-2", f"p{i}b")]
            game = "boxes" if rng.random() < 0.8 else "pathing"
            opts = {"rows": 4, "cols": 4} if game == "boxes" else {}
            mid = await service.create_match(
                game, players, options=opts, clock={"move": args.move, "reserve": args.move}
            )
            self.created += 1
            while mid in service.live and loop.time() < self.end:
                dozing = rng.random() < args.doze
                think = rng.uniform(2 * args.move, 3 * args.move) if dozing else rng.expovariate(1 / args.think)
                await asyncio.sleep(min(think, max(0.0, self.end - loop.time())))
                live = service.live.get(mid)
                if live is None or loop.time() >= self.end:
                    break
                seat = live.ruleset.to_move(live.state)
                if seat is None or live.status != "ongoing":
                    continue
                moves = live.ruleset.legal_moves(live.state)
                text = live.ruleset.format(live.state, rng.choice(moves))
                t = time.perf_counter()
                result = await service.submit(mid, live.players[seat].id, text)
                if result.status == "accepted":
                    self.latencies.append((loop.time() - self.t0, time.perf_counter() - t))
                else:
                    self.rejected += 1

    async def _sweep(self) -> None:
        """A deadline more than 50 ms overdue that nobody has handled yet counts as missed (once)."""
        seen: set[tuple[int, float, str]] = set()
        while True:
            await asyncio.sleep(0.1)
            now = self.service.now()
            for live in list(self.service.live.values()):
                if live.status != "ongoing" or live.lock.locked():
                    continue
                for d in live.clocks.next_deadlines(now)[:1]:
                    key = (live.id, round(d.at, 6), d.kind)
                    if d.at < now - TARGET_LATENESS and key not in seen:
                        seen.add(key)
                        self.overdue.append((live.id, d.kind, now - d.at))

    async def _sample(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self.rss.append((loop.time() - self.t0, rss_mb()))
            await asyncio.sleep(5)

    def _report(self, db: Path, live_left: int) -> dict[str, Any]:
        con = sqlite3.connect(db)
        per_match = con.execute(
            "SELECT match_id, COUNT(*) FROM match_events WHERE kind = 'timeout' GROUP BY match_id HAVING COUNT(*) > 1"
        ).fetchall()
        moves = con.execute("SELECT COUNT(*) FROM match_events WHERE kind = 'move'").fetchone()[0]
        con.close()
        warmup = self.args.duration * 0.25
        lat = sorted(x for _t, x in self.latencies)
        steady = sorted(x for t, x in self.latencies if t >= warmup)
        late = sorted(self.lateness)
        warm = [m for t, m in self.rss if t >= warmup]
        pct = lambda xs, q: xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")  # noqa: E731
        return {
            "matches_concurrent": self.args.matches,
            "duration_s": self.args.duration,
            "matches_created": self.created,
            "matches_finished": dict(self.finished),
            "still_live_at_end": live_left,
            "moves_accepted": len(lat),
            "moves_logged": moves,
            "moves_per_s": round(len(lat) / self.args.duration, 1),
            "moves_rejected": self.rejected,
            "move_latency_ms": {
                "p50": round(pct(lat, 0.5) * 1000, 2),
                "p99": round(pct(lat, 0.99) * 1000, 2),
                "max": round((lat[-1] if lat else 0) * 1000, 2),
            },
            "move_latency_after_warmup_ms": {
                "p50": round(pct(steady, 0.5) * 1000, 2),
                "p99": round(pct(steady, 0.99) * 1000, 2),
                "max": round((steady[-1] if steady else 0) * 1000, 2),
            },
            "deadlines_fired": len(late),
            "deadline_lateness_ms": {
                "p50": round(pct(late, 0.5) * 1000, 2),
                "p99": round(pct(late, 0.99) * 1000, 2),
                "max": round((late[-1] if late else 0) * 1000, 2),
            },
            "deadlines_later_than_50ms": sum(1 for x in late if x > TARGET_LATENESS),
            "deadlines_fired_twice": sum(1 for n in self.fired.values() if n > 1),
            "deadlines_overdue_unhandled": len(self.overdue),
            "matches_with_two_timeouts": len(per_match),
            "rss_mb": {
                "samples": [round(m, 1) for _t, m in self.rss],
                "after_warmup_first": round(warm[0], 1) if warm else None,
                "after_warmup_last": round(warm[-1], 1) if warm else None,
                "after_warmup_max": round(max(warm), 1) if warm else None,
            },
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--duration", type=float, default=300.0, help="seconds (default 300)")
    parser.add_argument("--quick", action="store_true", help="30 s")
    parser.add_argument("--no-gc-tune", action="store_true", help="leave the garbage collector as Python sets it")
    parser.add_argument("--think", type=float, default=5.0, help="mean thinking time of a player, seconds")
    parser.add_argument("--move", type=float, default=8.0, help="move time and reserve of every clock, seconds")
    parser.add_argument("--doze", type=float, default=0.03, help="chance that a player never moves in time")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--db", metavar="PATH", help="SQLite file (default: a fresh temporary one)")
    args = parser.parse_args(argv)
    if args.quick:
        args.duration = 30.0
    report = asyncio.run(Soak(args).run())
    print(json.dumps(report, indent=2))
    lat, late = report["move_latency_after_warmup_ms"], report["deadline_lateness_ms"]
    ok = (
        report["deadlines_later_than_50ms"] == 0
        and report["deadlines_fired_twice"] == 0
        and report["deadlines_overdue_unhandled"] == 0
        and report["matches_with_two_timeouts"] == 0
    )
    rss = report["rss_mb"]
    print(
        f"{args.matches} matches, {args.duration:g} s: {report['moves_accepted']} moves "
        f"({report['moves_per_s']}/s), move latency after warm-up p50 {lat['p50']} ms / p99 {lat['p99']} ms; "
        f"{report['deadlines_fired']} deadlines, lateness p99 {late['p99']} ms / max {late['max']} ms "
        f"(target < 50 ms): {'OK' if ok else 'MISSED'}; RSS after warm-up {rss['after_warmup_first']} → "
        f"{rss['after_warmup_last']} MB (max {rss['after_warmup_max']})"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
