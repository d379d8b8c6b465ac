"""Dots-and-Boxes (`boxes`) on an R×C box grid: draw an edge, a completed box scores and moves again.

Edges are numbered as in `shared/cases/boxes`: horizontal edges row by row from the top, left to
right, then vertical edges row by row. A box is named by its top-left dot (box `A1` is A1-B1-A2-B2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import Field

from games.base import (
    ClockKind,
    ClockSpec,
    Event,
    GameOptions,
    IllegalMoveError,
    MoveSyntaxError,
    Outcome,
    Point,
    Ruleset,
    Seat,
    Termination,
)
from games.coords import col_to_letters, find_points, point_name


class BoxesOptions(GameOptions):
    """Board size in boxes."""

    rows: int = Field(3, ge=1, le=8, description="rows of boxes")
    cols: int = Field(3, ge=1, le=8, description="columns of boxes")


@dataclass(frozen=True)
class Geometry:
    """Precomputed edge and box tables for one board size."""

    rows: int
    cols: int
    n_h: int
    n_edges: int
    edge_points: tuple[tuple[Point, Point], ...]
    box_masks: tuple[int, ...]
    edge_boxes: tuple[tuple[int, ...], ...]

    def edge_index(self, a: Point, b: Point) -> int | None:
        """Index of the edge between two dots, or None when they are not adjacent on the board."""
        (c1, r1), (c2, r2) = sorted((a, b), key=lambda p: (p[1], p[0]))
        if r1 == r2 and c2 == c1 + 1 and 0 <= r1 <= self.rows and 0 <= c1 < self.cols:
            return r1 * self.cols + c1
        (c1, r1), (c2, r2) = sorted((a, b))
        if c1 == c2 and r2 == r1 + 1 and 0 <= c1 <= self.cols and 0 <= r1 < self.rows:
            return self.n_h + r1 * (self.cols + 1) + c1
        return None

    def box_name(self, box: int) -> str:
        """Box index → name of its top-left dot."""
        r, c = divmod(box, self.cols)
        return point_name(c, r)


@cache
def geometry(rows: int, cols: int) -> Geometry:
    """Tables for an R×C board (cached)."""
    n_h = (rows + 1) * cols
    n_v = rows * (cols + 1)
    points: list[tuple[Point, Point]] = []
    for r in range(rows + 1):
        for c in range(cols):
            points.append(((c, r), (c + 1, r)))
    for r in range(rows):
        for c in range(cols + 1):
            points.append(((c, r), (c, r + 1)))
    masks = []
    edge_boxes: list[list[int]] = [[] for _ in range(n_h + n_v)]
    for r in range(rows):
        for c in range(cols):
            box = r * cols + c
            edges = (r * cols + c, (r + 1) * cols + c, n_h + r * (cols + 1) + c, n_h + r * (cols + 1) + c + 1)
            mask = 0
            for e in edges:
                mask |= 1 << e
                edge_boxes[e].append(box)
            masks.append(mask)
    return Geometry(rows, cols, n_h, n_h + n_v, tuple(points), tuple(masks), tuple(tuple(b) for b in edge_boxes))


@dataclass(frozen=True)
class BoxesState:
    """A position: drawn edges as a bitmask, box owners (0 = open), the seat to move."""

    rows: int
    cols: int
    drawn: int
    owners: tuple[int, ...]
    turn: Seat

    @property
    def geo(self) -> Geometry:
        """The board's tables."""
        return geometry(self.rows, self.cols)

    @property
    def finished(self) -> bool:
        """All edges drawn."""
        return self.drawn == (1 << self.geo.n_edges) - 1


_SEPARATORS = re.compile(r"^\s*(?:draw\s+)?(.+?)\s*$", re.IGNORECASE)


