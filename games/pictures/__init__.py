"""Board pictures: PNG of a position and animated GIF of a game, for every game with a renderer.

    render_image(ruleset, state) -> PIL.Image      the picture
    render_png(ruleset, state) -> bytes            the same as PNG bytes
    save_png(ruleset, state, path)                 written to a file (the replay CLI's --png)
    render_gif(frames, durations) -> bytes         frames → animated GIF
    render_replay_gif(ruleset, states) -> bytes    one frame per turn, clocks as a caption line

Keyword options everywhere: `last_move` (move text or the engine's move value; highlighted),
`previous` (the state before the last move: the highlight is worked out by comparing), `history`
(every earlier state, oldest first: lets Dots-and-Boxes colour edges by who drew them), `theme`
('light' or 'dark'; both are opaque panels that read on Discord's light and dark modes),
`palette` (a Palette or overrides like {1: '#0072b2', 'red': '#d55e00'}; Okabe–Ito by default),
`clocks` ({seat: seconds or text}), `title`, `names` ({seat: name}), `caption`.
"""

from __future__ import annotations

import importlib
import io
import os
from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image

from games.base import AnyRuleset, Seat
from games.pictures.core import MAX_WIDTH, BoardRenderer, Clock, clock_text, render_frame
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


def render_image(
    ruleset: AnyRuleset,
    state: Any,
    *,
    last_move: Any = None,
    previous: Any = None,
    history: Sequence[Any] = (),
    theme: str | Theme = "light",
    palette: PaletteLike = None,
    clocks: Mapping[Seat, Clock] | None = None,
    title: str | None = None,
    names: Mapping[Seat, str] | None = None,
    caption: str | None = None,
) -> Image.Image:
    """The picture of `state` as an RGB image at most MAX_WIDTH pixels wide."""
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
        names=names,
        caption=caption,
    )


def render_png(ruleset: AnyRuleset, state: Any, **kw: Any) -> bytes:
    """The picture as PNG bytes (same keywords as render_image)."""
    buf = io.BytesIO()
    render_image(ruleset, state, **kw).save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def save_png(ruleset: AnyRuleset, state: Any, path: str | os.PathLike[str], **kw: Any) -> None:
    """Write the picture to `path` as PNG."""
    data = render_png(ruleset, state, **kw)
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
    fill = frames[-1].getpixel((width // 2 if frames[-1].width == width else 0, 0))
    padded = []
    for f in frames:
        if f.size != (width, height):
            canvas = Image.new("RGB", (width, height), fill)
            canvas.paste(f, (0, 0))
            f = canvas
        padded.append(f.convert("RGB"))
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


def render_replay_gif(
    ruleset: AnyRuleset,
    states: Sequence[Any],
    captions: Sequence[str | None] | None = None,
    *,
    moves: Sequence[Any] | None = None,
    clocks: Sequence[Mapping[Seat, Clock] | None] | None = None,
    durations: int | Sequence[int] = 800,
    final_hold: int = 2500,
    **kw: Any,
) -> bytes:
    """One frame per state (the start, then each turn); the last move is highlighted by comparing states.

    `moves[i]` is the move that led to `states[i]` (moves[0] unused); `clocks[i]` is shown as a caption
    line ("seat 1 4:32 · seat 2 3:10") unless `captions[i]` is given.
    """
    frames = []
    for i, state in enumerate(states):
        caption = captions[i] if captions is not None else None
        shown = clocks[i] if clocks is not None else None
        if caption is None and shown:
            caption = "   ".join(f"seat {s} {clock_text(v)}" for s, v in sorted(shown.items()))
        frames.append(
            render_image(
                ruleset,
                state,
                history=states[:i],
                last_move=moves[i] if moves is not None and i else None,
                caption=caption,
                **kw,
            )
        )
    if isinstance(durations, int):
        times = [durations] * len(frames)
        times[-1] = max(durations, final_hold)
    else:
        times = list(durations)
    return render_gif(frames, times)
