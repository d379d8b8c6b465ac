"""Themes, palettes, bundled fonts and cached anti-aliased sprites shared by every board picture."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from PIL import Image, ImageColor, ImageDraw, ImageFont

RGB = tuple[int, int, int]
FONT_DIR = Path(__file__).resolve().parent / "fonts"
SUPERSAMPLE = 4
"""Sprites are drawn this many times larger and scaled down, which gives smooth edges."""


@dataclass(frozen=True)
class Theme:
    """Colours of the board panel. Every theme is opaque, so it reads on Discord's light and dark modes."""

    name: str
    background: RGB
    """The panel behind everything."""
    border: RGB
    """The panel's frame, which separates it from whatever chat background is behind it."""
    board: RGB
    """The playing area inside the panel."""
    ink: RGB
    """Text, dots and the last-move marker."""
    faint: RGB
    """Grid lines, empty points and secondary text."""
    neutral: RGB
    """Edges or marks whose owner is not known."""


THEMES: dict[str, Theme] = {
    "light": Theme(
        "light",
        background=(236, 233, 226),
        border=(70, 70, 74),
        board=(250, 248, 243),
        ink=(34, 34, 38),
        faint=(178, 174, 166),
        neutral=(96, 96, 102),
    ),
    "dark": Theme(
        "dark",
        background=(52, 54, 60),
        border=(200, 200, 206),
        board=(70, 73, 80),
        ink=(238, 238, 240),
        faint=(120, 123, 130),
        neutral=(190, 190, 196),
    ),
}

# Okabe & Ito's colour-blind-safe set.
OKABE_ITO: dict[str, RGB] = {
    "black": (0, 0, 0),
    "orange": (230, 159, 0),
    "sky": (86, 180, 233),
    "green": (0, 158, 115),
    "yellow": (240, 228, 66),
    "blue": (0, 114, 178),
    "vermillion": (213, 94, 0),
    "purple": (204, 121, 167),
}


RED: RGB = (214, 39, 40)
"""The game red. Okabe–Ito's vermillion reads as orange next to blue, and players call these colours
"red"; this red keeps Okabe–Ito's blue as its partner, a pair colour-blind players still tell apart
by lightness."""
BLUE: RGB = OKABE_ITO["blue"]
WHITE: RGB = (250, 250, 250)
HIGHLIGHT: RGB = OKABE_ITO["yellow"]
"""The last-move marker where a board has its own dark face (Trax tiles)."""
FORCED: RGB = OKABE_ITO["sky"]
"""Trax tiles a move forced, as opposed to the tile the player placed."""


@dataclass(frozen=True)
class Palette:
    """Player colours: one per seat for games without named colours, and the named game colours.

    Seat 1 is red and seat 2 blue wherever the game lets the host choose (Boxes, Dots, Pathing), so a
    seat keeps its colour from game to game.
    """

    seats: tuple[RGB, RGB] = (RED, BLUE)
    named: Mapping[str, RGB] = field(
        default_factory=lambda: {
            "red": RED,
            "blue": BLUE,
            "white": WHITE,
        }
    )

    def seat(self, seat: int) -> RGB:
        """Colour of seat 1 or 2."""
        return self.seats[0] if seat == 1 else self.seats[1]

    def colour(self, name: str) -> RGB:
        """A game colour by name (`red`, `blue`, `white`)."""
        return self.named.get(name, OKABE_ITO.get(name, (128, 128, 128)))


DEFAULT_PALETTE = Palette()
PaletteLike = Palette | Mapping[int | str, str | RGB] | None


def to_rgb(value: str | RGB) -> RGB:
    """'#0072b2', 'orange' or an (r, g, b) tuple → (r, g, b)."""
    if isinstance(value, str):
        if value.lower() in OKABE_ITO:
            return OKABE_ITO[value.lower()]
        rgb = ImageColor.getrgb(value)
        return (rgb[0], rgb[1], rgb[2])
    return (int(value[0]), int(value[1]), int(value[2]))


def resolve_palette(palette: PaletteLike) -> Palette:
    """A Palette from None (the default), a Palette, or overrides like {1: '#0072b2', 'red': '#d55e00'}."""
    if palette is None:
        return DEFAULT_PALETTE
    if isinstance(palette, Palette):
        return palette
    seats = list(DEFAULT_PALETTE.seats)
    named = dict(DEFAULT_PALETTE.named)
    for key, value in palette.items():
        if key in (1, 2, "1", "2"):
            seats[int(key) - 1] = to_rgb(value)
        else:
            named[str(key).lower()] = to_rgb(value)
    return Palette((seats[0], seats[1]), named)


def resolve_theme(theme: str | Theme) -> Theme:
    """A Theme by name ('light', 'dark') or as given."""
    if isinstance(theme, Theme):
        return theme
    try:
        return THEMES[theme]
    except KeyError:
        raise ValueError(f"unknown theme {theme!r}; known: {', '.join(THEMES)}") from None


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """The colour `t` of the way from `a` to `b`."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def readable_on(colour: RGB) -> RGB:
    """Black or white, whichever reads better on `colour`."""
    lum = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]
    return (20, 20, 20) if lum > 150 else (250, 250, 250)


@cache
def font(kind: str, size: int) -> ImageFont.FreeTypeFont:
    """A bundled DejaVu font: kind 'sans', 'bold' or 'mono' (cached)."""
    files = {"sans": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf", "mono": "DejaVuSansMono.ttf"}
    return ImageFont.truetype(str(FONT_DIR / files[kind]), size)


@cache
def disc(diameter: int, fill: RGB, outline: RGB | None = None, ring: float = 0.0) -> Image.Image:
    """A smooth filled circle as an RGBA sprite; `ring` is the outline width in output pixels."""
    big = diameter * SUPERSAMPLE
    img = Image.new("RGBA", (big, big), (*fill, 0))
    d = ImageDraw.Draw(img)
    if outline is not None and ring > 0:
        d.ellipse((0, 0, big - 1, big - 1), fill=(*outline, 255))
        inset = round(ring * SUPERSAMPLE)
        d.ellipse((inset, inset, big - 1 - inset, big - 1 - inset), fill=(*fill, 255))
    else:
        d.ellipse((0, 0, big - 1, big - 1), fill=(*fill, 255))
    return img.resize((diameter, diameter), Image.Resampling.LANCZOS)


@cache
def ring_sprite(diameter: int, colour: RGB, width: float) -> Image.Image:
    """A smooth hollow circle as an RGBA sprite."""
    big = diameter * SUPERSAMPLE
    img = Image.new("RGBA", (big, big), (*colour, 0))
    d = ImageDraw.Draw(img)
    d.ellipse((0, 0, big - 1, big - 1), outline=(*colour, 255), width=max(1, round(width * SUPERSAMPLE)))
    return img.resize((diameter, diameter), Image.Resampling.LANCZOS)


def paste_centered(target: Image.Image, sprite: Image.Image, cx: float, cy: float) -> None:
    """Paste an RGBA sprite centred on (cx, cy)."""
    w, h = sprite.size
    target.paste(sprite, (round(cx - w / 2), round(cy - h / 2)), sprite)
