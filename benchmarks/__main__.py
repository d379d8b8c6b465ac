"""`python -m benchmarks [--quick] [--pg URL]`: every speed target in one table.

Each figure is printed beside the target from the issue that set it, with PASS/FAIL. `--quick`
finishes in under a minute and never fails (figures only, for CI smoke use). Without `--quick` the
exit code is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks import engines


@dataclass
class Row:
    """One line of the table."""

    area: str
    measure: str
    figure: str
    target: str = ""
    ok: bool | None = None


def _mark(ok: bool | None) -> str:
    return "" if ok is None else ("PASS" if ok else "FAIL")


def engine_rows(quick: bool) -> list[Row]:
    """Playout rate and parse+apply latency per game."""
    rows = []
    for game in engines.registry.ids():
        f = engines.measure(game, 0.4 if quick else 2.0, 300 if quick else 3000)
        target = engines.TARGETS.get(game)
        rows.append(
            Row(
                game,
                "random playout (CPU)",
                f"{f.cpu_moves_per_s:,.0f} moves/s",
                f"≥ {target:,.0f} moves/s" if target else "",
                None if target is None else f.cpu_moves_per_s >= target,
            )
        )
        rows.append(Row(game, "parse + apply p50 / p99", f"{f.p50_us:.0f} / {f.p99_us:.0f} µs"))
    return rows


def trax_rows(quick: bool) -> list[Row]:
    """Real-game replay and perft."""
    from benchmarks import trax as tb
    from games.trax import RULESET, perft

    rows = []
    path = tb.cases_dir() / "trax" / "real-games.jsonl"
    if path.exists():
        games = [json.loads(line)["moves"] for line in path.read_text().splitlines() if line.strip()]
        cpu, _wall, played = tb.best_of(1 if quick else 5, lambda: tb.replay_all(games))
        rows.append(
            Row(
                "trax",
                f"replay {len(games)} real games ({played} moves)",
                f"{cpu:.3f} s",
                f"≤ {tb.REPLAY_TARGET} s",
                cpu <= tb.REPLAY_TARGET,
            )
        )
    state = RULESET.new_game(RULESET.parse_options({}))
    for depth, expected, target in ((4, 9568, None), (5, tb.PERFT_5, tb.PERFT_TARGET)):
        if quick and depth == 5:
            continue
        cpu, _wall, count = tb.best_of(1 if quick else 3, lambda d=depth: perft(state, d))  # type: ignore[misc]
        ok = count == expected and (target is None or cpu <= target)
        rows.append(Row("trax", f"perft({depth}) = {count}", f"{cpu:.3f} s", f"≤ {target} s" if target else "", ok))
    return rows


def dots_rows(quick: bool) -> list[Row]:
    """Full random 39×32 games."""
    from benchmarks import dots as db

    n = 2 if quick else 10
    c0 = time.process_time()
    moves = sum(db.random_game(seed)[0] for seed in range(n))
    cpu = time.process_time() - c0
    return [
        Row(
            "dots",
            "full random 39×32 games",
            f"{n / cpu:.1f} games/s ({moves / cpu:,.0f} moves/s)",
            f"≥ {db.TARGET:,} moves/s",
            moves / cpu >= db.TARGET,
        )
    ]


def solver_rows(quick: bool) -> list[Row]:
    """The solver's Table 1 rows (if the solver is built)."""
    try:
        sb = importlib.import_module("benchmarks.solver")
    except ModuleNotFoundError:
        return [Row("solver", "Table 1", "not built")]
    table: Callable[[bool], list[tuple[str, str, str, bool | None]]] | None = getattr(sb, "table_rows", None)
    if table is None:
        return [Row("solver", "Table 1", "see python -m benchmarks.solver")]
    return [Row("solver", m, fig, tgt, ok) for m, fig, tgt, ok in table(quick)]


