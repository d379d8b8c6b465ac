"""Board pictures: PNG of a position and animated GIF of a game, for every game with a renderer.

    render_image(ruleset, state, **kw) -> PIL.Image    the picture
    render_png(ruleset, state, **kw) -> bytes          the same as PNG bytes
    save_png(ruleset, state, path, **kw)               written to a file (the room's and replay CLI's --png)
    render_gif(frames, durations) -> bytes             frames → animated GIF
    render_replay_gif(ruleset, states, **kw) -> bytes  one frame per turn, ending on the final position
    render_zoom(ruleset, state, **kw) -> PIL.Image|None a legible crop round the last move of a large board

Keywords everywhere: `names` ((seat 1's, seat 2's) or {seat: name}; shown in the legend beside each
player's colour swatch and score), `last_move` (move text or the engine's move value; highlighted),
`prev_state` (alias `previous`: the state before the last move; the highlight is worked out by
comparing), `caption` (a line under the board), `result` (replaces the status line: the result of a
match that ended off the board), `history` (every earlier state, oldest first: lets Dots-and-Boxes
colour edges by who drew them), `theme` ('light' or 'dark'; both are opaque panels that read on
Discord's light and dark modes), `palette` (a Palette or overrides like {1: '#0072b2', 'red':
'#d55e00'}), `clocks` ({seat: seconds or text}), `title`, `highlight` (False: no last-move marks),
`winner` (the seat that won however the match ended: it gets the star ★ also on time, resignation and
award wins, which the engine does not know), `final` (False while the engine's result can still be
undone, e.g. a Trax mulligan is open: no star and the status line says it is not final).

Colours. Red is drawn red (style.RED, not Okabe–Ito's orange-looking vermillion) and blue is
Okabe–Ito's blue; a seat keeps one colour across games wherever the game allows it:
- Boxes, Dots, Pathing: seat 1 red, seat 2 blue.
- Trax: the tracks are white and red; the `first_color` option says which one seat 1 plays.
- Dot Dash: colours are chosen by the pie rule (before the choice, seat 1 is shown as red).
Last-move marks: Boxes the edge (dark outline and a ring at its middle); Pathing both swapped squares
and the edge on the support board, or the square of a penalty pick; Trax the placed tile framed
yellow and the tiles it forced framed sky blue; Dots the placed dot ringed and the area it captured
filled stronger; Dot Dash a ring on the start point, the slide's path, a ring on the landing point and
a dot on each of the two dropped stones.
"""

from __future__ import annotations

import importlib
import io
import os
from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image, ImageDraw

from games.base import AnyRuleset, Seat
from games.pictures.core import BORDER, MAX_WIDTH, BoardRenderer, Clock, clock_text, render_frame
from games.pictures.style import DEFAULT_PALETTE, THEMES, Palette, PaletteLike, Theme, resolve_palette, resolve_theme

__all__ = [
    "DEFAULT_PALETTE",
    "MAX_WIDTH",
    "THEMES",
    "BoardRenderer",
    "Palette",
    "Theme",
    "UnsupportedGameError",
    "has_renderer",
    "render_gif",
    "render_image",
    "render_png",
    "render_replay_gif",
    "render_zoom",
    "render_zoom_png",
    "save_png",
]

RENDERER_MODULES: dict[str, str] = {
    "boxes": "games.pictures.boxes",
    "dotdash": "games.pictures.dotdash",
    "dots": "games.pictures.dots",
    "pathing": "games.pictures.pathing",
    "trax": "games.pictures.trax",
}
"""Game id → module exposing RENDERER (imported on first use)."""

_renderers: dict[str, BoardRenderer] = {}


class UnsupportedGameError(LookupError):
    """No picture renderer exists for this game yet."""


def renderer_for(game_id: str) -> BoardRenderer:
    """The renderer registered for a game id."""
    if game_id not in _renderers:
        name = RENDERER_MODULES.get(game_id)
        if name is None:
            raise UnsupportedGameError(f"no board pictures for {game_id!r} yet")
        _renderers[game_id] = importlib.import_module(name).RENDERER
    return _renderers[game_id]


def has_renderer(game_id: str) -> bool:
    """Whether pictures of this game can be drawn."""
    return game_id in RENDERER_MODULES


Names = Mapping[Seat, str] | Sequence[str]
"""Players' names: (seat 1's, seat 2's) or {seat: name}."""


