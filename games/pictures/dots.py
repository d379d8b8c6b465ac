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

from games.base import AnyRuleset, Seat
from games.dots import DotsState
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


class DotsRenderer(BoardRenderer):
    """Dots (Kropki)."""

    game_id = "dots"
    score_word = ("captured", "captured")

    def cell(self, state: DotsState) -> int:
        """Pixels between neighbouring points."""
        return max(12, min(36, (MAX_WIDTH - 2 * MARGIN - LABEL) // (state.width + 1)))

    def board_size(self, state: DotsState) -> tuple[int, int]:
        """Points with half a cell of paper around them, plus the label gutters."""
        c = self.cell(state)
        return LABEL + state.width * c, LABEL + state.height * c

    def status(self, ruleset: AnyRuleset, state: DotsState, name: Callable[[Seat], str]) -> str | None:
        """Mention a stop in progress."""
        if not state.reason and state.stopped:
            return f"{name(state.stopped)} stopped · {name(state.turn)} plays on, then writes end"
        return None

    def draw_board(self, ctx: Ctx, state: DotsState) -> None:
        """Paper, areas, outlines, dots, the last dot, labels."""
        d, t = ctx.draw, ctx.theme
        geo = geometry(state.width, state.height)
        c = self.cell(state)
        ox, oy = ctx.x0 + LABEL + c // 2, ctx.y0 + LABEL + c // 2
        w, h = state.width, state.height
        d.rectangle(
            (ctx.x0 + LABEL, ctx.y0 + LABEL, ctx.x0 + LABEL + w * c, ctx.y0 + LABEL + h * c),
            fill=t.board,
            outline=t.faint,
        )
        grid = mix(t.faint, t.board, 0.45)
        for x in range(w):
            d.line((ox + x * c, oy, ox + x * c, oy + (h - 1) * c), fill=grid)
        for y in range(h):
            d.line((ox, oy + y * c, ox + (w - 1) * c, oy + y * c), fill=grid)
        lab = font("bold", max(9, min(13, c // 2)))
        for x in range(w):
            d.text((ox + x * c, ctx.y0 + LABEL // 2), col_label(x), fill=t.ink, font=lab, anchor="mm")
        for y in range(h):
            d.text((ctx.x0 + LABEL // 2, oy + y * c), str(y + 1), fill=t.ink, font=lab, anchor="mm")

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
        image = ctx.image
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
