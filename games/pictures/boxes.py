"""Dots-and-Boxes picture: dots, edges in the drawer's colour (neutral when unknown), owned boxes filled.

Seat 1 is red, seat 2 blue; the last edge has a dark outline and a ring at its middle.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from games.base import MoveError
from games.boxes import BoxesState, geometry
from games.pictures.core import MARGIN, MAX_WIDTH, BoardRenderer, Ctx, col_label
from games.pictures.style import RGB, disc, font, mix, paste_centered, readable_on

LABEL = 22
"""Room for the row numbers on the left and the column letters on top."""


def drawers(state: BoxesState, history: Sequence[Any]) -> dict[int, int]:
    """Edge index → seat that drew it, for the edges the history shows being drawn."""
    out: dict[int, int] = {}
    chain = [s for s in history if isinstance(s, BoxesState) and (s.rows, s.cols) == (state.rows, state.cols)]
    chain.append(state)
    for prev, cur in pairwise(chain):
        new = cur.drawn & ~prev.drawn
        while new:
            low = new & -new
            out[low.bit_length() - 1] = prev.turn
            new ^= low
    return out


class BoxesRenderer(BoardRenderer):
    """Dots-and-Boxes."""

    game_id = "boxes"
    score_word = ("box", "boxes")

    def cell(self, state: BoxesState) -> int:
        """Pixels between neighbouring dots."""
        return max(24, min(64, (MAX_WIDTH - 2 * MARGIN - 2 * LABEL) // (max(state.cols, state.rows) + 1)))

    @staticmethod
    def pad(cell: int) -> int:
        """Board panel margin around the outer dots."""
        return max(10, cell // 3)

    def board_size(self, state: BoxesState) -> tuple[int, int]:
        """Grid plus the panel margin and the label gutters."""
        c = self.cell(state)
        g = LABEL + self.pad(c)
        return state.cols * c + 2 * g, state.rows * c + 2 * g

    def draw_board(self, ctx: Ctx, state: BoxesState) -> None:
        """Boxes, then edges, then dots and labels on top."""
        geo = geometry(state.rows, state.cols)
        c = self.cell(state)
        d, t = ctx.draw, ctx.theme
        pad = self.pad(c)
        ox, oy = ctx.x0 + LABEL + pad, ctx.y0 + LABEL + pad
        d.rectangle(
            (ox - pad, oy - pad, ox + state.cols * c + pad, oy + state.rows * c + pad),
            fill=t.board,
            outline=t.faint,
        )
        seat_rgb: dict[int, RGB] = {s: ctx.palette.seat(s) for s in (1, 2)}
        label_font = font("bold", max(11, min(15, c // 4)))
        box_font = font("bold", max(11, min(26, c // 3)))

        # Owned boxes, lettered with the owner's initial (R/B when there are no names or they clash).
        letters = {1: "R", 2: "B"}
        initials = {s: (ctx.names or {}).get(s, "")[:1].upper() for s in (1, 2)}
        if all(initials.values()) and initials[1] != initials[2]:
            letters = initials
        for b, owner in enumerate(state.owners):
            if not owner:
                continue
            r, col = divmod(b, state.cols)
            x, y = ox + col * c, oy + r * c
            fill = mix(seat_rgb[owner], t.board, 0.45)
            d.rectangle((x, y, x + c, y + c), fill=fill)
            d.text((x + c / 2, y + c / 2), letters[owner], fill=readable_on(fill), font=box_font, anchor="mm")

        # Edges.
        who = drawers(state, ctx.history)
        last = self._last_edge(ctx, state)
        if last is not None and isinstance(ctx.previous, BoxesState) and last not in who:
            who[last] = ctx.previous.turn
        if not ctx.highlight:
            last = None
        width = max(3, c // 10)
        for e, ((c1, r1), (c2, r2)) in enumerate(geo.edge_points):
            x1, y1, x2, y2 = ox + c1 * c, oy + r1 * c, ox + c2 * c, oy + r2 * c
            if not state.drawn >> e & 1:
                d.line((x1, y1, x2, y2), fill=mix(t.faint, t.board, 0.45), width=1)
                continue
            colour = seat_rgb[who[e]] if e in who else t.neutral
            h = width // 2
            if e == last:
                g = h + 2
                d.rectangle((min(x1, x2) - g, min(y1, y2) - g, max(x1, x2) + g, max(y1, y2) + g), fill=t.ink)
            d.rectangle((min(x1, x2) - h, min(y1, y2) - h, max(x1, x2) + h, max(y1, y2) + h), fill=colour)
            if e == last:
                mx, my = (x1 + x2) / 2, (y1 + y2) / 2
                paste_centered(ctx.image, disc(width + 6, t.ink), mx, my)
                paste_centered(ctx.image, disc(width, colour), mx, my)

        # Dots and labels.
        dot = disc(max(7, c // 6), t.ink)
        for r in range(state.rows + 1):
            for col in range(state.cols + 1):
                paste_centered(ctx.image, dot, ox + col * c, oy + r * c)
        for col in range(state.cols + 1):
            d.text((ox + col * c, ctx.y0 + LABEL // 2), col_label(col), fill=t.ink, font=label_font, anchor="mm")
        for r in range(state.rows + 1):
            d.text((ctx.x0 + LABEL // 2, oy + r * c), str(r + 1), fill=t.ink, font=label_font, anchor="mm")

    @staticmethod
    def _last_edge(ctx: Ctx, state: BoxesState) -> int | None:
        """The last edge: from the move given, else the one edge new since the previous state."""
        geo = geometry(state.rows, state.cols)
        move = ctx.last_move
        if isinstance(move, int) and 0 <= move < geo.n_edges:
            return move
        if isinstance(move, str):
            try:
                a, b = ctx.ruleset.parse_syntax(move)
            except MoveError:
                return None
            return geo.edge_index(a, b)
        prev = ctx.previous
        if isinstance(prev, BoxesState):
            new = state.drawn & ~prev.drawn
            if new and new & (new - 1) == 0:
                return new.bit_length() - 1
        return None


RENDERER = BoxesRenderer()