def host_rows(quick: bool, pg_url: str | None) -> list[Row]:
    """Full path through the host for 1, 100 and 1,000 concurrent matches; 500 offering 1,000 moves/s, without
    subscribers and (2×2 Boxes) with every subscriber of a finished match on."""
    from benchmarks import host as hb
    from bot.ops.runtime import tune_gc

    tune_gc()  # measure the host as `dmhost run` configures it
    rows = []
    seconds = 1.0 if quick else 8.0  # quick: the whole table within a minute on an idle machine
    for url_name, url in (("SQLite", None), ("PostgreSQL", pg_url)):
        if url_name == "PostgreSQL" and not url:
            continue
        for matches in (1, 100, 1000):
            sat = asyncio.run(hb.measure(matches, seconds, url, rate=0))
            rows.append(
                Row(
                    "host",
                    f"{url_name}, {matches} matches, as fast as they go",
                    f"{sat.moves_per_s:,.0f} moves/s, p99 {sat.p99_ms:.1f} ms",
                )
            )
        fig = asyncio.run(hb.measure(500, seconds, url, rate=hb.TARGET_MOVES_PER_S))
        ok = fig.moves_per_s >= 0.95 * hb.TARGET_MOVES_PER_S and fig.p99_ms <= hb.TARGET_P99_MS
        rows.append(
            Row(
                "host",
                f"{url_name}, 500 matches offering 1,000 moves/s",
                f"{fig.moves_per_s:,.0f} moves/s, p99 {fig.p99_ms:.1f} ms, CPU {fig.cpu_ms_per_move:.2f} ms/move",
                f"≥ 1,000 moves/s, p99 ≤ {hb.TARGET_P99_MS:g} ms",
                ok,
            )
        )
        fig = asyncio.run(hb.measure(500, seconds, url, rate=hb.TARGET_MOVES_PER_S, subscribed=True))
        ok = fig.moves_per_s >= 0.95 * hb.TARGET_MOVES_PER_S and fig.p99_ms <= hb.TARGET_SUBSCRIBED_P99_MS
        rows.append(
            Row(
                "host",
                f"{url_name}, 500 matches, a match ends every 12 moves, every subscriber on, offering 1,000 moves/s",
                f"{fig.moves_per_s:,.0f} moves/s, p99 {fig.p99_ms:.1f} ms, CPU {fig.cpu_ms_per_move:.2f} ms/move",
                f"≥ 1,000 moves/s, p99 ≤ {hb.TARGET_SUBSCRIBED_P99_MS:g} ms",
                ok,
            )
        )
    return rows


def takeover_rows(quick: bool, pg_url: str | None) -> list[Row]:
    """Owner death (SIGKILL) or clean stop (SIGTERM) to the first move the standby accepts."""
    import signal

    from benchmarks import takeover as tb

    lease, rounds = (2.0, 1) if quick else (10.0, 3)
    rows = []
    for url_name, url in (("SQLite", None), ("PostgreSQL", pg_url)):
        if url_name == "PostgreSQL" and not url:
            continue
        for how, target in ((signal.SIGKILL, tb.KILL_TARGET_S), (signal.SIGTERM, tb.TERM_TARGET_S)):
            f = tb.measure(url, rounds, lease, how)
            rows.append(
                Row(
                    "takeover",
                    f"{url_name}, {how.name} of the owner → standby accepts a move (lease {lease:g} s)",
                    f"median {f.median:.2f} s, worst {f.worst:.2f} s ({f.rounds} rounds)",
                    f"≤ {target:g} s",
                    f.worst <= target,
                )
            )
    return rows


def picture_rows(quick: bool) -> list[Row]:
    """Render and GIF times (if pictures are built)."""
    try:
        pb = importlib.import_module("benchmarks.pictures")
    except ModuleNotFoundError:
        return [Row("pictures", "render", "not built")]
    table: Callable[[bool], list[tuple[str, str, str, bool | None]]] | None = getattr(pb, "table_rows", None)
    if table is None:
        return [Row("pictures", "render", "see python -m benchmarks.pictures")]
    return [Row("pictures", m, fig, tgt, ok) for m, fig, tgt, ok in table(quick)]


