"""The boards of a match review page: every ply drawn by `games.pictures` (the renderer of the board
messages and the GIF), stored compactly for one self-contained HTML file.

A long match would not fit as one PNG per ply (a 600-ply Dots 39×32 match: ~10 MB). So the page gets a
full picture ("key") every `KEY_EVERY` plies and whenever the picture's size changes, and for every other
ply only the tiles that changed since the ply before, packed side by side into one small paletted PNG
("strip") with their places. The page paints a key and the strips after it on a canvas: the pixels are
ours, the page draws nothing itself. The last ply's full picture is kept too, so the page shows a board
before any script runs.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
from PIL import Image

from bot.records.matchlog import result_of
from bot.records.replay import Frame, replay_match
from bot.store.matches import StoredMatch

TILE = 16
KEY_EVERY = 64
COLOURS = 64
"""Colours of the shared palette (the pictures are flat: board, two players, text, highlights)."""


def _png(image: Image.Image) -> str:
    buf = io.BytesIO()
    image.save(buf, "PNG", optimize=True)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def render_frames(stored: StoredMatch) -> tuple[list[Frame], list[Image.Image]]:
    """The replayed frames of `stored` and each one's picture (the last with the result)."""
    from games import pictures

    ruleset, frames = replay_match(stored)
    names = {seat: name for seat, (_pid, name) in stored.players.items()}
    over = stored.status in ("finished", "aborted")
    result = result_of(stored) if over else None
    states = [f.state for f in frames]
    images = []
    last = len(frames) - 1
    for i, f in enumerate(frames):
        images.append(
            pictures.render_image(
                ruleset,
                f.state,
                names=names,
                history=states[max(0, i - 1) : i] if stored.game != "boxes" else states[:i],
                last_move=f.engine_move if i else None,
                result=result if i == last else None,
                winner=stored.winner_seat if i == last and stored.status == "finished" else None,
            )
        )
    return frames, images


def _palette(images: list[Image.Image]) -> Image.Image:
    """One palette for the whole match, from the first, middle and last pictures."""
    picks = [images[0], images[len(images) // 2], images[-1]]
    width = sum(im.width for im in picks)
    height = max(im.height for im in picks)
    sheet = Image.new("RGB", (width, height), "white")
    x = 0
    for im in picks:
        sheet.paste(im, (x, 0))
        x += im.width
    return sheet.quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT)


def encode_frames(images: list[Image.Image]) -> dict[str, Any]:
    """`{"frames": [{"key": b64} | {"strip": b64, "tiles": [[x, y], ...]}], "tile": TILE, "last": b64}`:
    what the page needs to paint every ply."""
    pal = _palette(images)
    quant = [im.quantize(palette=pal, dither=Image.Dither.NONE) for im in images]
    out: list[dict[str, Any]] = []
    prev: np.ndarray[Any, Any] | None = None
    since_key = 0
    for q in quant:
        arr = np.asarray(q)
        if prev is None or prev.shape != arr.shape or since_key >= KEY_EVERY:
            out.append({"key": _png(q)})
            since_key = 0
        else:
            since_key += 1
            h, w = arr.shape
            th, tw = -(-h // TILE), -(-w // TILE)
            diff = np.zeros((th * TILE, tw * TILE), dtype=bool)
            diff[:h, :w] = arr != prev
            changed = diff.reshape(th, TILE, tw, TILE).any(axis=(1, 3))
            ys, xs = np.nonzero(changed)
            tiles = [[int(x) * TILE, int(y) * TILE] for y, x in zip(ys, xs, strict=True)]
            if not tiles:
                out.append({"tiles": []})
            else:
                padded = np.zeros((th * TILE, tw * TILE), dtype=arr.dtype)
                padded[:h, :w] = arr
                strip = np.concatenate([padded[y : y + TILE, x : x + TILE] for x, y in tiles], axis=1)
                img = Image.fromarray(strip, mode="P")
                img.putpalette(q.getpalette() or [])
                out.append({"strip": _png(img), "tiles": tiles})
        prev = arr
    return {"frames": out, "tile": TILE, "last": _png(quant[-1])}
