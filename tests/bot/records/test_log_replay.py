"""A match's stored log rebuilds exactly the position the host holds, take-backs and mulligans included."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from bot.host.service import MatchService, PlayerRef
from bot.records.replay import replay_match
from bot.wording import reason_text
from tests.bot.conftest import Recorder

W, R = PlayerRef("w", "wendy"), PlayerRef("r", "rick")


@pytest.mark.looptime
async def test_replay_honours_takebacks_and_mulligans(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("trax", [W, R])
    script = [(W, "@0+", 6), (R, "B1+", 1), (R, "take back", 1), (R, "@1/", 6), (W, "A0+", 6), (R, "mulligan", 0)]
    for who, text, wait in script:
        result = await service.submit(mid, who.id, text)
        assert result.status == "accepted", (text, reason_text(result))
        await asyncio.sleep(wait)
    live = service.get(mid)
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    ruleset, frames = replay_match(stored)
    assert ruleset.to_json(frames[-1].state) == ruleset.to_json(live.state)
    assert [f.move for f in frames] == [None, "@0+"]


@pytest.mark.looptime
async def test_replay_of_a_finished_boxes_match(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("boxes", [W, R], options={"rows": 1, "cols": 1}, clock={"move": 5, "reserve": 60})
    for who, text, wait in [(W, "A1-B1", 10), (R, "A2-B2", 1), (W, "A1-A2", 1), (R, "B1-B2", 0)]:
        await asyncio.sleep(wait)
        assert (await service.submit(mid, who.id, text)).status == "accepted"
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    ruleset, frames = replay_match(stored)
    assert len(frames) == 5 and ruleset.outcome(frames[-1].state) is not None
    # Wendy used 10 s on her first move: 5 s over the move time came out of her reserve.
    assert frames[-1].clocks[1] == pytest.approx(55, abs=0.1)
    assert frames[-1].clocks[2] == pytest.approx(60, abs=0.1)


@pytest.mark.slow  # `dmhost` processes
def test_log_gif_and_sgf_from_the_command_line(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")
    room = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.ops.cli",
            "room",
            "dots",
            "--player",
            "al",
            "--player",
            "bo",
            "--db",
            db,
            "--opt",
            "width=9",
            "height=9",
            "start=empty",
        ],
        input="E5\nF6\nD6\nE7\nstop\nA1\nend\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert room.returncode == 0, room.stderr
    gif, sgf = tmp_path / "m.gif", tmp_path / "m.sgf"
    log = subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", "log", "1", "--db", db, "--gif", str(gif), "--sgf", str(sgf)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert log.returncode == 0, log.stderr
    with Image.open(gif) as im:
        assert im.n_frames == 8 and im.size[0] <= 1000
    replay = subprocess.run(
        [sys.executable, "-m", "games", "replay", "dots", "--sgf", str(sgf)], capture_output=True, text=True, timeout=60
    )
    assert replay.returncode == 0 and '"winner": 2' in replay.stdout and '"reason": "stop"' in replay.stdout
