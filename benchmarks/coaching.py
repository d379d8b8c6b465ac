"""Coaching: `python -m benchmarks.coaching [--quick]` prints the figures against the targets.

Targets (issue 51): at least one certified puzzle per three finished matches between practice levels; a
puzzle served (picked, its board drawn) and answered in ≤ 2 s; the insights of a player over 1,000
analysed matches in ≤ 5 s. SQLite file in WAL mode, as the bot runs it; matches played through the host
service by the practice levels (3×3 Dots-and-Boxes, easy against medium), analysed as the worker does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import time
from typing import Any

from sqlalchemy import insert, select

from bot.compose import build_coaching
from bot.host.service import MatchService, PlayerRef
from bot.records.analysis import analyse_match
from bot.records.analysis_store import MatchAnalysis, save_analysis
from bot.store.db import Match, MatchPlayer, sqlite_url_for, utcnow
from bot.store.matches import MatchStore
from games import pictures
from games.opponents import choose_move

PER_MATCH_TARGET = 1 / 3
SERVE_TARGET_S = 2.0
INSIGHTS_TARGET_S = 5.0
BOXES = {"rows": 3, "cols": 3}


async def _play(service: MatchService, seed: int) -> int:
    levels = ("easy", "medium") if seed % 2 == 0 else ("medium", "easy")
    refs = [PlayerRef("local:al", "al"), PlayerRef("local:bo", "bo")]
    mid = await service.create_match("boxes", refs, options=BOXES, rules={"takeback": 0})
    live = service.get(mid)
    rng = random.Random(seed)
    while (seat := live.ruleset.to_move(live.state)) is not None:
        text = choose_move("boxes", live.state, levels[seat - 1], rng=rng, nodes=400)
        await service.submit(mid, live.players[seat].id, text)
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    await save_analysis(service.store, mid, analyse_match(stored))
    return mid


async def _copies(store: MatchStore, n: int) -> None:
    """`n` more finished matches of al and bo, each with a copy of a stored analysis (bulk-inserted)."""
    async with store.engine.connect() as conn:
        analyses = [list(r[0]) for r in (await conn.execute(select(MatchAnalysis.entries))).all()]
        top = int((await conn.execute(select(Match.id).order_by(Match.id.desc()))).scalar() or 0)
    now = utcnow()
    matches, players, rows = [], [], []
    for k in range(n):
        i = top + 1 + k
        matches.append(
            {
                "id": i, "game": "boxes", "options": BOXES, "clock": {}, "status": "finished", "guild_id": None,
                "channel_id": None, "created_at": now, "updated_at": now, "finished_at": now, "winner_seat": 1,
                "result_reason": "score", "event_count": 0, "snapshot": {}, "rated": True,
            }
        )  # fmt: skip
        opponent = f"local:op{k % 7}"
        players += [
            {"match_id": i, "seat": 1, "player_id": "local:al", "name": "al"},
            {"match_id": i, "seat": 2, "player_id": opponent, "name": opponent[6:]},
        ]
        rows.append({"match_id": i, "version": "2", "entries": analyses[k % len(analyses)], "computed_at": now})
    async with store.engine.begin() as conn:
        await conn.execute(insert(Match), matches)
        await conn.execute(insert(MatchPlayer), players)
        await conn.execute(insert(MatchAnalysis), rows)


async def figures(matches: int, insight_matches: int) -> dict[str, Any]:
    """Puzzles per match, serve times (s), insights time (s) and the matches counted."""
    with tempfile.TemporaryDirectory() as tmp:
        store = MatchStore(sqlite_url_for(os.path.join(tmp, "dmhost.db")))
        service = MatchService(store)
        await service.start()
        try:
            for seed in range(matches):
                await _play(service, seed)
            coaching = build_coaching(store)
            added = await coaching.build()
            serve = []
            for k in range(min(added, 20)):
                t0 = time.perf_counter()
                puzzle = await coaching.next_puzzle(None, f"local:solver{k}", "boxes")
                assert puzzle is not None
                pictures.render_png(puzzle.ruleset(), puzzle.state())
                await coaching.answer(puzzle, None, f"local:solver{k}", puzzle.answer[0])
                serve.append(time.perf_counter() - t0)
            await _copies(store, insight_matches - matches)
            t0 = time.perf_counter()
            (row,) = await coaching.insights(["local:al"], "boxes")
            insight_s = time.perf_counter() - t0
        finally:
            await service.close()
            await store.close()
    return {"per_match": added / matches, "added": added, "serve": serve, "insights": insight_s, "n": row["matches"]}


def table_rows(quick: bool) -> list[tuple[str, str, str, bool | None]]:
    """(measure, figure, target, ok) rows for `python -m benchmarks`."""
    matches = 6 if quick else 30
    f = asyncio.run(figures(matches, 1_000))
    serve = f["serve"] or [0.0]
    return [
        (
            f"certified puzzles per finished match (3×3 Boxes, easy vs medium, {matches} matches)",
            f"{f['per_match']:.2f} ({f['added']} puzzles)",
            "≥ 0.33",
            None if quick else f["per_match"] >= PER_MATCH_TARGET,
        ),
        (
            "serve a puzzle (pick, board picture, answer, rating), median / max",
            f"{statistics.median(serve) * 1000:.0f} / {max(serve) * 1000:.0f} ms",
            f"≤ {SERVE_TARGET_S:g} s",
            None if quick else max(serve) <= SERVE_TARGET_S,
        ),
        (
            f"insights of one player over {f['n']:,} analysed matches",
            f"{f['insights']:.2f} s",
            f"≤ {INSIGHTS_TARGET_S:g} s",
            None if quick else f["insights"] <= INSIGHTS_TARGET_S,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the rows; exit 1 when a target is missed (not with --quick)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.coaching")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    rows = table_rows(args.quick)
    for measure, figure, target, ok in rows:
        print(f"{measure}: {figure} (target {target}) {'' if ok is None else 'PASS' if ok else 'FAIL'}")
    return 0 if all(ok is not False for *_, ok in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