def seat_names(names: Names | None) -> dict[Seat, str]:
    """{seat: name} from a (seat 1, seat 2) pair or a mapping; empty names are left out."""
    if names is None:
        return {}
    if isinstance(names, Mapping):
        pairs = [(int(k), str(v)) for k, v in names.items()]
    elif isinstance(names, str):
        raise TypeError("names: give (seat 1's name, seat 2's name), not one string")
    else:
        pairs = [(i + 1, str(v)) for i, v in enumerate(names)]
    return {k: v for k, v in pairs if v and k in (1, 2)}


def render_image(
    ruleset: AnyRuleset,
    state: Any,
    *,
    names: Names | None = None,
    last_move: Any = None,
    prev_state: Any = None,
    caption: str | None = None,
    result: str | None = None,
    theme: str | Theme = "light",
    palette: PaletteLike = None,
    clocks: Mapping[Seat, Clock] | None = None,
    title: str | None = None,
    previous: Any = None,
    history: Sequence[Any] = (),
    highlight: bool = True,
    winner: Seat | None = None,
    final: bool = True,
) -> Image.Image:
    """The picture of `state` as an RGB image at most MAX_WIDTH pixels wide.

    `names`: (seat 1's, seat 2's) or {seat: name}, shown in the legend with each player's colour.
    `last_move`: the move that led to `state` (its text or the engine's value), highlighted on the board.
    `prev_state` (alias `previous`): the state before it; the highlight can be worked out from the
    difference when `last_move` is not given. `caption`: one more line under the board (e.g. clocks).
    `result`: the match's result, replacing the status line (use it when the match ended off the board:
    resignation, time, award). `highlight=False` draws no last-move marks. `winner`: the seat that won
    (starred, however the match ended); `final=False`: the engine's result is not final yet.
    """
    if previous is None:
        previous = prev_state
    if previous is None and history:
        previous = history[-1]
    return render_frame(
        renderer_for(ruleset.id),
        ruleset,
        state,
        theme=resolve_theme(theme),
        palette=resolve_palette(palette),
        last_move=last_move,
        previous=previous,
        history=history,
        clocks=clocks,
        title=title,
        names=seat_names(names),
        caption=caption,
        result=result,
        highlight=highlight,
        winner=winner,
        final=final,
    )


def render_zoom(
    ruleset: AnyRuleset,
    state: Any,
    *,
    names: Names | None = None,
    last_move: Any = None,
    prev_state: Any = None,
    theme: str | Theme = "light",
    palette: PaletteLike = None,
    final: bool = True,
) -> Image.Image | None:
    """A legible crop of a large board around the last move (Dots fields too large to read whole on a
    phone), with coordinates on all four sides; None when the whole board reads well as it is."""
    if not has_renderer(ruleset.id):
        return None
    factory = getattr(importlib.import_module(RENDERER_MODULES[ruleset.id]), "zoom_renderer", None)
    zoom = factory(state) if factory is not None else None
    if zoom is None:
        return None
    return render_frame(
        zoom,
        ruleset,
        state,
        theme=resolve_theme(theme),
        palette=resolve_palette(palette),
        last_move=last_move,
        previous=prev_state,
        history=(),
        clocks=None,
        title=f"{ruleset.title} · around {getattr(zoom, 'around', 'the last move')}",
        names=seat_names(names),
        caption=None,
        final=final,
    )


def render_zoom_png(ruleset: AnyRuleset, state: Any, **kw: Any) -> bytes | None:
    """The crop of `render_zoom` as PNG bytes, or None."""
    image = render_zoom(ruleset, state, **kw)
    if image is None:
        return None
    buf = io.BytesIO()
    image.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def render_png(
    ruleset: AnyRuleset,
    state: Any,
    *,
    names: Names | None = None,
    last_move: Any = None,
    prev_state: Any = None,
    caption: str | None = None,
    theme: str | Theme = "light",
    **kw: Any,
) -> bytes:
    """The picture as PNG bytes (same keywords as render_image)."""
    image = render_image(
        ruleset, state, names=names, last_move=last_move, prev_state=prev_state, caption=caption, theme=theme, **kw
    )
    buf = io.BytesIO()
    image.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def save_png(
    ruleset: AnyRuleset,
    state: Any,
    path: str | os.PathLike[str],
    *,
    names: Names | None = None,
    last_move: Any = None,
    prev_state: Any = None,
    caption: str | None = None,
    theme: str | Theme = "light",
    **kw: Any,
) -> None:
    """Write the picture to `path` as PNG (same keywords as render_image)."""
    data = render_png(
        ruleset, state, names=names, last_move=last_move, prev_state=prev_state, caption=caption, theme=theme, **kw
    )
    with open(path, "wb") as fh:
        fh.write(data)


