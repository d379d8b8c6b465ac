"""The terminal room's --png frames: players' names, the last move, and a last frame of the final position."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from bot.adapters.terminal.room import Room
from bot.compose import build_host
from games import pictures, registry
from games.base import play_text
from tests.bot.conftest import room_config, typed

LINES = ["alice: A1-B1", "bob: A2-B2", "alice: A1-A2", "bob: B1-B2"]


async def _run_room(tmp_path: Path, lines: list[str]) -> list[Path]:
    out = tmp_path / "pics"
    config = room_config(tmp_path, options={"rows": "1", "cols": "1"}, png_dir=out)
    assert (
        await Room(config, build_host(config.db_url), out=io.StringIO()).run(
            typed(*[line + "\n" for line in lines], None)
        )
        == 0
    )
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
            result="bob wins on score, 1–0" if i == len(LINES) else None,
            winner=outcome.winner if i == len(LINES) else None,
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
    said = "alice wins by resignation"
    final = np.asarray(pictures.render_image(ruleset, after, result=said, winner=1, **kw), dtype=np.int16)
    assert np.abs(_pixels(files[-1]) - final).max() == 0
    # The winner's legend line has the star: the same picture without `winner` differs only there.
    unstarred = np.asarray(pictures.render_image(ruleset, after, result=said, **kw), dtype=np.int16)
    assert (np.abs(final - unstarred) > 64).any()
    # Without the result the status line would say whose turn it is: the frames differ there.
    running = np.asarray(pictures.render_image(ruleset, after, **kw), dtype=np.int16)
    assert (np.abs(final - running) > 64).any()


async def test_a_trax_loop_under_an_open_mulligan_is_not_drawn_as_a_win(tmp_path: Path) -> None:
    from tests.games.regen_golden import cases
    from tests.games.test_pictures_legible import _marker_ink

    case = next(c for c in cases() if c["name"] == "trax-loop-win")
    lines = [f"{('alice', 'bob')[i % 2]}: {move}" for i, move in enumerate(case["lines"])]
    out = tmp_path / "pics"
    # final at once: the loop waits only for the loser's mulligan answer
    config = room_config(tmp_path, "trax", rules={"takeback": "0"}, png_dir=out, events_json=False)
    await Room(config, build_host(config.db_url), out=io.StringIO()).run(typed(*[line + "\n" for line in lines], None))
    files = sorted(out.glob("*.png"))
    assert len(files) == 1 + len(lines)
    ruleset = registry.get("trax")
    states = [ruleset.new_game(ruleset.parse_options({}))]
    for move in case["lines"]:
        states.append(play_text(ruleset, states[-1], move)[0])
    state = states[-1]
    outcome = ruleset.outcome(state)
    assert outcome is not None and outcome.winner is not None
    with Image.open(files[-1]) as last:
        assert _marker_ink(last, outcome.winner) == 0, "no star while the loser may still take a mulligan"
    decided = pictures.render_image(ruleset, state, names=("alice", "bob"))
    assert _marker_ink(decided, outcome.winner) > 0
    # The status line says the result that may still be undone, in the room's words.
    said = f"{('alice', 'bob')[outcome.winner - 1]} would win with a loop (not final yet)"
    kw: dict[str, Any] = {"names": ("alice", "bob"), "last_move": case["lines"][-1], "prev_state": states[-2]}
    shown = np.asarray(pictures.render_image(ruleset, state, result=said, final=False, **kw), dtype=np.int16)
    assert np.abs(_pixels(files[-1]) - shown).max() == 0
