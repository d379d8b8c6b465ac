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
from bot.types import OVER_STATUSES, MatchStatus

TILE = 16
KEY_EVERY = 64
COLOURS = 64
"""Colours of the shared palette (the pictures are flat: board, two players, text, highlights)."""


def _png(image: Image.Image) -> str:
    buf = io.BytesIO()
    image.save(buf, "PNG", compress_level=9)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def render_frames(stored: StoredMatch) -> tuple[list[Frame], list[Image.Image]]:
    """The replayed frames of `stored` and each one's picture (the last with the result)."""
    from games import pictures

    ruleset, frames = replay_match(stored)
    names = {seat: name for seat, (_pid, name) in stored.players.items()}
    over = stored.status in OVER_STATUSES
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
                winner=stored.winner_seat if i == last and stored.status == MatchStatus.FINISHED else None,
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
    what the page needs to paint every ply. Changes are found on the RGB pixels; only keys and strips
    are reduced to the shared palette (small pictures: cheap)."""
    pal = _palette(images)

    def paletted(im: Image.Image) -> Image.Image:
        return im.convert("RGB").quantize(palette=pal, dither=Image.Dither.NONE)

    out: list[dict[str, Any]] = []
    prev: np.ndarray[Any, Any] | None = None
    since_key = 0
    for im in images:
        rgba = np.asarray(im.convert("RGBA"))
        rgb = rgba[:, :, :3]
        arr = rgba.view(np.uint32)[:, :, 0]  # one number a pixel: fast compares
        if prev is None or prev.shape != arr.shape or since_key >= KEY_EVERY:
            out.append({"key": _png(paletted(im))})
            since_key = 0
        else:
            since_key += 1
            h, w = arr.shape
            diff = arr != prev
            tiles: list[list[int]] = []
            for y in np.flatnonzero(diff.any(axis=1)) // TILE * TILE:
                if tiles and tiles[-1][1] == y:
                    continue  # this band of rows is done
                band = diff[y : y + TILE].any(axis=0)
                cols = np.flatnonzero(band) // TILE * TILE
                tiles += [[int(x), int(y)] for x in np.unique(cols)]
            if not tiles:
                out.append({"tiles": []})
            else:
                th, tw = -(-h // TILE), -(-w // TILE)
                padded = np.zeros((th * TILE, tw * TILE, 3), dtype=np.uint8)
                padded[:h, :w] = rgb
                strip = np.concatenate([padded[y : y + TILE, x : x + TILE] for x, y in tiles], axis=1)
                out.append({"strip": _png(paletted(Image.fromarray(strip, mode="RGB"))), "tiles": tiles})
        prev = arr
    return {"frames": out, "tile": TILE, "last": _png(paletted(images[-1]))}
