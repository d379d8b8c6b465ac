"""Trax picture: black tiles with their red and white tracks, notation labels, last turn, winning track.

The board is drawn with a ring of empty cells around the tiles, labelled exactly as the notation
names them (`@` column and `0` row included), so a player can read the next move off the picture.
Tracks are white and red (style.WHITE, style.RED); the `first_color` option says which seat plays
which. The last turn frames the placed tile in yellow and every tile it forced in sky blue with a
notch in its corner; a key line under the status says so (and that a yellow glow is the winning track).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from PIL import Image, ImageDraw

from games.base import AnyRuleset, Seat
from games.pictures.core import MARGIN, MAX_WIDTH, BoardRenderer, Ctx
from games.pictures.style import FORCED, HIGHLIGHT, RGB, SUPERSAMPLE, Palette, Theme, font, mix
from games.trax.board import COLOUR_SIDES, OFF, RED, TURN, WHITE, E, N, S, W
from games.trax.notation import col_label
from games.trax.state import TraxState

LABEL = 26
KEY_WORDS = {"placed": "tile placed", "forced": "tiles it forced", "winning": "winning track"}
"""The key line under a Trax picture: what its yellow frame, sky-blue notched frame and yellow glow mark."""
MAX_HEIGHT = 860
"""Board height the cells shrink to fit (a tall picture is scaled down by Discord anyway)."""
TILE_FACE: RGB = (28, 28, 30)


@cache
def tile_sprite(mask: int, size: int, red: RGB, white: RGB, glow: int = -1) -> Image.Image:
    """One tile (`mask` = its white sides) drawn smooth; `glow` = a colour whose track is highlighted."""
    big = size * SUPERSAMPLE
    img = Image.new("RGB", (big, big), TILE_FACE)
    d = ImageDraw.Draw(img)
    band = big // 5
    half = big / 2
    d.rectangle((0, 0, big - 1, big - 1), outline=(78, 78, 84), width=max(1, big // 50))
    sides = COLOUR_SIDES[mask]
    order = (RED, WHITE)  # white is drawn last: on a straight tile it crosses over red
    for colour in order:
        a, b = sides[colour]
        rgb = white if colour == WHITE else red
        straight = (a + 2) % 4 == b
        widths = [(band + 2 * max(2, big // 28), HIGHLIGHT)] if colour == glow else []
        widths.append((band + 2 * max(1, big // 48), TILE_FACE))
        widths.append((band, rgb))
        for w, fill in widths:
            if straight:
                if a in (N, S):
                    d.rectangle((half - w / 2, 0, half + w / 2, big), fill=fill)
                else:
                    d.rectangle((0, half - w / 2, big, half + w / 2), fill=fill)
            else:
                # The arc is centred on the corner shared by the two sides it joins.
                cx = big if E in (a, b) else 0
                cy = big if S in (a, b) else 0
                box = (cx - half - w / 2, cy - half - w / 2, cx + half + w / 2, cy + half + w / 2)
                d.arc(box, 0, 360, fill=fill, width=round(w))
    return img.resize((size, size), Image.Resampling.LANCZOS)


def winning_cells(state: TraxState) -> set[int]:
    """Cells of the winner's loop or line through the last turn (empty when there is none)."""
    if not state.winner or not state.turns:
        return set()
    colour = state.colour_of(state.winner)
    board = state.board
    fresh = [k for k, _ in state.tiles[len(state.tiles) - state.turns[-1] :]]
    minx, maxx, miny, maxy = state.box
    for start in fresh:
        a, b = COLOUR_SIDES[board[start]][colour]
        path = [start]
        ends: list[tuple[int, int]] = []
        closed = False
        for first in (a, b):
            k, d = start, first
            while True:
                n = k + OFF[d]
                m = board.get(n)
                if m is None:
                    break
                if n == start:
                    closed = True
                    break
                d = TURN[m << 2 | d]
                k = n
                path.append(k)
            ends.append((k, d))
            if closed:
                break
        if closed and state.reason == "loop":
            return set(path)
        if not closed and state.reason == "line" and len(ends) == 2:
            (k1, d1), (k2, d2) = sorted(ends, key=lambda e: e[1])
            if (d1, d2) == (E, W) and k1 >> 16 == maxx and k2 >> 16 == minx:
                return set(path)
            if (d1, d2) == (N, S) and k1 & 0xFFFF == miny and k2 & 0xFFFF == maxy:
                return set(path)
    return set()


