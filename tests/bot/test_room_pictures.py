"""The terminal room's --png frames: players' names, the last move, and a last frame of the final position."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image

from bot.adapters.terminal.room import Room
from games import pictures, registry
from games.base import play_text
from tests.bot.conftest import room_config, typed

LINES = ["alice: A1-B1", "bob: A2-B2", "alice: A1-A2", "bob: B1-B2"]


async def _run_room(tmp_path: Path, lines: list[str]) -> list[Path]:
    out = tmp_path / "pics"
    config = room_config(tmp_path, options={"rows": "1", "cols": "1"}, png_dir=out)
    assert await Room(config, out=io.StringIO()).run(typed(*[line + "\n" for line in lines], None)) == 0
    return sorted(out.glob("*.png"))


def _pixels(path: Path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"), dtype=np.int16)


async def test_frames_show_names_last_move_and_the_final_position(tmp_path: Path) -> None:
    files = await _run_room(tmp_path, LINES)
    # The start, one frame per move (the finishing move's frame is the final one) and nothing more.
    assert len(files) == 1 + len(LINES)

    ruleset = registry.get("boxes")
    states = [ruleset.new_game(ruleset.parse_options({"rows": 1, "cols": 1}))]
    for line in LINES:
        states.append(play_text(ruleset, states[-1], line.split(": ")[1])[0])
    outcome = ruleset.outcome(states[-1])
    assert outcome is not None and outcome.winner is not None

    # Each frame after a move is the picture with both names, that move highlighted and every edge in the
    # colour of the player who drew it.
    for i, line in enumerate(LINES, start=1):
        expected = pictures.render_image(
            ruleset,
            states[i],
            names=("alice", "bob"),
            last_move=line.split(": ")[1],
            history=states[:i],
            result=f"{('alice', 'bob')[outcome.winner - 1]} wins ({outcome.reason})" if i == len(LINES) else None,
        )
        got = _pixels(files[i])
        assert got.shape == np.asarray(expected).shape, files[i].name
        assert np.abs(got - np.asarray(expected, dtype=np.int16)).max() == 0, f"frame {files[i].name} differs"

    # The final frame is not a repeat of the one before: the last edge and the owned box are on it.
    assert (np.abs(_pixels(files[-1]) - _pixels(files[-2])) > 64).any()


async def test_resignation_ends_on_a_frame_with_the_result(tmp_path: Path) -> None:
    files = await _run_room(tmp_path, ["alice: A1-B1", "bob: resign"])
    assert len(files) == 3
    ruleset = registry.get("boxes")
    start = ruleset.new_game(ruleset.parse_options({"rows": 1, "cols": 1}))
    after = play_text(ruleset, start, "A1-B1")[0]
    kw = {"names": ("alice", "bob"), "last_move": "A1-B1", "history": [start]}
    final = np.asarray(pictures.render_image(ruleset, after, result="alice wins (resign)", **kw), dtype=np.int16)
    assert np.abs(_pixels(files[-1]) - final).max() == 0
    # Without the result the status line would say whose turn it is: the frames differ there.
    running = np.asarray(pictures.render_image(ruleset, after, **kw), dtype=np.int16)
    assert (np.abs(final - running) > 64).any()
