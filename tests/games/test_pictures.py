"""Board pictures: golden images, size limits, the replay CLI's --png, GIFs, options."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from games import pictures, registry
from games.base import play_text
from tests import ROOT
from tests.games.regen_golden import GOLDEN, cases, compare, render_case

REGEN = os.environ.get("DMHOST_REGEN_GOLDEN") == "1"


def _golden_params() -> list[Any]:
    return [pytest.param(c, id=c["name"]) for c in cases()]


@pytest.mark.parametrize("case", _golden_params())
def test_golden_picture(case: dict[str, Any]) -> None:
    image = render_case(case)
    path = GOLDEN / f"{case['name']}.png"
    if REGEN or not path.exists():
        if not REGEN:
            pytest.fail(f"no golden {path.name}; run python -m tests.games.regen_golden and review it")
        image.save(path, optimize=True)
        return
    with Image.open(path) as expected:
        problem = compare(image, expected)
    assert problem is None, f"{case['name']}: {problem} (python -m tests.games.regen_golden rewrites goldens)"


def _play(game: str, opts: dict[str, Any], lines: list[str]) -> tuple[Any, list[Any]]:
    ruleset = registry.get(game)
    state = ruleset.new_game(ruleset.parse_options(opts))
    states = [state]
    for line in lines:
        state, _, _ = play_text(ruleset, state, line)
        states.append(state)
    return ruleset, states


@pytest.mark.parametrize("game", list(registry.GAME_MODULES))
def test_every_picture_fits_discord_width(game: str) -> None:
    ruleset = registry.get(game)
    biggest: dict[str, dict[str, Any]] = {
        "boxes": {"rows": 8, "cols": 8},
        "dotdash": {"size": 19},
        "dots": {"width": 39, "height": 32},
        "pathing": {},
        "trax": {},
    }
    state = ruleset.new_game(ruleset.parse_options(biggest.get(game, {})))
    for theme in ("light", "dark"):
        image = pictures.render_image(ruleset, state, theme=theme, clocks={1: 300, 2: 59.5}, names={1: "A" * 40})
        assert image.width <= pictures.MAX_WIDTH
        assert image.mode == "RGB"


def test_png_bytes_and_save(tmp_path: Path) -> None:
    ruleset, states = _play("boxes", {}, ["A1-B1"])
    data = pictures.render_png(ruleset, states[-1], last_move="A1-B1")
    assert data.startswith(b"\x89PNG")
    out = tmp_path / "b.png"
    pictures.save_png(ruleset, states[-1], out, previous=states[0])
    with Image.open(out) as im:
        assert im.format == "PNG"


def test_replay_cli_writes_png(tmp_path: Path) -> None:
    out = tmp_path / "out.png"
    proc = subprocess.run(
        [sys.executable, "-m", "games", "replay", "boxes", "--png", str(out)],
        input="A1-B1\nA2-B2\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["moves_applied"] == 2
    with Image.open(out) as im:
        assert im.format == "PNG" and im.width <= pictures.MAX_WIDTH


def test_replay_gif_has_one_frame_per_state() -> None:
    ruleset, states = _play("boxes", {}, ["A1-B1", "A2-B2", "A1-A2", "B1-B2"])
    clocks = [{1: 300.0 - i, 2: 300.0} for i in range(len(states))]
    data = pictures.render_replay_gif(ruleset, states, clocks=clocks)
    with Image.open(io.BytesIO(data)) as im:
        assert im.format == "GIF"
        assert im.n_frames == len(states)
        assert im.width <= pictures.MAX_WIDTH


def test_gif_pads_frames_of_different_sizes() -> None:
    frames = [Image.new("RGB", (40, 30), (255, 0, 0)), Image.new("RGB", (60, 20), (0, 0, 255))]
    data = pictures.render_gif(frames, [100, 200])
    with Image.open(io.BytesIO(data)) as im:
        assert im.size == (60, 30) and im.n_frames == 2


def test_palette_overrides_player_colours() -> None:
    ruleset, states = _play("boxes", {"rows": 1, "cols": 1}, ["A1-B1", "A2-B2", "A1-A2", "B1-B2"])
    image = pictures.render_image(ruleset, states[-1], history=states[:-1], palette={1: "#00ff00", 2: "#ff00ff"})
    colours = {c for _, c in image.getcolors(1 << 20) or []}
    assert (0, 255, 0) in colours and (255, 0, 255) in colours


def test_unknown_theme_is_refused() -> None:
    ruleset, states = _play("boxes", {}, [])
    with pytest.raises(ValueError, match="unknown theme"):
        pictures.render_image(ruleset, states[0], theme="neon")


def test_fonts_ship_with_the_package() -> None:
    fonts = Path(pictures.__file__).parent / "fonts"
    assert {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "LICENSE.txt"} <= {
        p.name for p in fonts.iterdir()
    }
    assert (fonts / "__init__.py").exists(), "fonts/ must be a package so setuptools ships its *.ttf"
