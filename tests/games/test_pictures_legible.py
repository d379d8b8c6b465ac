"""Pictures as players read them: both Trax labels, the star on every win, no early result or colour,
captions that wrap, Dots coordinates legible on a phone, GIF frames without bands."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from games import pictures, registry
from games.base import play_text
from games.pictures import core, style
from games.pictures import dotdash as dotdash_pic
from games.pictures import dots as dots_pic
from tests.games.regen_golden import cases

NAMES = ("alice", "bob")
LEGEND_TOP = core.MARGIN + core.TITLE_SIZE + core.LINE_GAP
"""The first legend line's top; each seat's line is LINE_SIZE + LINE_GAP below the one before."""


def _play(game: str, opts: dict[str, Any], lines: list[str]) -> tuple[Any, list[Any], Any]:
    ruleset = registry.get(game)
    state = ruleset.new_game(ruleset.parse_options(opts))
    states, move = [state], None
    for line in lines:
        state, move, _ = play_text(ruleset, state, line)
        states.append(state)
    return ruleset, states, move


def _status(game: str, ruleset: Any, state: Any, **kw: Any) -> str:
    return core.status_line(pictures.renderer_for(game), ruleset, state, names=dict(enumerate(NAMES, 1)), **kw)


def _marker_ink(image: Image.Image, seat: int) -> int:
    """Dark pixels where a legend line's marker (▶ or ★) is drawn."""
    top = LEGEND_TOP + (seat - 1) * (core.LINE_SIZE + core.LINE_GAP)
    box = np.asarray(image.convert("L"))[top : top + core.LINE_SIZE + 2, core.MARGIN : core.MARGIN + 14]
    return int((box < 100).sum())


def test_trax_status_names_the_move_as_written_and_the_tiles_label_now() -> None:
    ruleset, states, move = _play("trax", {}, ["@0/", "@1+"])
    text = _status("trax", ruleset, states[-1], last_move=move, previous=states[-2])
    assert "last: @1+ (now A1)" in text
    # The same when the move is given as text, and when only the state is known.
    assert "last: @1+ (now A1)" in _status("trax", ruleset, states[-1], last_move="@1+")
    # A move whose label did not change is named once.
    ruleset, states, move = _play("trax", {}, ["@0/", "A2/"])
    text = _status("trax", ruleset, states[-1], last_move=move, previous=states[-2])
    assert text.endswith("last: A2/")


@pytest.mark.parametrize(
    ("reason", "result"),
    [
        ("boxes", None),
        ("time", "bob wins on time"),
        ("resign", "bob wins: alice resigned"),
        ("award", "bob wins: awarded by the host"),
    ],
)
def test_the_winner_has_the_star_however_the_match_ended(reason: str, result: str | None) -> None:
    lines = ["A1-B1", "A2-B2", "A1-A2", "B1-B2"] if reason == "boxes" else ["A1-B1"]
    ruleset, states, _move = _play("boxes", {"rows": 1, "cols": 1}, lines)
    assert (ruleset.outcome(states[-1]) is not None) == (reason == "boxes")
    image = pictures.render_image(ruleset, states[-1], names=NAMES, result=result, winner=2)
    assert _marker_ink(image, 2) >= _star_ink().sum() * 0.6, "the winner's line has the star"
    assert _marker_ink(image, 1) == 0, "the loser's line has no marker"
    unstarred = pictures.render_image(ruleset, states[-1], names=NAMES, result=result)
    if reason != "boxes":  # the engine knows nothing of time, resignation and awards
        assert _marker_ink(unstarred, 2) == 0


def _star_ink() -> np.ndarray:
    """The star glyph as the legend draws it, to compare ink counts with."""
    img = Image.new("L", (20, 20), 255)
    ImageDraw.Draw(img).text((0, 0), "★", fill=0, font=style.font("sans", core.LINE_SIZE - 2))
    return np.asarray(img) < 100


def test_a_result_that_can_still_be_undone_is_not_a_win() -> None:
    case = next(c for c in cases() if c["name"] == "trax-loop-win")
    ruleset, states, _move = _play("trax", case["opts"], case["lines"])
    outcome = ruleset.outcome(states[-1])
    assert outcome is not None and outcome.winner is not None
    winner = outcome.winner
    open_ = _status("trax", ruleset, states[-1], final=False)
    assert "wins" not in open_ and "not final" in open_ and NAMES[winner - 1] in open_
    assert "wins (loop)" in _status("trax", ruleset, states[-1])
    provisional = pictures.render_image(ruleset, states[-1], names=NAMES, final=False)
    decided = pictures.render_image(ruleset, states[-1], names=NAMES)
    assert _marker_ink(decided, winner) > 0
    assert _marker_ink(provisional, winner) == 0, "no star while the result can be undone"


