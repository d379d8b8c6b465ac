"""Board pictures: golden images, size limits, the replay CLI's --png, GIFs, options."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from games import pictures, registry
from games.base import play_text
from games.boxes import geometry
from games.dotdash import geometry as dotdash_geometry
from games.dots.field import geometry as dots_geometry
from games.pathing import EDGE_SQUARES, PICK, SIZE
from games.pictures import boxes as boxes_pic
from games.pictures import core, style
from games.pictures import dotdash as dotdash_pic
from games.pictures import dots as dots_pic
from games.pictures import pathing as pathing_pic
from games.pictures import trax as trax_pic
from games.pictures.core import HEADER
from games.pictures.style import BLUE, FORCED, HIGHLIGHT, RED, WHITE
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


# -- names, colours and the last move ---------------------------------------------------------

NAMES = ("alice", "bob")


def _px(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("RGB"), dtype=np.int16)


def _changed(a: Image.Image, b: Image.Image) -> np.ndarray:
    """Mask of pixels that differ clearly between two pictures of the same size."""
    assert a.size == b.size
    return np.abs(_px(a) - _px(b)).max(axis=2) > 48


def _near(mask: np.ndarray, point: tuple[float, float], radius: float) -> bool:
    """Whether the mask has a pixel within `radius` of (x, y)."""
    ys, xs = np.nonzero(mask)
    return bool((((xs - point[0]) ** 2 + (ys - point[1]) ** 2) <= radius**2).any())


def _origin(game: str, state: Any, image: Image.Image) -> tuple[int, int]:
    """Top-left corner of the board area in the picture."""
    bw, _bh = pictures.renderer_for(game).board_size(state)
    return (image.width - bw) // 2, HEADER


def _game(name: str) -> tuple[Any, list[Any], Any]:
    """(ruleset, states, last move value) of a golden case's game."""
    case = next(c for c in cases() if c["name"] == name)
    ruleset, states = _play(case["game"], case.get("opts", {}), case["lines"])
    move = ruleset.parse(states[-2], case["lines"][-1], ruleset.to_move(states[-2]))
    return ruleset, states, move


def _boxes_points(image: Image.Image, states: list[Any], move: Any) -> list[tuple[float, float]]:
    state = states[-1]
    r = boxes_pic.RENDERER
    c = r.cell(state)
    x0, y0 = _origin("boxes", state, image)
    ox, oy = x0 + boxes_pic.LABEL + r.pad(c), y0 + boxes_pic.LABEL + r.pad(c)
    (c1, r1), (c2, r2) = geometry(state.rows, state.cols).edge_points[move]
    return [(ox + (c1 + c2) / 2 * c, oy + (r1 + r2) / 2 * c)]


def _pathing_points(image: Image.Image, states: list[Any], move: Any) -> list[tuple[float, float]]:
    x0, y0 = _origin("pathing", states[-1], image)
    bx, by = x0 + pathing_pic.LABEL, y0 + pathing_pic.CAPTION + pathing_pic.LABEL
    cell = pathing_pic.CELL

    def square(sq: int) -> tuple[float, float]:
        r, c = divmod(sq, SIZE)
        return bx + c * cell + cell / 2, by + r * cell + cell / 2

    if move >= PICK:
        return [square(move - PICK)]
    a, b = EDGE_SQUARES[move]
    sx = x0 + pathing_pic.LABEL + pathing_pic.BOARD + pathing_pic.GAP + pathing_pic.LABEL + pathing_pic.PAD
    sy = y0 + pathing_pic.CAPTION + pathing_pic.LABEL + pathing_pic.PAD
    (ar, ac), (br, bc) = divmod(a, SIZE), divmod(b, SIZE)
    support = (sx + (ac + bc) / 2 * cell, sy + (ar + br) / 2 * cell)
    return [square(a), square(b), support]


def _trax_cell(image: Image.Image, state: Any, key: int) -> tuple[float, float]:
    s = trax_pic.RENDERER.tile(state)
    x0, y0 = _origin("trax", state, image)
    minx, _, miny, _ = state.box
    x, y = (key >> 16) - minx + 1, (key & 0xFFFF) - miny + 1
    return x0 + trax_pic.LABEL + x * s + s / 2, y0 + trax_pic.LABEL + y * s + s / 2


def _trax_points(image: Image.Image, states: list[Any], move: Any) -> list[tuple[float, float]]:
    placed, forced = trax_pic.last_turn(states[-1])
    return [_trax_cell(image, states[-1], k) for k in (*placed, *forced)]


