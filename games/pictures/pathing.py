"""Pathing Dots & Boxes picture: the pathing board and the support board side by side.

Seat 1 is red, seat 2 blue. The last swap frames both squares and marks the support-board edge; a
penalty pick frames its square.
"""

from __future__ import annotations

from collections.abc import Callable

from games.base import AnyRuleset, MoveError, Seat
from games.pathing import EDGE_OF, EDGE_SQUARES, N_BOXES, N_EDGES, PICK, SIZE, PathingState
from games.pictures.core import BoardRenderer, Ctx, col_label
from games.pictures.style import RGB, Palette, disc, font, mix, paste_centered, readable_on

LABEL = 22
CELL = 64
"""Side of a pathing-board square and the spacing of support-board dots."""
GAP = 36
PAD = 18
CAPTION = 20
BOARD = SIZE * CELL
MARK: RGB = (20, 20, 24)
"""The last-move frame on the pathing board, whose squares keep their colours in both themes."""
SUPPORT = (SIZE - 1) * CELL + 2 * PAD


def full_lines(mask: int) -> list[tuple[int, int, int, int]]:
    """Full rows and columns of a square mask as (col, row) of their two ends."""
    out = []
    for r in range(SIZE):
        if (mask >> (SIZE * r)) & 0xF == 0xF:
            out.append((0, r, SIZE - 1, r))
    for c in range(SIZE):
        if all(mask >> (r * SIZE + c) & 1 for r in range(SIZE)):
            out.append((c, 0, c, SIZE - 1))
    return out


