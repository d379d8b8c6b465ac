"""A player's rating history as a PNG line chart (Pillow): one line per game, x = rated matches in order."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Mapping, Sequence

from PIL import Image, ImageDraw

from games.pictures.style import font

WIDTH, HEIGHT = 720, 360
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 40, 36
COLOURS = [(66, 133, 244), (219, 68, 55), (15, 157, 88), (244, 160, 0), (171, 71, 188), (0, 172, 193)]
BACKGROUND, GRID, INK = (250, 250, 250), (225, 225, 225), (40, 40, 40)


def history_png(title: str, series: Mapping[str, Sequence[tuple[dt.datetime, float]]]) -> bytes:
    """The chart: `series` maps a label (a game) to its (when, rating after) points, oldest first."""
    img = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    d = ImageDraw.Draw(img)
    small, bold = font("sans", 12), font("bold", 15)
    d.text((LEFT, 10), title, fill=INK, font=bold)
    values = [r for points in series.values() for _, r in points]
    longest = max((len(points) for points in series.values()), default=0)
    if not values:
        d.text((LEFT, HEIGHT // 2), "no rated matches", fill=INK, font=small)
        return _png(img)
    low, high = min(values), max(values)
    pad = max(25.0, (high - low) * 0.08)
    low, high = low - pad, high + pad
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def y_of(rating: float) -> float:
        return TOP + plot_h * (high - rating) / (high - low)

    def x_of(i: int) -> float:
        return LEFT + (plot_w * i / (longest - 1) if longest > 1 else plot_w / 2)

    for k in range(5):
        rating = low + (high - low) * k / 4
        y = y_of(rating)
        d.line((LEFT, y, WIDTH - RIGHT, y), fill=GRID)
        d.text((8, y - 7), f"{rating:.0f}", fill=INK, font=small)
    d.rectangle((LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM), outline=INK)
    d.text((LEFT, HEIGHT - BOTTOM + 8), "1", fill=INK, font=small)
    d.text((WIDTH - RIGHT - 40, HEIGHT - BOTTOM + 8), f"{longest}", fill=INK, font=small)
    d.text((WIDTH // 2 - 50, HEIGHT - BOTTOM + 8), "rated matches", fill=INK, font=small)
    legend_x = WIDTH - RIGHT - 10
    for n, (label, points) in enumerate(series.items()):
        colour = COLOURS[n % len(COLOURS)]
        xy = [(x_of(i), y_of(r)) for i, (_, r) in enumerate(points)]
        if len(xy) > 1:
            d.line(xy, fill=colour, width=2, joint="curve")
        for x, y in xy[-1:] if len(xy) > 40 else xy:
            d.ellipse((x - 3, y - 3, x + 3, y + 3), fill=colour)
        text = f"{label} {points[-1][1]:.0f}" if points else label
        legend_x -= int(d.textlength(text, font=small)) + 24
        d.rectangle((legend_x, 14, legend_x + 10, 24), fill=colour)
        d.text((legend_x + 14, 11), text, fill=INK, font=small)
    return _png(img)


def _png(img: Image.Image) -> bytes:
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=False, compress_level=1)
    return out.getvalue()