def test_dot_dash_names_no_colour_before_the_choice() -> None:
    ruleset, states, _ = _play("dotdash", {"size": 9}, ["setup red E5 blue D4 F6"])
    renderer = pictures.renderer_for("dotdash")
    for state in states:  # before the setup and while the second player chooses
        for seat in (1, 2):
            assert renderer.colour_word(ruleset, state, seat) == ""
            assert renderer.seat_colour(ruleset, state, pictures.DEFAULT_PALETTE, seat) == dotdash_pic.NO_COLOUR
        assert "blue" not in core.seat_name(renderer, ruleset, state, None, 2).lower()
    assert _status("dotdash", ruleset, states[-1]).startswith("bob chooses a colour")
    chosen = play_text(ruleset, states[-1], "take blue")[0]
    assert {renderer.colour_word(ruleset, chosen, s) for s in (1, 2)} == {"red", "blue"}


def test_long_status_and_caption_wrap_instead_of_being_cut() -> None:
    ruleset, states, move = _play("dotdash", {"size": 9}, ["setup red E5 blue D4 F6"])
    long_names = ("alexandra-the-great", "bartholomew")
    caption = "alexandra-the-great 4:59   bartholomew 5:00   and more words so that it needs a second line"
    kw: dict[str, Any] = {"names": long_names, "last_move": move, "prev_state": states[-2]}
    short = pictures.render_image(ruleset, states[-1], **kw)
    wrapped = pictures.render_image(ruleset, states[-1], caption=caption, **kw)
    status = core.status_line(
        pictures.renderer_for("dotdash"),
        ruleset,
        states[-1],
        names=dict(enumerate(long_names, 1)),
        last_move=move,
        previous=states[-2],
    )
    room = short.width - 2 * core.MARGIN
    lines = core.wrap(status, style.font("sans", core.LINE_SIZE), room, core.STATUS_LINES)
    assert len(lines) == 2 and " ".join(lines) == status and not any("…" in line for line in lines)
    assert "setup red E5 blue D4 F6" in status
    cap_lines = core.wrap(caption, style.font("mono", core.LINE_SIZE - 1), room, core.CAPTION_LINES)
    assert len(cap_lines) >= 2 and " ".join(cap_lines) == caption
    step = core.LINE_SIZE + core.LINE_GAP
    assert wrapped.height == short.height + len(cap_lines) * step
    # Text too long for the most lines allowed is shortened on the last one only.
    many = core.wrap("word " * 200, style.font("sans", core.LINE_SIZE), room, 3)
    assert len(many) == 3 and many[-1].endswith("…") and "…" not in "".join(many[:2])


def _ink_rows(region: np.ndarray) -> list[tuple[int, int]]:
    """Vertical runs of rows holding dark ink in a strip: one (top, bottom) per glyph line."""
    dark = [bool(v) for v in np.asarray((region < 110).any(axis=1)).tolist()]
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for y, on in enumerate([*dark, False]):
        if on and start is None:
            start = y
        elif not on and start is not None:
            runs.append((start, y - 1))
            start = None
    return runs


def _ink_cols(region: np.ndarray) -> list[tuple[int, int]]:
    return _ink_rows(region.T)