def render_gif(frames: Sequence[Image.Image], durations: int | Sequence[int] = 800, *, loop: int = 0) -> bytes:
    """Frames (any sizes; padded to the largest) → animated GIF bytes; durations in milliseconds.

    All frames share one palette taken from the first, middle and last frames, so the encoder does
    no per-frame colour search.
    """
    if not frames:
        raise ValueError("a GIF needs at least one frame")
    width = max(f.width for f in frames)
    height = max(f.height for f in frames)
    padded = [pad_frame(f.convert("RGB"), width, height) for f in frames]
    samples = sorted({0, len(padded) // 2, len(padded) - 1})
    montage = Image.new("RGB", (width, height * len(samples)))
    for k, i in enumerate(samples):
        montage.paste(padded[i], (0, k * height))
    pal = montage.quantize(colors=255, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    converted = [p.quantize(palette=pal, dither=Image.Dither.NONE) for p in padded]
    times = [durations] * len(frames) if isinstance(durations, int) else list(durations)
    if len(times) != len(frames):
        raise ValueError("one duration per frame")
    buf = io.BytesIO()
    converted[0].save(
        buf,
        "GIF",
        save_all=True,
        append_images=converted[1:],
        duration=times,
        loop=loop,
        optimize=False,
        disposal=1,
    )
    return buf.getvalue()


def pad_frame(frame: Image.Image, width: int, height: int) -> Image.Image:
    """A picture grown to `width` × `height` as if drawn that size: its panel's own colour fills the new room
    (centred across, added below) and its frame goes round the whole, so no band shows in a GIF."""
    if frame.size == (width, height):
        return frame
    inset = BORDER + 1
    edge = frame.getpixel((0, 0))
    panel = frame.getpixel((inset, inset))
    canvas = Image.new("RGB", (width, height), panel)
    inner = frame.crop((BORDER, BORDER, frame.width - BORDER, frame.height - BORDER))
    canvas.paste(inner, ((width - frame.width) // 2 + BORDER, BORDER))
    ImageDraw.Draw(canvas).rectangle((0, 0, width - 1, height - 1), outline=edge, width=BORDER)
    return canvas


def render_replay_gif(
    ruleset: AnyRuleset,
    states: Sequence[Any],
    captions: Sequence[str | None] | None = None,
    *,
    names: Names | None = None,
    moves: Sequence[Any] | None = None,
    clocks: Sequence[Mapping[Seat, Clock] | None] | None = None,
    result: str | None = None,
    durations: int | Sequence[int] = 800,
    final_hold: int = 2500,
    winner: Seat | None = None,
    **kw: Any,
) -> bytes:
    """One frame per state (the start, then each turn), each with the players' names and its last move
    highlighted; the last frame is the final position, held longer, with `result` as its status line
    when given (the engine's own result shows without it) and the star on `winner` (the seat that won).

    `moves[i]` is the move that led to `states[i]` (moves[0] unused; without moves the highlight is
    worked out by comparing states); `clocks[i]` is shown as a caption line ("alice 4:32   bob 3:10")
    unless `captions[i]` is given. Other keywords go to render_image.
    """
    who = seat_names(names)
    frames = []
    last = len(states) - 1
    for i, state in enumerate(states):
        caption = captions[i] if captions is not None else None
        shown = clocks[i] if clocks is not None else None
        if caption is None and shown:
            caption = "   ".join(
                f"{who.get(s) or renderer_for(ruleset.id).colour_word(ruleset, state, s)} {clock_text(v)}"
                for s, v in sorted(shown.items())
            )
        frames.append(
            render_image(
                ruleset,
                state,
                names=who,
                history=states[:i],
                last_move=moves[i] if moves is not None and i else None,
                caption=caption,
                result=result if i == last else None,
                winner=winner if i == last else None,
                **kw,
            )
        )
    if isinstance(durations, int):
        times = [durations] * len(frames)
        times[-1] = max(durations, final_hold)
    else:
        times = list(durations)
    return render_gif(frames, times)
