"""Dots (Kropki) picture: grid paper, dots, captured areas filled and outlined, the last dot ringed.

A captured area is drawn from the field's bytes alone: each unit square of the grid is filled for a
seat when at least one corner lies in that seat's territory and three or four of its corners are
that seat's territory or live dots (three corners give the triangle, so diagonal walls stay
diagonal). The area's outline is every square or triangle side used exactly once.
Seat 1 is red, seat 2 blue. The last dot is ringed; the area it captured is filled stronger.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from PIL import Image, ImageDraw

from games.base import AnyRuleset, Seat
from games.coords import point_name
from games.dots import DotsState, settled
from games.dots.field import geometry
from games.pictures.core import MARGIN, MAX_WIDTH, BoardRenderer, Ctx, col_label
from games.pictures.style import disc, font, mix, paste_centered, ring_sprite

LABEL = 24

Corner = tuple[int, int]


def areas(state: DotsState) -> dict[int, tuple[list[list[Corner]], list[tuple[Corner, Corner]]]]:
    """Per seat: the polygons (squares and triangles, as (x, y) corners) to fill and the outline segments."""
    geo = geometry(state.width, state.height)
    b = state.board
    out: dict[int, tuple[list[list[Corner]], list[tuple[Corner, Corner]]]] = {}
    for seat in (1, 2):
        other = 3 - seat
        inside = bytearray(geo.size)
        member = bytearray(geo.size)
        any_territory = False
        for i in geo.points:
            v = b[i]
            if v >> 2 == seat:
                inside[i] = 1
                member[i] = 1
                any_territory = True
            elif v & 3 == seat and v >> 2 != other:
                member[i] = 1
        if not any_territory:
            continue
        polys: list[list[Corner]] = []
        sides: Counter[tuple[Corner, Corner]] = Counter()
        stride = geo.stride
        for y in range(state.height - 1):
            for x in range(state.width - 1):
                i = geo.index(x, y)
                corners = (i, i + 1, i + stride + 1, i + stride)
                if not (inside[corners[0]] or inside[corners[1]] or inside[corners[2]] or inside[corners[3]]):
                    continue
                pts = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)]
                kept = [p for p, c in zip(pts, corners, strict=True) if member[c]]
                if len(kept) < 3:
                    continue
                polys.append(kept)
                for j in range(len(kept)):
                    a, c2 = kept[j], kept[(j + 1) % len(kept)]
                    sides[(a, c2) if a < c2 else (c2, a)] += 1
        outline = [seg for seg, n in sides.items() if n == 1]
        out[seat] = (polys, outline)
    return out


def new_area_polys(state: DotsState, previous: object) -> set[tuple[Corner, ...]]:
    """The area pieces (as in `areas`) that the last move captured: those not there in `previous`."""
    if not isinstance(previous, DotsState) or (previous.width, previous.height) != (state.width, state.height):
        return set()
    if all(a >> 2 == b >> 2 for a, b in zip(previous.board, state.board, strict=True)):
        return set()  # no territory changed: skip the second area scan
    before = {tuple(p) for polys, _ in areas(previous).values() for p in polys}
    return {tuple(p) for polys, _ in areas(state).values() for p in polys} - before


LABEL_FONT = "mono"
"""Coordinates are drawn in the monospaced face: two-letter columns (AA…AM) stay apart on a 39-wide field."""
MIN_LABEL = 14
"""No coordinate is drawn smaller than this (pixels), whatever the field size: legible on a phone."""
ZOOM_CELL = 40
ZOOM_SPAN = 13
"""The crop around the last dot: this many points across and down, drawn ZOOM_CELL pixels apart."""


def label_size(cell: int) -> int:
    """Coordinate font size for points `cell` pixels apart (at least MIN_LABEL)."""
    return max(MIN_LABEL, min(18, cell // 2))


def gutter(cell: int) -> int:
    """Room for the coordinates on each side of the paper."""
    return label_size(cell) + 12


class DotsRenderer(BoardRenderer):
    """Dots (Kropki): the whole field, coordinates on all four sides."""

    game_id = "dots"
    score_word = ("captured", "captured")

    def cell(self, state: DotsState) -> int:
        """Pixels between neighbouring points."""
        c = max(12, min(36, (MAX_WIDTH - 2 * MARGIN - 2 * LABEL) // (state.width + 1)))
        return max(12, min(c, (MAX_WIDTH - 2 * MARGIN - 2 * gutter(c)) // state.width))

    def window(self, state: DotsState) -> tuple[int, int, int, int]:
        """The points shown: first column, first row, columns, rows (the whole field)."""
        return 0, 0, state.width, state.height

    def board_size(self, state: DotsState) -> tuple[int, int]:
        """Points with half a cell of paper around them, plus the label gutters on all four sides."""
        c = self.cell(state)
        g = gutter(c)
        _, _, w, h = self.window(state)
        return 2 * g + w * c, 2 * g + h * c

    def label_size(self, state: DotsState) -> int:
        """The coordinates' font size in pixels (the picture's layout, for whoever checks legibility)."""
        return label_size(self.cell(state))

    def status(self, ruleset: AnyRuleset, state: DotsState, name: Callable[[Seat], str]) -> str | None:
        """Mention a stop in progress."""
        if not state.reason and state.stopped:
            return f"{name(state.stopped)} stopped · {name(state.turn)} plays on, then writes end"
        return None

    def draw_board(self, ctx: Ctx, state: DotsState) -> None:
        """Paper, areas, outlines, dots, the last dot, then the coordinates on all four sides; after a stop, the
        field as it settled (the stopper's ungrounded dots and areas as the opponent's, drawn as just captured)."""
        state = settled(state)
        c = self.cell(state)
        g = gutter(c)
        x0, y0, w, h = self.window(state)
        t = ctx.theme
        left, top = ctx.x0 + g, ctx.y0 + g
        if (x0, y0, w, h) == (0, 0, state.width, state.height):
            draw_field(ctx, ctx.image, state, left + c // 2, top + c // 2, c)
        else:  # a crop: the field drawn at this scale on a canvas the window's size (the rest is clipped)
            window = Image.new("RGB", (w * c, h * c), t.board)
            draw_field(ctx, window, state, c // 2 - x0 * c, c // 2 - y0 * c, c)
            ctx.image.paste(window, (left, top))
        ctx.draw.rectangle((left, top, left + w * c, top + h * c), outline=t.faint)
        lab = font(LABEL_FONT, label_size(c))
        for i in range(w):
            x = left + c // 2 + i * c
            text = col_label(x0 + i)
            ctx.draw.text((x, ctx.y0 + g // 2), text, fill=t.ink, font=lab, anchor="mm")
            ctx.draw.text((x, top + h * c + g // 2), text, fill=t.ink, font=lab, anchor="mm")
        for j in range(h):
            y = top + c // 2 + j * c
            text = str(y0 + j + 1)
            ctx.draw.text((ctx.x0 + g // 2, y), text, fill=t.ink, font=lab, anchor="mm")
            ctx.draw.text((left + w * c + g // 2, y), text, fill=t.ink, font=lab, anchor="mm")


class DotsZoom(DotsRenderer):
    """A legible crop of a large field: ZOOM_SPAN points each way around one point, drawn large."""

    def __init__(self, centre: tuple[int, int]) -> None:
        self.centre = centre
        self.around = point_name(*centre)
        """The centre point's name, for the picture's title."""

    def cell(self, state: DotsState) -> int:
        """Points ZOOM_CELL pixels apart."""
        return ZOOM_CELL

    def window(self, state: DotsState) -> tuple[int, int, int, int]:
        """ZOOM_SPAN points around the centre, moved inside the field."""
        w, h = min(ZOOM_SPAN, state.width), min(ZOOM_SPAN, state.height)
        x = min(max(0, self.centre[0] - w // 2), state.width - w)
        y = min(max(0, self.centre[1] - h // 2), state.height - h)
        return x, y, w, h


def zoom_renderer(state: DotsState) -> DotsZoom | None:
    """The crop around the last dot, or None when the whole field is legible as it is (or no dot is placed)."""
    if state.last < 0 or DotsRenderer().cell(state) >= ZOOM_CELL * 3 // 4:
        return None
    return DotsZoom(geometry(state.width, state.height).xy(state.last))


def draw_field(ctx: Ctx, image: Image.Image, state: DotsState, ox: int, oy: int, c: int) -> None:
    """Paper, grid, captured areas, dots and the last dot's ring, point (0, 0) at (ox, oy)."""
    d = ImageDraw.Draw(image)
    t = ctx.theme
    geo = geometry(state.width, state.height)
    w, h = state.width, state.height
    d.rectangle((ox - c // 2, oy - c // 2, ox - c // 2 + w * c, oy - c // 2 + h * c), fill=t.board)
    grid = mix(t.faint, t.board, 0.45)
    for x in range(w):
        d.line((ox + x * c, oy, ox + x * c, oy + (h - 1) * c), fill=grid)
    for y in range(h):
        d.line((ox, oy + y * c, ox + (w - 1) * c, oy + y * c), fill=grid)

    colours = {s: ctx.palette.seat(s) for s in (1, 2)}
    line_w = max(2, c // 9)
    fresh = new_area_polys(state, ctx.previous) if ctx.highlight else set()
    for seat, (polys, outline) in areas(state).items():
        fill = mix(colours[seat], t.board, 0.62)
        strong = mix(colours[seat], t.board, 0.3)
        for poly in polys:
            d.polygon([(ox + x * c, oy + y * c) for x, y in poly], fill=strong if tuple(poly) in fresh else fill)
        for (x1, y1), (x2, y2) in outline:
            d.line((ox + x1 * c, oy + y1 * c, ox + x2 * c, oy + y2 * c), fill=colours[seat], width=line_w)

    size = max(6, c * 11 // 24)
    live = {s: disc(size, colours[s], mix(colours[s], (0, 0, 0), 0.4), 1.0) for s in (1, 2)}
    dead = {s: disc(size, mix(colours[s], t.board, 0.55), mix(colours[s], t.board, 0.2), 1.0) for s in (1, 2)}
    b = state.board
    for i in geo.points:
        v = b[i]
        seat = v & 3
        if not seat:
            continue
        x, y = geo.xy(i)
        sprite = dead[seat] if v >> 2 == 3 - seat else live[seat]
        paste_centered(image, sprite, ox + x * c, oy + y * c)
    if state.last >= 0 and ctx.highlight:
        x, y = geo.xy(state.last)
        paste_centered(image, ring_sprite(size + max(6, c // 3), t.ink, max(1.5, c / 12)), ox + x * c, oy + y * c)


RENDERER = DotsRenderer()
