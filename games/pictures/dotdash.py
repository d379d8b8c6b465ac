"""Dot Dash picture: the point grid, red and blue stones, every five-row struck through, the last slide.

Colours follow the pie rule (before the choice, seat 1 is shown as red). The last slide shows a ring
on its start point, its path, a ring round the landing stone and a white dot on each dropped stone.
"""

from __future__ import annotations

from collections.abc import Callable

from games.base import AnyRuleset, MoveError, Seat
from games.dotdash import BLUE, COLOURS, RED, DotDashState, ParsedSetup, ParsedSlide, Setup, Slide, geometry
from games.pictures.core import MARGIN, MAX_WIDTH, BoardRenderer, Ctx, col_label
from games.pictures.style import RGB, Palette, disc, font, mix, paste_centered, ring_sprite

LABEL = 22
NO_COLOUR: RGB = (150, 150, 150)
"""The legend swatch of a player before the colour choice."""

# The four line directions as (dcol, drow).
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (-1, 1))


def runs(stones: int, size: int, width: int, minimum: int = 5) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Maximal runs of at least `minimum` stones as ((col, row) first, (col, row) last), all directions."""
    out = []
    for dc, dr in DIRECTIONS:
        for row in range(size):
            for col in range(size):
                bit = row * width + col
                if not stones >> bit & 1:
                    continue
                pc, pr = col - dc, row - dr
                if 0 <= pc < size and 0 <= pr < size and stones >> (pr * width + pc) & 1:
                    continue  # not the first stone of its run
                n = 1
                c, r = col + dc, row + dr
                while 0 <= c < size and 0 <= r < size and stones >> (r * width + c) & 1:
                    n += 1
                    c, r = c + dc, r + dr
                if n >= minimum:
                    out.append(((col, row), (col + dc * (n - 1), row + dr * (n - 1))))
    return out


class DotDashRenderer(BoardRenderer):
    """Dot Dash."""

    game_id = "dotdash"
    score_word = ("five-row", "five-rows")

    def cell(self, state: DotDashState) -> int:
        """Pixels between neighbouring points."""
        return max(20, min(40, (MAX_WIDTH - 2 * MARGIN - 2 * LABEL) // (state.size + 1)))

    def board_size(self, state: DotDashState) -> tuple[int, int]:
        """Points, a margin of one cell, the label gutters."""
        c = self.cell(state)
        side = (state.size - 1) * c + c + 2 * LABEL
        return side, side

    @staticmethod
    def chosen(state: DotDashState) -> bool:
        """Whether the colours are known: the pie rule's choice is made."""
        return state.phase not in ("setup", "choose")

    def colour_word(self, ruleset: AnyRuleset, state: DotDashState, seat: Seat) -> str:
        """Red or blue as the pie rule chose; empty before the choice (nobody has a colour yet)."""
        return COLOURS[state.colour_of(seat)] if self.chosen(state) else ""

    def seat_colour(self, ruleset: AnyRuleset, state: DotDashState, palette: Palette, seat: Seat) -> RGB:
        """Red or blue; a neutral grey before the colour choice."""
        return palette.colour(self.colour_word(ruleset, state, seat)) if self.chosen(state) else NO_COLOUR

    def seat_note(self, ruleset: AnyRuleset, state: DotDashState, seat: Seat) -> str:
        """The reserve (once the colours are chosen), else the seat's part in the opening."""
        if not self.chosen(state):
            return "places the opening stones" if seat == 1 else "chooses a colour"
        return f"{state.reserve(state.colour_of(seat))} in reserve"

    def status(self, ruleset: AnyRuleset, state: DotDashState, name: Callable[[Seat], str]) -> str | None:
        """The opening phases say what is expected."""
        if state.reason is None and state.phase == "setup":
            return f"{name(1)} places the opening stones"
        if state.reason is None and state.phase == "choose":
            return f"{name(2)} chooses a colour"
        return None

    def draw_board(self, ctx: Ctx, state: DotDashState) -> None:
        """Grid, last-slide trail, stones, five-row strokes, labels."""
        geo = geometry(state.size)
        c = self.cell(state)
        d, t = ctx.draw, ctx.theme
        ox, oy = ctx.x0 + LABEL + c // 2, ctx.y0 + LABEL + c // 2
        n = state.size
        end = (n - 1) * c
        d.rectangle((ox - c // 2, oy - c // 2, ox + end + c // 2, oy + end + c // 2), fill=t.board, outline=t.faint)
        grid = mix(t.faint, t.board, 0.35)
        for i in range(n):
            d.line((ox + i * c, oy, ox + i * c, oy + end), fill=grid, width=1)
            d.line((ox, oy + i * c, ox + end, oy + i * c), fill=grid, width=1)
        label_font = font("bold", max(10, min(14, c // 3 + 2)))
        for i in range(n):
            d.text((ox + i * c, ctx.y0 + LABEL // 2), col_label(i), fill=t.ink, font=label_font, anchor="mm")
            d.text((ctx.x0 + LABEL // 2, oy + i * c), str(i + 1), fill=t.ink, font=label_font, anchor="mm")

        def xy(col: int, row: int) -> tuple[int, int]:
            return ox + col * c, oy + row * c

        src, dst = self._last_slide(ctx, state) if ctx.highlight else (None, None)
        drops: list[tuple[int, int]] = []
        if src is not None and dst is not None:
            # The path, a ring on the start point (now empty), the two dropped stones behind the landing.
            step = ((dst[0] > src[0]) - (dst[0] < src[0]), (dst[1] > src[1]) - (dst[1] < src[1]))
            drops = [(dst[0] - k * step[0], dst[1] - k * step[1]) for k in (1, 2)]
            d.line((*xy(*src), *xy(*dst)), fill=t.ink, width=max(2, c // 12))
            paste_centered(ctx.image, ring_sprite(c * 2 // 3, t.ink, max(1.5, c / 14)), *xy(*src))
        elif ctx.highlight:
            drops = self._setup_points(ctx, state)

        stone = c * 5 // 6
        sprites = {}
        for colour in (RED, BLUE):
            rgb = ctx.palette.colour(COLOURS[colour])
            sprites[colour] = disc(stone, rgb, mix(rgb, (0, 0, 0), 0.45), max(1.0, c / 22))
        for row in range(n):
            for col in range(n):
                bit = 1 << (row * geo.width + col)
                for colour in (RED, BLUE):
                    if state.board[colour] & bit:
                        paste_centered(ctx.image, sprites[colour], *xy(col, row))

        # Five-rows: a stroke through each run of five or more, in a contrasting outline.
        stroke = max(3, c // 8)
        for colour in (RED, BLUE):
            for a, b in runs(state.board[colour], n, geo.width):
                (x1, y1), (x2, y2) = xy(*a), xy(*b)
                d.line((x1, y1, x2, y2), fill=t.ink, width=stroke + 4)
                d.line((x1, y1, x2, y2), fill=(250, 250, 250), width=stroke)
                for x, y in ((x1, y1), (x2, y2)):
                    paste_centered(ctx.image, disc(stroke + 6, t.ink), x, y)
                    paste_centered(ctx.image, disc(stroke + 1, (250, 250, 250)), x, y)

        # The last move on top of everything: a ring round the landing stone, a dot on each dropped one.
        if dst is not None:
            paste_centered(ctx.image, ring_sprite(stone + max(6, c // 4), t.ink, max(2.0, c / 12)), *xy(*dst))
        for p in drops:
            paste_centered(ctx.image, disc(max(9, c // 3), (20, 20, 24), (250, 250, 250), max(1.5, c / 14)), *xy(*p))

    @staticmethod
    def _setup_points(ctx: Ctx, state: DotDashState) -> list[tuple[int, int]]:
        """(col, row) of the opening stones when the last move was the setup, or of new stones since
        the previous state."""
        geo = geometry(state.size)
        move = ctx.last_move
        if isinstance(move, str):
            try:
                move = ctx.ruleset.parse_syntax(move)
            except MoveError:
                return []
        if isinstance(move, Setup):
            return [geo.colrow(i) for i in (*move.red, *move.blue)]
        if isinstance(move, ParsedSetup):
            return [p for _colour, points in move.groups for p in points]
        prev = ctx.previous
        if isinstance(prev, DotDashState) and prev.size == state.size:
            added = (state.board[RED] & ~prev.board[RED]) | (state.board[BLUE] & ~prev.board[BLUE])
            return [geo.colrow(i) for i in range(added.bit_length()) if added >> i & 1]
        return []

    @staticmethod
    def _last_slide(ctx: Ctx, state: DotDashState) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        """(col, row) of the last slide's start and landing point, when known."""
        geo = geometry(state.size)
        move = ctx.last_move
        if isinstance(move, str):
            try:
                move = ctx.ruleset.parse_syntax(move)
            except MoveError:
                return None, None
        if isinstance(move, Slide):
            return geo.colrow(move.src), geo.colrow(move.dst)
        if isinstance(move, ParsedSlide):
            return move.src, move.dst
        prev = ctx.previous
        if isinstance(prev, DotDashState) and prev.size == state.size and prev.phase == "move":
            gone = (prev.board[RED] & ~state.board[RED]) | (prev.board[BLUE] & ~state.board[BLUE])
            added = (state.board[RED] & ~prev.board[RED]) | (state.board[BLUE] & ~prev.board[BLUE])
            if gone and gone & (gone - 1) == 0 and added:
                s = geo.colrow(gone.bit_length() - 1)
                # The landing point is the added stone farthest from the start.
                best = max(
                    (geo.colrow(i) for i in range(added.bit_length()) if added >> i & 1),
                    key=lambda p: max(abs(p[0] - s[0]), abs(p[1] - s[1])),
                )
                return s, best
        return None, None


RENDERER = DotDashRenderer()