def test_dots_39x32_coordinates_are_legible_on_all_four_sides() -> None:
    ruleset, states, move = _play("dots", {}, ["E7", "F7", "K20"])
    state = states[-1]
    assert (state.width, state.height) == (39, 32)
    renderer = dots_pic.RENDERER
    size = renderer.label_size(state)
    assert size >= 14
    image = pictures.render_image(ruleset, state, names=NAMES, last_move=move, prev_state=states[-2])
    assert image.width <= pictures.MAX_WIDTH
    gray = np.asarray(image.convert("L")).astype(int)
    bw, bh = renderer.board_size(state)
    x0, y0 = (image.width - bw) // 2, core.HEADER
    c, g = renderer.cell(state), dots_pic.gutter(renderer.cell(state))
    # The glyph height of a row number at the chosen size, rendered alone, is what the picture shows.
    probe = Image.new("L", (60, 60), 255)
    ImageDraw.Draw(probe).text((30, 30), "32", fill=0, font=style.font(dots_pic.LABEL_FONT, size), anchor="mm")
    ((pt, pb),) = _ink_rows(np.asarray(probe).astype(int))
    glyph_h = pb - pt + 1
    assert glyph_h >= 10  # digits of a 14 px font stand about 10 px tall
    left = gray[y0 + g : y0 + g + state.height * c, x0 + 2 : x0 + g - 2]
    right = gray[y0 + g : y0 + g + state.height * c, x0 + g + state.width * c + 2 : x0 + bw - 2]
    for strip in (left, right):
        rows = _ink_rows(strip)
        assert len(rows) == state.height, "every row is numbered on both sides"
        assert all(b - t + 1 == glyph_h for t, b in rows)
    top = gray[y0 + 2 : y0 + g - 2, x0 + g : x0 + g + state.width * c]
    bottom = gray[y0 + g + state.height * c + 2 : y0 + bh - 2, x0 + g : x0 + g + state.width * c]
    for strip in (top, bottom):
        assert len(_ink_rows(strip)) == 1
        # One letter group per column (two-letter columns stay apart from their neighbours).
        groups = _ink_cols(strip)
        assert len(groups) >= state.width
        per_column = {min(state.width - 1, ((a + b) // 2) // c) for a, b in groups}
        assert per_column == set(range(state.width))


def test_dots_crop_around_the_last_dot_while_a_large_game_runs() -> None:
    ruleset, states, move = _play("dots", {}, ["E7", "F7", "K20"])
    crop = pictures.render_zoom(ruleset, states[-1], names=NAMES, last_move=move, prev_state=states[-2])
    assert crop is not None and crop.width <= pictures.MAX_WIDTH
    zoom = dots_pic.zoom_renderer(states[-1])
    assert zoom is not None and zoom.around == "K20"
    assert zoom.label_size(states[-1]) >= 16 and zoom.cell(states[-1]) >= 2 * dots_pic.RENDERER.cell(states[-1]) - 10
    x, y, w, h = zoom.window(states[-1])
    assert x <= 10 < x + w and y <= 19 < y + h and (w, h) == (dots_pic.ZOOM_SPAN, dots_pic.ZOOM_SPAN)
    # Near an edge the window stays on the field.
    _ruleset2, states2, _move2 = _play("dots", {}, ["A1"])
    zoom2 = dots_pic.zoom_renderer(states2[-1])
    assert zoom2 is not None and zoom2.window(states2[-1])[:2] == (0, 0)
    # Small fields read well whole: no crop.
    small, small_states, small_move = _play("dots", {"width": 9, "height": 9}, ["A1"])
    assert pictures.render_zoom(small, small_states[-1], last_move=small_move) is None
    assert pictures.render_zoom(ruleset, states[0]) is None  # nothing placed yet


def test_gif_frames_of_a_growing_trax_board_have_no_band() -> None:
    case = next(c for c in cases() if c["name"] == "trax-loop-win")
    ruleset, states, _ = _play("trax", case["opts"], case["lines"][:8])
    data = pictures.render_replay_gif(ruleset, states, names=NAMES)
    background = np.array(style.THEMES["light"].background)
    with Image.open(io.BytesIO(data)) as im:
        for i in range(getattr(im, "n_frames", 1)):
            im.seek(i)
            px = np.asarray(im.convert("RGB")).astype(int)
            inner = px[-core.MARGIN : -core.BORDER - 1, core.BORDER + 1 : -core.BORDER - 1]
            assert np.abs(inner - background).max() <= 12, f"frame {i}: a band under the board"
            assert np.abs(px[-1, px.shape[1] // 2] - np.array(style.THEMES["light"].border)).max() <= 12


def test_gif_last_frame_keeps_the_whole_clock_caption() -> None:
    ruleset, states, _moves = _play("boxes", {"rows": 2, "cols": 2}, ["A1-B1", "A2-B2"])
    captions = [f"move {i}   alice 0:{59 - i:02d}   bob 1:00" for i in range(len(states))]
    captions[-1] = "bob wins on time   alice 0:00   bob 0:57"
    image = pictures.render_image(ruleset, states[-1], names=NAMES, caption=captions[-1], result="bob wins on time")
    room = image.width - 2 * core.MARGIN
    lines = core.wrap(captions[-1], style.font("mono", core.LINE_SIZE - 1), room, core.CAPTION_LINES)
    assert " ".join(lines) == captions[-1]
    data = pictures.render_replay_gif(ruleset, states, captions, names=NAMES, result="bob wins on time", winner=2)
    with Image.open(io.BytesIO(data)) as im:
        im.seek(getattr(im, "n_frames", 1) - 1)
        last = np.asarray(im.convert("RGB")).astype(int)
    assert last.shape[0] >= image.height
    expected = np.asarray(
        pictures.render_image(
            ruleset,
            states[-1],
            names=NAMES,
            caption=captions[-1],
            result="bob wins on time",
            winner=2,
            history=states[:-1],
        )
    ).astype(int)
    assert float(np.abs(last[: expected.shape[0], : expected.shape[1]] - expected).mean()) < 3.0
