"""The Boxes practice opponent (`dmhost room boxes --bot`) and move analysis (`dmhost log --analyse`)."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bot.adapters.terminal.room import BOT_ID, Room, RoomConfig
from bot.compose import Stage, build_host
from bot.host.service import HostEvent, MatchService, PlayerRef
from bot.records.analysis import analyse_match
from tests import DATA as TEST_DATA
from tests.bot.conftest import Recorder
from tests.buses import hear

DATA = TEST_DATA / "host"


async def test_analysis_marks_moves_that_throw_boxes_away(host: tuple[MatchService, Recorder]) -> None:
    case = json.loads((DATA / "analysis_boxes.json").read_text())
    service, _rec = host
    a, b = PlayerRef("a", "al"), PlayerRef("b", "bo")
    mid = await service.create_match("boxes", [a, b], options=case["options"])
    live = service.get(mid)
    for text in case["moves"]:
        seat = live.ruleset.to_move(live.state)
        assert (await service.submit(mid, live.players[seat].id, text)).status == "accepted"
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    entries = analyse_match(stored)
    assert len(entries) == len(case["expect"])
    for got, want in zip(entries, case["expect"], strict=True):
        assert got["analysed"] is True
        for key, value in want.items():
            assert got[key] == value, (want["ply"], key, got)
        assert got["threw_away"] == (want["loss"] > 0)


@pytest.mark.parametrize("level", ["easy", "medium", "perfect"])
async def test_practice_opponent_plays_legal_moves_and_perfect_never_loses(tmp_path: Path, level: str) -> None:
    # On 2×3 the second player wins by 2 with best play, so a perfect bot in seat 2 must win.
    config = RoomConfig(
        db_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}",
        game="boxes",
        players=["alice"],
        options={"rows": "2", "cols": "3"},
        events_json=True,
        bot_level=level,
    )
    out = open(tmp_path / "out.jsonl", "w")
    room = Room(config, build_host(config.db_url), out=out)
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    rng = random.Random(level)

    def on_event(ev: HostEvent) -> None:
        live = room.service.live.get(ev.match_id)
        if live is None or ev.kind not in ("started", "turn"):
            return
        seat = live.ruleset.to_move(live.state)
        if seat is not None and live.players[seat].id != BOT_ID:
            move = rng.choice(live.ruleset.legal_moves(live.state))
            lines.put_nowait("alice: " + live.ruleset.format(live.state, move))

    hear(room.service, on_event, Stage.FOLLOW)
    assert await asyncio.wait_for(room.run(lines), 120) == 0
    out.close()
    events = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert events[-1]["event"] == "finished"
    assert not [e for e in events if e["event"] in ("illegal", "rejected")]
    bot_moves = [e for e in events if e["event"] == "move" and e["seat"] == 2]
    assert bot_moves
    if level == "perfect":
        assert events[-1]["winner"].startswith("dmhost")


def test_room_bot_and_log_analyse_from_the_command_line(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    bad = subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", "room", "trax", "--player", "a", "--bot", "perfect", "--db", db],
        capture_output=True,
        text=True,
        input="",
    )
    assert bad.returncode == 2 and "random, easy, medium, hard" in bad.stderr
    room = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.ops.cli",
            "room",
            "boxes",
            "--player",
            "a",
            "--player",
            "b",
            "--db",
            db,
            "--opt",
            "rows=2",
            "cols=2",
        ],
        input="A1-B1\nB1-C1\nA2-B2\nA1-A2\nB1-B2\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert room.returncode == 0
    log = subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", "log", "1", "--db", db, "--analyse"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert log.returncode == 0, log.stderr
    assert "threw away 1 box (margin -2); best -2 with B2-C2" in log.stdout  # a margin of 2 is one box
    as_json = subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", "log", "1", "--db", db, "--analyse", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert [e["loss"] for e in json.loads(as_json.stdout)["analysis"]] == [0, 0, 0, 2, 0]