class PathingRenderer(BoardRenderer):
    """Pathing Dots & Boxes."""

    game_id = "pathing"
    score_word = ("box", "boxes")

    def board_size(self, state: PathingState) -> tuple[int, int]:
        """Two boards of the same height, each with its labels and caption."""
        return LABEL + BOARD + GAP + LABEL + SUPPORT, CAPTION + LABEL + max(BOARD, SUPPORT)

    def seat_colour(self, ruleset: AnyRuleset, state: PathingState, palette: Palette, seat: Seat) -> RGB:
        """Seat 1 is red, seat 2 blue (the rules' colours)."""
        return palette.colour(self.colour_word(ruleset, state, seat))

    def status(self, ruleset: AnyRuleset, state: PathingState, name: Callable[[Seat], str]) -> str | None:
        """Round number, and the penalty pick when one is due."""
        if state.finished:
            return None
        if state.phase == "penalty":
            return f"Round {state.round_no} over: {name(state.turn)} picks a square"
        return f"Round {state.round_no} · {name(state.turn)} to swap"

    def draw_board(self, ctx: Ctx, state: PathingState) -> None:
        """Left: the coloured squares. Right: dots, filled edges and owned boxes of this round."""
        d, t = ctx.draw, ctx.theme
        red, blue = ctx.palette.colour("red"), ctx.palette.colour("blue")
        cap = font("bold", 13)
        lab = font("bold", 13)
        swap, pick = self._last(ctx, state) if ctx.highlight else (None, None)

        # Pathing board.
        bx, by = ctx.x0 + LABEL, ctx.y0 + CAPTION + LABEL
        d.text((bx, ctx.y0), "pathing board", fill=t.ink, font=cap)
        for sq in range(SIZE * SIZE):
            r, c = divmod(sq, SIZE)
            x, y = bx + c * CELL, by + r * CELL
            fill = red if state.red >> sq & 1 else blue if state.blue >> sq & 1 else (252, 252, 250)
            d.rectangle((x, y, x + CELL, y + CELL), fill=fill, outline=t.border, width=2)
            letter = "R" if state.red >> sq & 1 else "B" if state.blue >> sq & 1 else ""
            if letter:
                d.text((x + CELL / 2, y + CELL / 2), letter, fill=readable_on(fill), font=font("bold", 18), anchor="mm")
        framed = [pick] if pick is not None else list(EDGE_SQUARES[swap]) if swap is not None else []
        for sq in framed:
            r, c = divmod(sq, SIZE)
            x, y = bx + c * CELL, by + r * CELL
            d.rectangle((x + 2, y + 2, x + CELL - 2, y + CELL - 2), outline=MARK, width=6)
            d.rectangle((x + 6, y + 6, x + CELL - 6, y + CELL - 6), outline=(250, 250, 250), width=2)
        if swap is not None:
            a, b = EDGE_SQUARES[swap]
            (ay, ax), (by2, bx2) = divmod(a, SIZE), divmod(b, SIZE)
            p1 = (bx + ax * CELL + CELL / 2, by + ay * CELL + CELL / 2)
            p2 = (bx + bx2 * CELL + CELL / 2, by + by2 * CELL + CELL / 2)
            for colour, w in ((MARK, 7), ((250, 250, 250), 3)):
                d.line((*p1, *p2), fill=colour, width=w)
            for p in (p1, p2):
                paste_centered(ctx.image, disc(13, (250, 250, 250), MARK, 2.5), *p)
        winner_mask = state.red if state.winner == 1 else state.blue if state.winner == 2 else 0
        for c1, r1, c2, r2 in full_lines(winner_mask):
            box = (bx + c1 * CELL, by + r1 * CELL, bx + (c2 + 1) * CELL, by + (r2 + 1) * CELL)
            d.rectangle(box, outline=t.ink, width=7)
            d.rectangle((box[0] + 2, box[1] + 2, box[2] - 2, box[3] - 2), outline=(250, 250, 250), width=3)
        for i in range(SIZE):
            d.text((bx + i * CELL + CELL / 2, by - LABEL / 2), col_label(i), fill=t.ink, font=lab, anchor="mm")
            d.text((ctx.x0 + LABEL / 2, by + i * CELL + CELL / 2), str(i + 1), fill=t.ink, font=lab, anchor="mm")

        # Support board: the squares are its dots.
        sx0 = ctx.x0 + LABEL + BOARD + GAP
        sx, sy = sx0 + LABEL + PAD, ctx.y0 + CAPTION + LABEL + PAD
        d.text((sx0 + LABEL, ctx.y0), f"support board · round {state.round_no}", fill=t.ink, font=cap)
        end = (SIZE - 1) * CELL
        d.rectangle((sx - PAD, sy - PAD, sx + end + PAD, sy + end + PAD), fill=t.board, outline=t.faint)
        for b in range(N_BOXES):
            owner = 1 if state.boxes_red >> b & 1 else 2 if state.boxes_blue >> b & 1 else 0
            if owner:
                r, c = divmod(b, SIZE - 1)
                fill = mix(red if owner == 1 else blue, t.board, 0.45)
                x, y = sx + c * CELL, sy + r * CELL
                d.rectangle((x, y, x + CELL, y + CELL), fill=fill)
                d.text(
                    (x + CELL / 2, y + CELL / 2),
                    "R" if owner == 1 else "B",
                    fill=readable_on(fill),
                    font=font("bold", 18),
                    anchor="mm",
                )
        for e in range(N_EDGES):
            a, b = EDGE_SQUARES[e]
            (ar, ac), (br, bc) = divmod(a, SIZE), divmod(b, SIZE)
            x1, y1, x2, y2 = sx + ac * CELL, sy + ar * CELL, sx + bc * CELL, sy + br * CELL
            if not state.drawn >> e & 1:
                d.line((x1, y1, x2, y2), fill=mix(t.faint, t.board, 0.45), width=1)
                continue
            colour = red if state.red_edges >> e & 1 else blue
            if e == swap:
                d.rectangle((x1 - 7, y1 - 7, x2 + 7, y2 + 7), fill=t.ink)
            d.rectangle((x1 - 3, y1 - 3, x2 + 3, y2 + 3), fill=colour)
            if e == swap:
                paste_centered(ctx.image, disc(17, t.ink), (x1 + x2) / 2, (y1 + y2) / 2)
                paste_centered(ctx.image, disc(9, colour), (x1 + x2) / 2, (y1 + y2) / 2)
        dot = disc(11, t.ink)
        for sq in range(SIZE * SIZE):
            r, c = divmod(sq, SIZE)
            paste_centered(ctx.image, dot, sx + c * CELL, sy + r * CELL)
        for i in range(SIZE):
            d.text((sx + i * CELL, sy - PAD - LABEL / 2), col_label(i), fill=t.ink, font=lab, anchor="mm")
            d.text((sx0 + LABEL / 2, sy + i * CELL), str(i + 1), fill=t.ink, font=lab, anchor="mm")

    @staticmethod
    def _last(ctx: Ctx, state: PathingState) -> tuple[int | None, int | None]:
        """(edge of the last swap, square of the last pick), from the move given or the previous state."""
        move = ctx.last_move
        if isinstance(move, str):
            try:
                points = ctx.ruleset.parse_syntax(move)
            except MoveError:
                return None, None
            squares = [y * SIZE + x for x, y in points]
            if len(squares) == 2:
                return EDGE_OF.get((squares[0], squares[1])), None
            return (None, squares[0]) if squares else (None, None)
        if isinstance(move, int):
            return (move, None) if move < PICK else (None, move - PICK)
        prev = ctx.previous
        if isinstance(prev, PathingState):
            if prev.phase == "penalty":
                changed = (prev.red ^ state.red) | (prev.blue ^ state.blue)
                if changed and changed & (changed - 1) == 0:
                    return None, changed.bit_length() - 1
            new = state.drawn & ~prev.drawn
            if new and new & (new - 1) == 0:
                return new.bit_length() - 1, None
        return None, None


RENDERER = PathingRenderer()