class BoxesRuleset(Ruleset[BoxesOptions, BoxesState, tuple[Point, Point], int]):
    """Classic Dots-and-Boxes."""

    id = "boxes"
    options_model = BoxesOptions

    def default_clock(self, options: BoxesOptions) -> ClockSpec:
        """60 s per move plus 300 s reserve."""
        return ClockSpec(ClockKind.MOVE_RESERVE, move=60, reserve=300)

    def new_game(self, options: BoxesOptions) -> BoxesState:
        """An empty board, seat 1 to move."""
        return BoxesState(options.rows, options.cols, 0, (0,) * (options.rows * options.cols), 1)

    def to_move(self, state: BoxesState) -> Seat | None:
        """Seat to move, None when every edge is drawn."""
        return None if state.finished else state.turn

    def scores(self, state: BoxesState) -> dict[Seat, int]:
        """Boxes owned by each seat."""
        return {1: state.owners.count(1), 2: state.owners.count(2)}

    def outcome(self, state: BoxesState) -> Outcome | None:
        """More boxes wins; equal is a draw."""
        if not state.finished:
            return None
        s = self.scores(state)
        winner = 1 if s[1] > s[2] else 2 if s[2] > s[1] else None
        return Outcome(winner, Termination.SCORE, s)

    def parse_syntax(self, text: str) -> tuple[Point, Point]:
        """Two dots: `A1-B1`, `a1 b1`, `B1 to A1`."""
        m = _SEPARATORS.match(text)
        body = m.group(1) if m else text
        rest = re.sub(r"[A-Za-z]{1,3}\s*\d{1,3}|[\s,\-–]+|\bto\b|\band\b", "", body, flags=re.I)
        pts = find_points(body)
        if len(pts) != 2 or rest:
            raise MoveSyntaxError(text, "a move names two dots, like A1-B1")
        return pts[0], pts[1]

    def validate(self, state: BoxesState, parsed: tuple[Point, Point], seat: Seat) -> int:
        """The edge index; refuses dots off the board, non-adjacent dots and drawn edges."""
        geo = state.geo
        text = f"{point_name(*parsed[0])}-{point_name(*parsed[1])}"
        for c, r in parsed:
            if not (0 <= c <= geo.cols and 0 <= r <= geo.rows):
                raise IllegalMoveError(
                    text,
                    f"{point_name(c, r)} is off the board (dots A1 to {point_name(geo.cols, geo.rows)})",
                )
        edge = geo.edge_index(*parsed)
        if edge is None:
            raise IllegalMoveError(text, f"{point_name(*parsed[0])} and {point_name(*parsed[1])} are not adjacent dots")
        if state.drawn >> edge & 1:
            raise IllegalMoveError(text, f"{self._edge_text(geo, edge)} is already drawn")
        return edge

    @staticmethod
    def _edge_text(geo: Geometry, edge: int) -> str:
        a, b = geo.edge_points[edge]
        return f"{point_name(*a)}-{point_name(*b)}"

    def format(self, state: BoxesState, move: int) -> str:
        """`A1-B1`, left or upper dot first."""
        return self._edge_text(state.geo, move)

    def legal_moves(self, state: BoxesState) -> list[int]:
        """Every undrawn edge."""
        if state.finished:
            return []
        return [e for e in range(state.geo.n_edges) if not state.drawn >> e & 1]

    def apply(self, state: BoxesState, move: int) -> tuple[BoxesState, list[Event]]:
        """Draw the edge; completed boxes go to the mover, who then moves again."""
        geo = state.geo
        drawn = state.drawn | (1 << move)
        seat = state.turn
        events = [Event("move", {"seat": seat, "move": self._edge_text(geo, move)})]
        owners = state.owners
        completed = [b for b in geo.edge_boxes[move] if drawn & geo.box_masks[b] == geo.box_masks[b]]
        if completed:
            lst = list(owners)
            for b in completed:
                lst[b] = seat
            owners = tuple(lst)
            events.append(
                Event(
                    "boxes",
                    {"seat": seat, "count": len(completed), "boxes": [geo.box_name(b) for b in completed]},
                )
            )
        turn = seat if completed else 3 - seat
        new = BoxesState(state.rows, state.cols, drawn, owners, turn)
        out = self.outcome(new)
        if out is not None:
            events.append(Event("game_over", {"winner": out.winner, "reason": out.reason, "scores": dict(out.scores)}))
        elif completed:
            events.append(Event("extra_turn", {"seat": seat}))
        return new, events

    def move_hint(self) -> str:
        """How to write a move."""
        return "name two adjacent dots, like A1-B1"

    def state_to_json(self, state: BoxesState) -> dict[str, Any]:
        """Drawn edges in notation, owners, turn."""
        geo = state.geo
        return {
            "rows": state.rows,
            "cols": state.cols,
            "drawn": [self._edge_text(geo, e) for e in range(geo.n_edges) if state.drawn >> e & 1],
            "owners": list(state.owners),
            "turn": state.turn,
        }

    def state_from_json(self, data: Mapping[str, Any]) -> BoxesState:
        """Inverse of `state_to_json`."""
        rows, cols = int(data["rows"]), int(data["cols"])
        geo = geometry(rows, cols)
        drawn = 0
        for text in data["drawn"]:
            a, b = self.parse_syntax(text)
            edge = geo.edge_index(a, b)
            if edge is None:
                raise ValueError(f"bad edge {text!r} in stored state")
            drawn |= 1 << edge
        owners = tuple(int(o) for o in data["owners"])
        if len(owners) != rows * cols:
            raise ValueError("owner list does not match the board size")
        return BoxesState(rows, cols, drawn, owners, int(data["turn"]))

    def state_from_edges(self, rows: int, cols: int, edges: list[str]) -> BoxesState:
        """A position with these edges drawn (owners of complete boxes unknown → 0), seat 1 to move."""
        geo = geometry(rows, cols)
        drawn = 0
        for text in edges:
            a, b = self.parse_syntax(text)
            edge = geo.edge_index(a, b)
            if edge is None:
                raise ValueError(f"{text!r} is not an edge of a {rows}x{cols} board")
            drawn |= 1 << edge
        return BoxesState(rows, cols, drawn, (0,) * (rows * cols), 1)

    def render_text(self, state: BoxesState) -> str:
        """Dots as `o`, drawn edges as `---`/`|`, owned boxes by seat number; `LEGEND` under it."""
        geo = state.geo
        lines = ["   " + "".join(col_to_letters(c).ljust(4) for c in range(geo.cols + 1)).rstrip()]
        for r in range(geo.rows + 1):
            row = f"{r + 1:>2} "
            for c in range(geo.cols + 1):
                row += "o"
                if c < geo.cols:
                    row += "---" if state.drawn >> (r * geo.cols + c) & 1 else "   "
            lines.append(row.rstrip())
            if r < geo.rows:
                row = "   "
                for c in range(geo.cols + 1):
                    v = geo.n_h + r * (geo.cols + 1) + c
                    row += "|" if state.drawn >> v & 1 else " "
                    if c < geo.cols:
                        owner = state.owners[r * geo.cols + c]
                        row += f" {owner} " if owner else "   "
                lines.append(row.rstrip())
        s = self.scores(state)
        turn = self.to_move(state)
        status = f"seat {turn} to move" if turn else "game over"
        lines.append(f"boxes: seat 1 {s[1]}, seat 2 {s[2]}; {status}")
        lines.append(LEGEND)
        return "\n".join(lines)


LEGEND = "o dots, --- and | lines drawn, 1 / 2 a box closed by seat 1 / seat 2"
"""The text board's key (the room names the seats)."""

RULESET = BoxesRuleset()