def page_rows(quick: bool) -> list[Row]:
    """Match review pages: size, `dmhost web` answer time, first board in a browser (benchmarks.pages)."""
    from benchmarks import pages

    return [Row("pages", m, fig, tgt, ok) for m, fig, tgt, ok in pages.table_rows(quick)]


def tournament_rows(quick: bool) -> list[Row]:
    """Pairing a large Swiss round."""
    from benchmarks import tournaments

    return [Row("tournaments", m, fig, tgt, ok) for m, fig, tgt, ok in tournaments.table_rows(quick)]


def memory_rows(quick: bool) -> list[Row]:
    """Memory per idle match (just created) and per active match (after 40 moves), in the service."""
    import tempfile

    from bot.host.service import MatchService, PlayerRef
    from bot.store.db import sqlite_url_for
    from bot.store.matches import MatchStore

    n = 50 if quick else 300

    async def run() -> tuple[float, float]:
        with tempfile.TemporaryDirectory() as tmp:
            service = MatchService(MatchStore(sqlite_url_for(os.path.join(tmp, "m.db"))), heartbeat_seconds=60)
            await service.start()
            try:
                gc.collect()
                tracemalloc.start()
                base = tracemalloc.get_traced_memory()[0]
                ids = []
                for i in range(n):
                    ids.append(
                        await service.create_match(
                            "boxes", [PlayerRef(f"a{i}", "a"), PlayerRef(f"b{i}", "b")], options={"rows": 8, "cols": 8}
                        )
                    )
                gc.collect()
                idle = tracemalloc.get_traced_memory()[0]
                for mid in ids:
                    live = service.live[mid]
                    for _ in range(40):
                        seat = live.ruleset.to_move(live.state)
                        text = live.ruleset.format(live.state, live.ruleset.legal_moves(live.state)[0])
                        await service.submit(mid, live.players[seat].id, text)
                gc.collect()
                active = tracemalloc.get_traced_memory()[0]
                tracemalloc.stop()
                return (idle - base) / n, (active - base) / n
            finally:
                await service.close()
                await service.store.close()

    idle, active = asyncio.run(run())
    return [
        Row("memory", "per idle boxes 8×8 match", f"{idle / 1024:.1f} KiB"),
        Row("memory", "per active match (40 moves played)", f"{active / 1024:.1f} KiB"),
    ]


def coaching_rows(quick: bool) -> list[Row]:
    """Certified puzzles per match, serving a puzzle, a player's insights (benchmarks.coaching)."""
    from benchmarks import coaching as cb

    return [Row("coaching", m, fig, tgt, ok) for m, fig, tgt, ok in cb.table_rows(quick)]


def rating_rows(quick: bool) -> list[Row]:
    """Rebuilding the ratings from the matches, and the leaderboard's database time (benchmarks.ratings)."""
    from benchmarks import ratings as rb

    return [Row("ratings", m, fig, tgt, ok) for m, fig, tgt, ok in rb.table_rows(quick)]


def schedule_rows(quick: bool) -> list[Row]:
    """10,000 scheduled DMs: the next due job, and the scheduler's start-up."""
    from benchmarks import schedule as sb

    fig = asyncio.run(sb.measure(1000 if quick else 10_000))
    return [
        Row(
            "schedule",
            f"{fig.schedules:,} scheduled DMs ({fig.jobs:,} jobs): next due job, median",
            f"{fig.next_due_p50_ms:.2f} ms",
            f"≤ {sb.TARGET_NEXT_DUE_MS:g} ms",
            fig.next_due_p50_ms <= sb.TARGET_NEXT_DUE_MS,
        ),
        Row(
            "schedule",
            f"scheduler start-up with {fig.schedules:,} schedules",
            f"{fig.startup_s:.3f} s",
            f"≤ {sb.TARGET_STARTUP_S:g} s",
            fig.startup_s <= sb.TARGET_STARTUP_S,
        ),
    ]