def _dots_points(image: Image.Image, states: list[Any], move: Any) -> list[tuple[float, float]]:
    state = states[-1]
    c = dots_pic.RENDERER.cell(state)
    x0, y0 = _origin("dots", state, image)
    x, y = dots_geometry(state.width, state.height).xy(state.last)
    return [(x0 + dots_pic.LABEL + c // 2 + x * c, y0 + dots_pic.LABEL + c // 2 + y * c)]


def _dotdash_points(image: Image.Image, states: list[Any], move: Any) -> list[tuple[float, float]]:
    state = states[-1]
    c = dotdash_pic.RENDERER.cell(state)
    x0, y0 = _origin("dotdash", state, image)
    geo = dotdash_geometry(state.size)
    (sc, sr), (dc, dr) = geo.colrow(move.src), geo.colrow(move.dst)
    step = ((dc > sc) - (dc < sc), (dr > sr) - (dr < sr))
    points = [(sc, sr), (dc, dr), (dc - step[0], dr - step[1]), (dc - 2 * step[0], dr - 2 * step[1])]
    ox, oy = x0 + dotdash_pic.LABEL + c // 2, y0 + dotdash_pic.LABEL + c // 2
    return [(ox + col * c, oy + row * c) for col, row in points]


HIGHLIGHT_CASES = {
    # case, where the move is, how near a mark must be (squares and tiles are framed, not marked at their centre)
    "boxes": ("boxes-names-last-edge", _boxes_points, 10),
    "pathing-swap": ("pathing-names-swap", _pathing_points, 34),
    "pathing-pick": ("pathing-names-pick", _pathing_points, 34),
    "trax": ("trax-names-forced", _trax_points, 30),
    "dots": ("dots-names-capture", _dots_points, 14),
    "dotdash": ("dotdash-names-slide", _dotdash_points, 24),
}


@pytest.mark.parametrize("which", list(HIGHLIGHT_CASES))
def test_last_move_is_marked_where_the_move_is(which: str) -> None:
    case, points_of, radius = HIGHLIGHT_CASES[which]
    ruleset, states, move = _game(case)
    kw: dict[str, Any] = {"names": NAMES, "last_move": move, "prev_state": states[-2]}
    marked = pictures.render_image(ruleset, states[-1], **kw)
    plain = pictures.render_image(ruleset, states[-1], highlight=False, **kw)
    if marked.size != plain.size:  # a key line under the status says what the marks mean (Trax)
        assert marked.width == plain.width and marked.height > plain.height
        top = plain.height - core.MARGIN  # the board and the status line; the key is below them
        marked, plain = marked.crop((0, 0, plain.width, top)), plain.crop((0, 0, plain.width, top))
    mask = _changed(marked, plain)
    assert mask.any(), "the last move changes no pixel"
    # Only the board carries marks: the title, legend and status line are the same.
    assert not mask[:HEADER].any()
    points = points_of(marked, states, move)
    for p in points:
        assert _near(mask, p, radius), f"no mark near {p} (the move's place on the board)"
    # And nothing is marked far from the move (more than two cells away from every marked place).
    ys, xs = np.nonzero(mask)
    far = np.ones(len(xs), dtype=bool)
    for px, py in points:
        far &= (xs - px) ** 2 + (ys - py) ** 2 > 140**2
    assert not far.any(), "marks far from the move"


@pytest.mark.parametrize("which", ["boxes", "pathing-swap", "pathing-pick", "dotdash"])
def test_previous_state_alone_finds_the_same_move(which: str) -> None:
    case, _, _ = HIGHLIGHT_CASES[which]
    ruleset, states, move = _game(case)
    by_move = pictures.render_image(ruleset, states[-1], names=NAMES, last_move=move, prev_state=states[-2])
    by_diff = pictures.render_image(ruleset, states[-1], names=NAMES, prev_state=states[-2])
    unmarked = pictures.render_image(ruleset, states[-1], names=NAMES, prev_state=states[-2], highlight=False)
    status_top = by_move.height - 60  # the status line names the move only when it is given
    assert not _changed(by_move, by_diff)[:status_top].any()
    assert _changed(by_move, unmarked)[:status_top].any()


def test_trax_marks_the_placed_tile_and_the_forced_tiles_apart() -> None:
    ruleset, states, move = _game("trax-names-forced")
    state = states[-1]
    placed, forced = trax_pic.last_turn(state, states[-2])
    assert len(placed) == 1 and len(forced) >= 2
    # Without a previous state the state's own last turn gives the same tiles.
    assert trax_pic.last_turn(state) == (placed, forced)
    image = pictures.render_image(ruleset, state, names=NAMES, last_move=move)
    px = _px(image)
    s = trax_pic.RENDERER.tile(state)

    def colours_round(key: int) -> set[tuple[int, int, int]]:
        cx, cy = _trax_cell(image, state, key)
        half = s // 2
        box = px[round(cy) - half : round(cy) + half, round(cx) - half : round(cx) + half].reshape(-1, 3)
        return {tuple(int(v) for v in p) for p in box}

    assert HIGHLIGHT in colours_round(placed[0]) and FORCED not in colours_round(placed[0])
    for key in forced:
        assert FORCED in colours_round(key) and HIGHLIGHT not in colours_round(key)


def test_dots_fills_the_newly_captured_area_stronger() -> None:
    ruleset, states, _move = _game("dots-names-capture")
    assert ruleset.scores(states[-1]) != ruleset.scores(states[-2]), "the case's last move captures"
    fresh = dots_pic.new_area_polys(states[-1], states[-2])
    assert fresh
    with_prev = pictures.render_image(ruleset, states[-1], names=NAMES, prev_state=states[-2])
    without = pictures.render_image(ruleset, states[-1], names=NAMES)
    mask = _changed(with_prev, without)
    assert mask[:HEADER].sum() == 0 and mask.sum() > 200
    # Earlier captures are not re-marked: a position without a new capture marks no area.
    later = play_text(ruleset, states[-1], "A6")[0]
    assert not dots_pic.new_area_polys(later, states[-1])


@pytest.mark.parametrize("game", list(registry.GAME_MODULES))
def test_names_are_shown_in_the_legend(game: str) -> None:
    ruleset = registry.get(game)
    state = ruleset.new_game(ruleset.parse_options({}))
    named = pictures.render_image(ruleset, state, names=NAMES)
    as_map = pictures.render_image(ruleset, state, names={1: "alice", 2: "bob"})
    other = pictures.render_image(ruleset, state, names=("zoe", "yann"))
    unnamed = pictures.render_image(ruleset, state)
    assert not _changed(named, as_map).any(), "a pair and a mapping name the same seats"
    for picture in (other, unnamed):
        mask = _changed(named, picture)
        assert mask[HEADER - 2 * 20 - 6 : HEADER].any(), "the legend lines show the names"
    assert core.text_width("alice · red", "sans", core.LINE_SIZE) > 0


def test_names_never_fall_back_to_seat_numbers() -> None:
    ruleset, states = _play("boxes", {}, ["A1-B1"])
    label = pictures.renderer_for("boxes").colour_word(ruleset, states[-1], 1)
    assert label == "red"
    with pytest.raises(TypeError):
        pictures.render_image(ruleset, states[-1], names="alice")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("game", "opts", "lines", "expected"),
    [
        ("boxes", {}, [], {1: "red", 2: "blue"}),
        ("dots", {}, [], {1: "red", 2: "blue"}),
        ("pathing", {}, [], {1: "red", 2: "blue"}),
        ("trax", {}, [], {1: "white", 2: "red"}),
        ("trax", {"first_color": "red"}, [], {1: "red", 2: "white"}),
        ("dotdash", {"size": 9}, ["setup red E5 blue D4 F6", "take red"], {1: "blue", 2: "red"}),
        ("dotdash", {"size": 9}, ["setup red E5 blue D4 F6", "take blue"], {1: "red", 2: "blue"}),
    ],
)
def test_each_seat_is_drawn_in_its_colour(game: str, opts: dict[str, Any], lines: list[str], expected: dict) -> None:
    ruleset, states = _play(game, opts, lines)
    renderer = pictures.renderer_for(game)
    for seat, word in expected.items():
        assert renderer.colour_word(ruleset, states[-1], seat) == word
        rgb = renderer.seat_colour(ruleset, states[-1], pictures.DEFAULT_PALETTE, seat)
        assert rgb == {"red": RED, "blue": BLUE, "white": WHITE}[word]
    # The red reads as red: its red channel dominates both others by far.
    assert RED[0] > 180 and RED[0] > 3 * max(RED[1], RED[2])


def test_replay_gif_ends_on_the_final_position_with_the_result() -> None:
    ruleset, states = _play("boxes", {"rows": 1, "cols": 1}, ["A1-B1", "A2-B2", "A1-A2", "B1-B2"])
    moves = [None] + [ruleset.parse(states[i], m, None) for i, m in enumerate(["A1-B1", "A2-B2", "A1-A2", "B1-B2"])]
    data = pictures.render_replay_gif(ruleset, states, names=NAMES, moves=moves, result="bob wins (boxes)")
    with Image.open(io.BytesIO(data)) as im:
        assert im.n_frames == len(states)
        im.seek(im.n_frames - 1)
        last = im.convert("RGB")
        assert im.info.get("duration", 0) >= 2500
    expected = pictures.render_image(
        ruleset, states[-1], names=NAMES, last_move=moves[-1], prev_state=states[-2], result="bob wins (boxes)"
    )
    assert last.size == expected.size
    assert float(np.abs(_px(last) - _px(expected)).mean()) < 3.0
    unresolved = pictures.render_image(ruleset, states[-1], names=NAMES, last_move=moves[-1], prev_state=states[-2])
    assert float(np.abs(_px(last) - _px(unresolved)).mean()) > float(np.abs(_px(last) - _px(expected)).mean())


@pytest.mark.parametrize("game", list(registry.GAME_MODULES))
def test_every_game_has_pictures(game: str) -> None:
    assert pictures.has_renderer(game)
    assert pictures.renderer_for(game).game_id == game


def test_long_names_are_shortened_to_fit_but_keep_the_colour() -> None:
    ruleset, states = _play("dotdash", {"size": 7}, [])
    long_name = "W" * 40
    image = pictures.render_image(ruleset, states[0], names=(long_name, "bob"), clocks={1: 300, 2: 59})
    assert image.width == core.MIN_WIDTH
    fnt = style.font("sans", 14)
    short = core.fit(f"{long_name} · red", fnt, 200)
    assert short.endswith("…") and fnt.getlength(short) <= 200
    assert core.fit("alice · red", fnt, 200) == "alice · red"