class TraxRenderer(BoardRenderer):
    """Trax."""

    game_id = "trax"

    @staticmethod
    def grid(state: TraxState) -> tuple[int, int]:
        """Columns and rows drawn: the tiles plus one empty ring (a single cell on an empty board)."""
        if not state.tiles:
            return 1, 1
        return state.width + 2, state.height + 2

    def tile(self, state: TraxState) -> int:
        """Pixel side of a cell."""
        cols, rows = self.grid(state)
        return max(8, min(56, (MAX_WIDTH - 2 * MARGIN - LABEL) // cols, MAX_HEIGHT // rows))

    def board_size(self, state: TraxState) -> tuple[int, int]:
        """Cells plus the label gutters."""
        cols, rows = self.grid(state)
        s = self.tile(state)
        return LABEL + cols * s + 4, LABEL + rows * s + 4

    def colour_word(self, ruleset: AnyRuleset, state: TraxState, seat: Seat) -> str:
        """The track colour the seat plays ('white' or 'red', as the first_color option set it)."""
        return "white" if state.colour_of(seat) == WHITE else "red"

    def seat_colour(self, ruleset: AnyRuleset, state: TraxState, palette: Palette, seat: Seat) -> RGB:
        """White or red track colour."""
        return palette.colour(self.colour_word(ruleset, state, seat))

    def status(self, ruleset: AnyRuleset, state: TraxState, name: Callable[[Seat], str]) -> str | None:
        """Tiles and bounding box next to the usual line."""
        if state.finished:
            return None
        n = len(state.tiles)
        return f"{name(state.seat)} to move · {n} tile{'s' * (n != 1)}, {state.width}×{state.height}"

    def last_words(self, ruleset: AnyRuleset, state: TraxState, previous: object, text: str) -> str:
        """The move as written (labels of the position before it) and the placed tile's label now, when
        the board grew and the two differ: `@1+ (now A1)`."""
        placed, _forced = last_turn(state, previous)
        if not placed:
            return text
        now = tile_label(state, placed[0])
        written = text.split()[0].rstrip("+/\\").upper() if text.split() else ""
        return text if written == now else f"{text} (now {now})"

    def key(self, ruleset: AnyRuleset, state: TraxState, previous: object) -> list[tuple[str, str]]:
        """What the yellow and blue marks of the last turn (and a winning track's glow) mean, for those shown."""
        placed, forced = last_turn(state, previous)
        out = []
        if placed:
            out.append(("placed", KEY_WORDS["placed"]))
        if forced:
            out.append(("forced", KEY_WORDS["forced"]))
        if winning_cells(state):
            out.append(("winning", KEY_WORDS["winning"]))
        return out

    def draw_mark(self, draw: ImageDraw.ImageDraw, mark: str, box: tuple[int, int, int, int], theme: Theme) -> None:
        """The swatches of `key`, small copies of the board's marks: a yellow frame, a sky-blue frame with its
        notch, a yellow-edged track."""
        left, top, right, bottom = box
        draw.rectangle(box, fill=TILE_FACE)
        if mark == "placed":
            draw.rectangle(box, outline=HIGHLIGHT, width=3)
        elif mark == "forced":
            draw.rectangle((left + 1, top + 1, right - 1, bottom - 1), outline=FORCED, width=2)
            draw.polygon([(left, top), (left + 6, top), (left, top + 6)], fill=FORCED)
        elif mark == "winning":
            mid = (top + bottom) // 2
            draw.rectangle((left, mid - 4, right, mid + 4), fill=HIGHLIGHT)
            draw.rectangle((left, mid - 2, right, mid + 2), fill=TILE_FACE)
            draw.rectangle((left, mid - 1, right, mid + 1), fill=mix(theme.board, TILE_FACE, 0.2))

    def draw_board(self, ctx: Ctx, state: TraxState) -> None:
        """Empty ring cells, tiles, last-turn frames, labels."""
        d, t = ctx.draw, ctx.theme
        s = self.tile(state)
        cols, rows = self.grid(state)
        gx, gy = ctx.x0 + LABEL, ctx.y0 + LABEL
        red, white = ctx.palette.colour("red"), ctx.palette.colour("white")
        d.rectangle((gx - 2, gy - 2, gx + cols * s + 2, gy + rows * s + 2), fill=t.board, outline=t.faint)
        empty = mix(t.faint, t.board, 0.5)
        for r in range(rows):
            for c in range(cols):
                d.rectangle((gx + c * s + 1, gy + r * s + 1, gx + (c + 1) * s - 1, gy + (r + 1) * s - 1), outline=empty)
        lab = font("bold", max(9, min(14, s // 3 + 2)))
        for c in range(cols):
            d.text((gx + c * s + s / 2, ctx.y0 + LABEL / 2), col_label(c - 1), fill=t.ink, font=lab, anchor="mm")
        for r in range(rows):
            d.text((ctx.x0 + LABEL / 2, gy + r * s + s / 2), str(r), fill=t.ink, font=lab, anchor="mm")
        if not state.tiles:
            return
        minx, _, miny, _ = state.box
        win = winning_cells(state)
        glow = state.colour_of(state.winner) if win else -1
        image = ctx.image
        for key, mask in state.tiles:
            x, y = (key >> 16) - minx + 1, (key & 0xFFFF) - miny + 1
            sprite = tile_sprite(mask, s, red, white, glow if key in win else -1)
            image.paste(sprite, (gx + x * s, gy + y * s))
        if not ctx.highlight:
            return
        # The last turn: the placed tile framed thick in yellow, each tile it forced framed thinner in sky
        # blue with a corner notch, so the two read apart without relying on colour alone.
        placed, forced = last_turn(state, ctx.previous)
        frame = max(3, s // 11)
        for i, key in enumerate((*placed, *forced)):
            x, y = (key >> 16) - minx + 1, (key & 0xFFFF) - miny + 1
            box = (gx + x * s, gy + y * s, gx + (x + 1) * s - 1, gy + (y + 1) * s - 1)
            if i < len(placed):
                d.rectangle(box, outline=HIGHLIGHT, width=frame)
            else:
                thin = max(1, frame * 2 // 3)
                inset = frame // 2
                inner = (box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset)
                d.rectangle(inner, outline=FORCED, width=thin)
                notch = max(3, s // 6)
                d.polygon([(box[0], box[1]), (box[0] + notch, box[1]), (box[0], box[1] + notch)], fill=FORCED)


def tile_label(state: TraxState, key: int) -> str:
    """A cell's label in this position's notation (`A1` is the top-left tile)."""
    minx, _, miny, _ = state.box
    return f"{col_label((key >> 16) - minx)}{(key & 0xFFFF) - miny + 1}"


def last_turn(state: TraxState, previous: object = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(placed tile, forced tiles) of the last turn as cell keys: the tiles new since `previous` when it
    is an earlier position of this game, else the state's own last turn (its primary tile first)."""
    before = previous.tiles if isinstance(previous, TraxState) else ()
    n = len(before)
    if n and n < len(state.tiles) and state.tiles[:n] == before:
        fresh = [k for k, _ in state.tiles[n:]]
    elif state.turns:
        fresh = [k for k, _ in state.tiles[len(state.tiles) - state.turns[-1] :]]
    else:
        return (), ()
    return tuple(fresh[:1]), tuple(fresh[1:])


RENDERER = TraxRenderer()
