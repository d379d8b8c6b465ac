"""Move analysis for every game: pinned verdicts, the stored analyses, and the background worker."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.terminal.room import ANALYSIS_WAIT
from bot.compose import build_host
from bot.host.service import MatchService, PlayerRef
from bot.records.analysis import analyse_match, format_analysis
from bot.records.analysis_store import analysed, load_analysis, missing_analyses, save_analysis
from bot.records.analysis_worker import AnalysisWorker, start_analysis_worker
from bot.records.review import build_review
from bot.store.db import utcnow
from bot.store.matches import MatchStore
from bot.wording.review import analysing
from games.analysis import VERDICTS, boxes_verdict, by_limits
from tests import DATA as TEST_DATA
from tests.bot.conftest import Recorder, make_service
from tests.buses import bus_of

DATA = TEST_DATA / "analysis"
EXAMPLES = json.loads((DATA / "examples.json").read_text())["examples"]
BOXES_GAME = json.loads((DATA / "boxes-3x3-blunder.json").read_text())
KEYS = {"ply", "seat", "move", "analysed", "value", "best_value", "best", "loss", "threw_away", "verdict"}
KEYS |= {"value_p1", "engine"}


async def _play(service: MatchService, game: str, options: dict[str, Any], moves: list[str]) -> int:
    """A match between two people with the moves played (no take-back window: each move is final)."""
    mid = await service.create_match(
        game, [PlayerRef("a", "al"), PlayerRef("b", "bo")], options=options, rules={"takeback": 0}
    )
    live = service.get(mid)
    for text in moves:
        seat = live.ruleset.to_move(live.state)
        assert seat is not None
        assert (await service.submit(mid, live.players[seat].id, text)).status == "accepted", text
    return mid


LONG_SEARCHES = {("dots", 4), ("dotdash", 5), ("trax", 25)}
"""The pinned examples whose analysis searches longest (seconds each): `slow`, out of the fast loop; every game
keeps others in it."""


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.slow) if (c["game"], c["ply"]) in LONG_SEARCHES else c for c in EXAMPLES],
    ids=[f"{c['game']}-{c['ply']}" for c in EXAMPLES],
)
async def test_pinned_example_verdicts(host: tuple[MatchService, Recorder], case: dict[str, Any]) -> None:
    service, _rec = host
    mid = await _play(service, case["game"], case["options"], [*case["before"], case["move"]])
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    entry = next(e for e in analyse_match(stored) if e["ply"] == case["ply"])
    assert KEYS <= set(entry)
    assert entry["move"] == case["move"] and entry["seat"] == case["seat"]
    assert entry["verdict"] == case["verdict"]
    assert entry["engine"] == case["engine"]
    for key in ("value", "best_value", "value_p1", "note"):
        assert entry.get(key) == case.get(key), key
    assert entry["best"][:3] == case["best"]
    assert entry["threw_away"] == (entry["loss"] > 0)


def test_every_game_has_a_pinned_example_and_every_verdict_is_on_the_scale() -> None:
    assert {c["game"] for c in EXAMPLES} == {"boxes", "pathing", "trax", "dots", "dotdash"}
    assert {c["verdict"] for c in EXAMPLES} <= set(VERDICTS)
    assert {c["verdict"] for c in EXAMPLES} >= {"blunder", "mistake", "inaccuracy"}
    # Trax's grading gives every verdict of the README's scale, each pinned by a real game's position.
    assert {c["verdict"] for c in EXAMPLES if c["game"] == "trax"} == set(VERDICTS)


def test_verdict_thresholds() -> None:
    # Boxes: by boxes given away (two margin points each); a changed result is a blunder whatever it cost.
    assert boxes_verdict(0, 3, 3) == "best"
    assert boxes_verdict(2, 5, 3) == "good"
    assert boxes_verdict(4, 7, 3) == "inaccuracy"
    assert boxes_verdict(6, 9, 3) == "mistake"
    assert boxes_verdict(8, 11, 3) == "mistake"
    assert boxes_verdict(10, 13, 3) == "blunder"
    assert boxes_verdict(2, 1, -1) == "blunder"
    assert boxes_verdict(2, 0, -2) == "blunder"
    # Engine games: best for no loss, then below each limit in turn.
    limits = (3.0, 10.0, 30.0)
    assert [by_limits(x, limits) for x in (0, 2, 9, 29, 30)] == ["best", "good", "inaccuracy", "mistake", "blunder"]


async def test_boxes_game_with_a_known_blunder(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await _play(service, BOXES_GAME["game"], BOXES_GAME["options"], BOXES_GAME["moves"])
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None and stored.status == "finished"
    entries = analyse_match(stored)
    got = [{k: e[k] for k in BOXES_GAME["expect"][0]} for e in entries]
    assert got == BOXES_GAME["expect"]
    blunder = next(e for e in entries if e["ply"] == 8)
    assert blunder["verdict"] == "blunder" and blunder["engine"] == "exact solver"
    text = format_analysis(entries, {1: "al", 2: "bo"})
    assert "8. bo C4-D4: -1 blunder  threw away 3 boxes (margin -6); best +5 with A2-B2" in text
    # The stored analysis is what `/dm log` attaches.
    await save_analysis(service.store, mid, entries)
    review = build_review(stored, 8_000_000, analysis=await load_analysis(service.store, mid))
    attached = dict(review.files)[f"match-{mid}-analysis.txt"].decode()
    assert attached == text


async def test_worker_stores_the_analysis_without_holding_up_the_last_move(
    host: tuple[MatchService, Recorder],
) -> None:
    service, _rec = host
    worker = start_analysis_worker(service, bus_of(service).subscribe, catch_up=False)
    try:
        moves = BOXES_GAME["moves"]
        mid = await _play(service, "boxes", BOXES_GAME["options"], moves[:-1])
        live = service.get(mid)
        seat = live.ruleset.to_move(live.state)
        with worker.lock:  # the worker is busy elsewhere: the last move must not wait for it
            result = await service.submit(mid, live.players[seat].id, moves[-1])
            assert result.status == "accepted"
            stored = await service.store.load(mid)
            assert stored is not None and stored.status == "finished"
            assert mid in worker.pending
            assert await load_analysis(service.store, mid) is None
        await worker.drain()
        assert worker.pending == set()
        entries = await load_analysis(service.store, mid)
        assert entries is not None
        assert [e["verdict"] for e in entries] == [e["verdict"] for e in BOXES_GAME["expect"]]
        assert [e["value_p1"] for e in entries] == [e["value_p1"] for e in BOXES_GAME["expect"]]
    finally:
        await worker.close()


async def test_a_restart_analyses_the_finished_matches_left_without_one(
    host: tuple[MatchService, Recorder],
) -> None:
    service, _rec = host
    done = await _play(service, "boxes", BOXES_GAME["options"], BOXES_GAME["moves"])
    unfinished = await _play(service, "boxes", BOXES_GAME["options"], BOXES_GAME["moves"][:3])
    since = utcnow().replace(year=2000)
    assert await missing_analyses(service.store, since) == [done]
    worker = AnalysisWorker(service.store)  # the bot started again: nothing heard the finished event
    try:
        assert await worker.catch_up() == [done]
        await worker.drain()
        assert await missing_analyses(service.store, since) == []
        assert await load_analysis(service.store, done) is not None
        assert await load_analysis(service.store, unfinished) is None
    finally:
        await worker.close()


async def test_on_demand_analysis_is_computed_once_then_read(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    case = next(c for c in EXAMPLES if c["game"] == "trax")
    moves = [*case["before"], case["move"]]
    mid = await _play(service, "trax", {}, moves)
    assert await load_analysis(service.store, mid) is None
    first = await analysed(service.store, mid)  # not finished: computed, not stored
    assert first is not None and await load_analysis(service.store, mid) is None
    assert (await service.resign(mid, "a")).status == "accepted"
    stored = await service.store.load(mid)
    assert stored is not None and stored.status == "finished"
    second = await analysed(service.store, mid)  # finished: computed and stored
    assert second == first == await load_analysis(service.store, mid)
    assert next(e for e in second if e["ply"] == case["ply"])["verdict"] == case["verdict"]


async def test_the_worker_ignores_other_events_and_closes_cleanly(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    worker = AnalysisWorker(service.store)
    worker.attach(bus_of(service).subscribe)
    mid = await _play(service, "boxes", BOXES_GAME["options"], BOXES_GAME["moves"][:2])
    assert worker.pending == set()
    await worker.close()
    worker.enqueue(mid)  # closed: nothing is queued any more
    assert worker.pending == set()
    await asyncio.sleep(0)


@pytest.mark.slow  # `dmhost log --analyse` processes
async def test_log_analyse_on_the_command_line_computes_stores_and_reads(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'log.db'}"
    service = await make_service(url, Recorder())
    try:
        case = next(c for c in EXAMPLES if c["game"] == "trax" and c["ply"] == 14)
        mid = await _play(service, "trax", {}, [*case["before"], case["move"]])
        assert (await service.resign(mid, "a")).status == "accepted"
        command = [sys.executable, "-m", "bot.ops.cli", "log", str(mid), "--analyse", "--db", str(tmp_path / "log.db")]
        first = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, timeout=300)
        assert first.returncode == 0, first.stderr
        assert "14. bo A2\\: +0 mistake  missed a win in 2; best +1000 with H1/" in first.stdout
        stored = await load_analysis(service.store, mid)
        assert stored is not None and stored[13]["verdict"] == "mistake"
        again = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, timeout=300)
        assert again.stdout == first.stdout
    finally:
        await service.close()
        await service.store.close()


@pytest.mark.parametrize("events_json", [True, False], ids=["json", "human"])
@pytest.mark.slow  # a `dmhost room` process and its analysis
def test_the_terminal_room_stores_the_analysis_when_the_match_ends(tmp_path: Path, events_json: bool) -> None:
    """`dmhost room` analyses its match in the background worker once it ends and closes when it is stored:
    `dmhost log --html` and `--analyse` then read it (no engine runs in them)."""
    import os
    import re

    case = json.loads((TEST_DATA / "pages" / "boxes_blunder.json").read_text(encoding="utf-8"))
    db = str(tmp_path / "room.db")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "DMHOST_ANALYSIS": "true"}

    def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "bot.ops.cli", *args]
        return subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, timeout=300)

    flags = ["--events-json"] if events_json else []
    players = ["--player", "ann", "--player", "ben"]
    room = cli("room", "boxes", *players, "--db", db, "--opt", *case["options"], *flags, stdin="\n".join(case["moves"]))
    assert room.returncode == 0, room.stderr
    lines = room.stdout.strip().splitlines()
    if events_json:  # the contract's last line is still `finished`
        assert json.loads(lines[-1])["event"] == "finished"
    else:
        assert lines[-1] == analysing(1, ANALYSIS_WAIT)

    async def stored() -> list[dict[str, Any]] | None:
        from bot.store.matches import MatchStore

        store = MatchStore(f"sqlite+aiosqlite:///{db}")
        await store.open()
        try:
            return await load_analysis(store, 1)
        finally:
            await store.close()

    entries = asyncio.run(stored())
    assert entries is not None
    assert {str(e["ply"]): e["verdict"] for e in entries} == case["verdicts"]
    page = tmp_path / "match.html"
    assert cli("log", "1", "--db", db, "--html", str(page)).returncode == 0
    marks = dict(re.findall(r'<circle [^>]*data-ply="(\d+)" data-verdict="(\w+)"', page.read_text(encoding="utf-8")))
    assert marks == case["verdicts"]
    log = cli("log", "1", "--db", db, "--analyse")
    assert log.returncode == 0 and "6. ann B2-C2: -1 blunder  threw away 2 boxes" in log.stdout


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
async def test_ctrl_c_or_sigterm_after_the_match_skips_the_wait_for_its_analysis(tmp_path: Path, how: str) -> None:
    from bot.adapters.terminal import words
    from bot.adapters.terminal.room import Room
    from tests.bot.conftest import room_config, typed

    case = json.loads((TEST_DATA / "pages" / "boxes_blunder.json").read_text(encoding="utf-8"))
    options = dict(o.split("=") for o in case["options"])
    config = room_config(tmp_path, options=options, rules={"takeback": "0"}, analyse=True)
    room = Room(config, build_host(config.db_url), out=io.StringIO())
    if how == "sigterm":
        room.terminate()  # what the command line's SIGTERM handler calls
    lines = typed(*case["moves"], *([words.INTERRUPT] if how == "ctrl-c" else []))
    assert await room.run(lines) == 0
    assert room.finished.is_set()
    store = MatchStore(config.db_url)
    await store.open()
    try:
        assert await load_analysis(store, 1) is None  # left for `dmhost log --analyse` or the bot's catch-up
        assert await missing_analyses(store, utcnow() - dt.timedelta(hours=1)) == [1]
    finally:
        await store.close()