def correspondence_rows(quick: bool) -> list[Row]:
    """10,000 correspondence matches in one SQLite file: start-up, memory per idle match, deadlines ruled
    across a restart."""
    from benchmarks import correspondence as cb

    fig = cb.run(500 if quick else 10_000, 100 if quick else 200, quick=quick)
    worst = max(fig.late_down_max_s, fig.late_after_max_s)
    return [
        Row(
            "correspondence",
            f"host start-up with {fig.matches:,} correspondence matches (idle ones kept unloaded)",
            f"{fig.startup_s:.2f} s",
            f"≤ {cb.TARGET_STARTUP_S:g} s",
            fig.startup_s <= cb.TARGET_STARTUP_S,
        ),
        Row(
            "correspondence", f"memory per idle match (tracemalloc, {fig.idle:,})", f"{fig.idle_kib:.2f} KiB", "", None
        ),
        Row(
            "correspondence",
            f"losses on time ruled across the restart ({fig.ruled} of {fig.down} due while down + {fig.after} "
            "after): worst from the restart / from the deadline",
            f"{fig.late_down_max_s:.3f} / {fig.late_after_max_s:.3f} s",
            f"all, ≤ {cb.TARGET_LATE_S:g} s",
            fig.ruled == fig.down + fig.after and worst <= cb.TARGET_LATE_S,
        ),
    ]


def startup_rows(quick: bool) -> list[Row]:
    """`dmhost --help` CPU and `dmhost room` to its first board (issue 50)."""
    from benchmarks import operating

    return [Row("start-up", m, fig, tgt, ok) for m, fig, tgt, ok in operating.startup_rows(quick)]


def server_page_rows(quick: bool) -> list[Row]:
    """The server page under 50 clients (issue 47)."""
    from benchmarks import operating

    return [Row("pages", m, fig, tgt, ok) for m, fig, tgt, ok in operating.server_page_rows(quick)]


SECTIONS: dict[str, Callable[..., list[Row]]] = {
    "startup": startup_rows,
    "engines": engine_rows,
    "trax": trax_rows,
    "dots": dots_rows,
    "solver": solver_rows,
    "host": host_rows,
    "takeover": takeover_rows,
    "pictures": picture_rows,
    "pages": page_rows,
    "serverpage": server_page_rows,
    "memory": memory_rows,
    "tournaments": tournament_rows,
    "ratings": rating_rows,
    "coaching": coaching_rows,
    "schedule": schedule_rows,
    "correspondence": correspondence_rows,
}


def main(argv: list[str] | None = None) -> int:
    """Run the sections and print the table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="under a minute; figures only, never fails")
    parser.add_argument("--pg", default=os.environ.get("DMHOST_TEST_PG_URL"), help="PostgreSQL URL for the host rows")
    parser.add_argument("--only", nargs="*", choices=sorted(SECTIONS), help="run only these sections")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    for name, fn in SECTIONS.items():
        if args.only and name not in args.only:
            continue
        t0 = time.perf_counter()
        try:
            got = fn(args.quick, args.pg) if name in ("host", "takeover") else fn(args.quick)
        except Exception as exc:  # a broken section must not hide the others
            got = [Row(name, "error", f"{type(exc).__name__}: {exc}"[:80], ok=False)]
        rows.extend(got)
        print(f"# {name} done in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    widths = [max(len(getattr(r, f)) for r in rows) for f in ("area", "measure", "figure", "target")]
    header = ("area", "measure", "figure", "target")
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " | result")
    print("-+-".join("-" * w for w in widths) + "-+-------")
    for r in rows:
        cells = (r.area, r.measure, r.figure, r.target)
        print(" | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " | " + _mark(r.ok))
    failed = [r for r in rows if r.ok is False]
    print(f"\n{len(rows)} figures, {len(failed)} below target" + (" (quick mode: not judged)" if args.quick else ""))
    return 0 if args.quick or not failed else 1


if __name__ == "__main__":
    sys.exit(main())
