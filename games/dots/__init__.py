"""Dots (`dots`, Kropki / Точки): place dots, enclose the opponent's, ground with `stop`.

A move is `(seat, code)`: `code` is a field index (see `games.dots.field`) for a dot, or `STOP` /
`END`. Moves carry their seat because `free_order` lets a seat place a dot out of turn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import Field, model_validator

from games.base import (
    ClockKind,
    ClockSpec,
    Event,
    GameOptions,
    IllegalMoveError,
    MoveSyntaxError,
    Outcome,
    Ruleset,
    Seat,
    Termination,
    TurnError,
)
from games.coords import col_to_letters, letters_to_col, point_name
from games.dots import field
from games.dots.field import END as END  # the move codes are part of this module's face
from games.dots.field import STOP as STOP
from games.dots.field import Geometry, geometry
from games.dots.start import MIN_SIZE, start_dots

Move = tuple[int, int]
"""(seat, field index | STOP | END)."""

Parsed = tuple[str, int, int]
"""('point', x, y) with 0-based coordinates, ('stop', 0, 0) or ('end', 0, 0)."""

StartKind = Literal["cross", "double-cross", "four-crosses", "empty"]


class DotsOptions(GameOptions):
    """Field size, start position and replay conveniences."""

    width: int = Field(39, ge=3, le=52, description="points across")
    height: int = Field(32, ge=3, le=52, description="points down")
    start: StartKind = Field("cross", description="start position")
    seed: int = Field(0, description="seed of the random four-crosses start")
    free_order: bool = Field(False, description="a seat-prefixed line may place a dot out of turn")

    @model_validator(mode="after")
    def _start_fits(self) -> DotsOptions:
        mw, mh = MIN_SIZE[self.start]
        if self.width < mw or self.height < mh:
            raise ValueError(f"start {self.start} needs a field of at least {mw}x{mh}")
        return self


@dataclass(frozen=True)
class DotsState:
    """A position. `caps[k]` counts enemy dots seat k+1 holds; `final` is set once the game is over."""

    width: int
    height: int
    board: bytes
    turn: Seat
    caps: tuple[int, int]
    playable: int
    stopped: Seat | Literal[0]
    """The seat that said `stop`, 0 before that."""
    reason: str
    """'' while the game goes on; 'score' (field full) or 'stop' once over."""
    final: tuple[int, int] | None
    free_order: bool
    last: int
    """Index of the last dot placed, -1 before any."""

    @property
    def geo(self) -> Geometry:
        """The field's index tables."""
        return geometry(self.width, self.height)


def settled(state: DotsState) -> DotsState:
    """The position as the end shows it: after a stop, the stopper's ungrounded dots and areas drawn as the
    opponent's (`field.handed_over`), as the final score counts them; any other position as it is."""
    if not state.reason or not state.stopped:
        return state
    return replace(state, board=field.handed_over(state.board, state.geo, state.stopped))


_POINT = re.compile(r"^([a-z]{1,3})\s*(\d{1,3})$")
_WORDS = {"stop": "stop", "ground": "stop", "end": "end"}
_CELL = {0: ".", 1: "X", 2: "O", 1 | 8: "x", 2 | 4: "o", 1 | 4: "X", 2 | 8: "O", 4: "+", 8: "-"}
LEGEND = "X red and O blue dots, x o captured dots, + - empty points inside red's / blue's territory"


class DotsRuleset(Ruleset[DotsOptions, DotsState, Parsed, Move]):
    """Dots with automatic smallest-area capture, legal suicide and the grounding `stop`."""

    id = "dots"
    options_model = DotsOptions

    def default_clock(self, options: DotsOptions) -> ClockSpec:
        """60 s per move plus 300 s reserve."""
        return ClockSpec(ClockKind.MOVE_RESERVE, move=60, reserve=300)

    # -- states --------------------------------------------------------------------
    def new_game(self, options: DotsOptions) -> DotsState:
        """The start position, seat 1 to move."""
        geo = geometry(options.width, options.height)
        b = geo.empty_board()
        dots = start_dots(options.start, options.width, options.height, options.seed)
        for seat, x, y in dots:
            b[geo.index(x, y)] = seat
        return DotsState(
            options.width,
            options.height,
            bytes(b),
            1,
            (0, 0),
            len(geo.points) - len(dots),
            0,
            "",
            None,
            options.free_order,
            -1,
        )

    def to_move(self, state: DotsState) -> Seat | None:
        """The seat to act; after a stop always the stopper's opponent."""
        return None if state.reason else state.turn

    def check_turn(self, state: DotsState, seat: Seat) -> None:
        """With `free_order` either seat may place a dot, except the seat that stopped."""
        if state.free_order and not state.stopped and seat in (1, 2):
            return
        super().check_turn(state, seat)

    def scores(self, state: DotsState) -> dict[Seat, int]:
        """Enemy dots each seat holds; once a stopped game is over, after settling the grounding."""
        s = state.final if state.final is not None else state.caps
        return {1: s[0], 2: s[1]}

    def outcome(self, state: DotsState) -> Outcome | None:
        """More dots wins, equal is a draw; reason 'score' (field full) or 'stop' (grounded)."""
        if not state.reason:
            return None
        s = self.scores(state)
        winner = 1 if s[1] > s[2] else 2 if s[2] > s[1] else None
        return Outcome(winner, Termination(state.reason), s)

    def extra(self, state: DotsState) -> dict[str, Any]:
        """`ungrounded`: per seat, own live dots plus enemy dots held, not joined to the edge."""
        return {"ungrounded": {str(s): sum(self.ungrounded(state, s)) for s in (1, 2)}}

    def ungrounded(self, state: DotsState, seat: Seat) -> tuple[int, int]:
        """(own live dots, enemy dots held in own territory) of `seat` not joined to the edge."""
        return field.ungrounded(state.board, state.geo, seat)

    # -- moves ---------------------------------------------------------------------
    def parse_syntax(self, text: str) -> Parsed:
        """A point like `T16` (`t 16`), or `stop` / `ground`, or `end`."""
        body = text.strip().lower()
        word = _WORDS.get(body)
        if word is not None:
            return (word, 0, 0)
        m = _POINT.match(body)
        if not m or int(m.group(2)) < 1:
            raise MoveSyntaxError(text, "a move is a point like T16, or stop / end")
        return ("point", letters_to_col(m.group(1)), int(m.group(2)) - 1)

    def validate(self, state: DotsState, parsed: Parsed, seat: Seat) -> Move:
        """Check the point (on the field, empty, not enclosed) or the stop/end phase."""
        kind, x, y = parsed
        if kind == "point":
            name = point_name(x, y)
            if not (0 <= x < state.width and 0 <= y < state.height):
                last = point_name(state.width - 1, state.height - 1)
                raise IllegalMoveError(name, f"{name} is off the field (A1 to {last})")
            if state.stopped and seat == state.stopped:
                raise TurnError(name, f"seat {seat} has stopped and places no more dots")
            idx = state.geo.index(x, y)
            v = state.board[idx]
            if v >> 2:
                owner = "red" if v >> 2 == 1 else "blue"
                raise IllegalMoveError(name, f"{name} is inside {owner}'s enclosure: nobody can play there")
            if v:
                raise IllegalMoveError(name, f"{name} already holds a dot")
            return (seat, idx)
        if seat != state.turn:
            raise TurnError(kind, f"only seat {state.turn} may {kind} now")
        if kind == "stop":
            if state.stopped:
                raise IllegalMoveError(kind, f"seat {state.stopped} has already stopped; place dots or write end")
            return (seat, STOP)
        if not state.stopped:
            raise IllegalMoveError(kind, "end only comes after the opponent's stop; write stop to ground")
        return (seat, END)

    def format(self, state: DotsState, move: Move) -> str:
        """`T16`, `stop` or `end` (the seat is the one to move, or given to `parse`)."""
        code = move[1]
        if code == STOP:
            return "stop"
        if code == END:
            return "end"
        return point_name(*state.geo.xy(code))

    def legal_moves(self, state: DotsState) -> list[Move]:
        """Every empty live point, then `stop` (or `end` after the opponent's stop)."""
        if state.reason:
            return []
        seat = state.turn
        b = state.board
        out = [(seat, i) for i in state.geo.points if not b[i]]
        out.append((seat, END if state.stopped else STOP))
        return out

    def apply(self, state: DotsState, move: Move) -> tuple[DotsState, list[Event]]:
        """Place the dot and resolve captures, or record stop / end."""
        seat, code = move
        other = 3 - seat
        events = [Event("move", {"seat": seat, "move": self.format(state, move)})]
        if code == STOP:
            new = replace(state, stopped=seat, turn=other)
            events.append(Event("stop", {"seat": seat, "ungrounded": sum(self.ungrounded(state, seat))}))
            return new, events
        if code == END:
            new = self._finish(state, "stop")
            return new, self._game_over(new, events)
        geo = state.geo
        b = bytearray(state.board)
        caps = list(state.caps)
        playable = state.playable - 1
        for cap in field.place(b, geo, code, seat):
            caps[cap.seat - 1] += cap.taken
            caps[2 - cap.seat] -= cap.freed
            playable -= cap.emptied
            events.append(
                Event(
                    "capture",
                    {
                        "seat": cap.seat,
                        "taken": cap.taken,
                        "freed": cap.freed,
                        "points": len(cap.points),
                        "suicide": cap.seat != seat,
                    },
                )
            )
        new = DotsState(
            state.width,
            state.height,
            bytes(b),
            state.turn if state.stopped else other,
            (caps[0], caps[1]),
            playable,
            state.stopped,
            "",
            None,
            state.free_order,
            code,
        )
        if playable == 0:
            new = self._finish(new, "stop" if state.stopped else "score")
            events = self._game_over(new, events)
        return new, events

    def _finish(self, state: DotsState, reason: str) -> DotsState:
        """End the game; after a stop the stopper's ungrounded dots are settled."""
        c1, c2 = state.caps
        if state.stopped:
            own, held = self.ungrounded(state, state.stopped)
            if state.stopped == 1:
                c1, c2 = c1 - held, c2 + own
            else:
                c1, c2 = c1 + own, c2 - held
        return replace(state, reason=reason, final=(c1, c2))

    def _game_over(self, state: DotsState, events: list[Event]) -> list[Event]:
        out = self.outcome(state)
        assert out is not None
        return [
            *events,
            Event("game_over", {"winner": out.winner, "reason": out.reason, "scores": dict(out.scores)}),
        ]

    def looks_like_move(self, text: str) -> bool:
        """Short text with a point in it, or a bare stop/end word."""
        return text.strip().lower() in _WORDS or super().looks_like_move(text)

    def turn_prompt(self, state: DotsState) -> str | None:
        """After a stop: the opponent's free dots and `end`."""
        if state.stopped and not state.reason:
            return "your opponent has stopped: place as many dots as you like, then post `end`"
        return None

    def ends_own_play(self, move: Move) -> bool:
        """`stop` (`ground`): the mover places no more dots and their ungrounded dots will be lost."""
        return move[1] == STOP

    def move_hint(self) -> str:
        """How to write a move."""
        return "name an empty point like T15; write stop to ground, end after the opponent's stop"

    # -- storage and display -------------------------------------------------------
    def state_to_json(self, state: DotsState) -> dict[str, Any]:
        """The field as rows of hex digits (dot + 4 × territory owner), plus counters."""
        geo = state.geo
        b = state.board
        rows = ["".join("0123456789a"[b[geo.index(x, y)]] for x in range(state.width)) for y in range(state.height)]
        return {
            "width": state.width,
            "height": state.height,
            "rows": rows,
            "turn": state.turn,
            "caps": list(state.caps),
            "playable": state.playable,
            "stopped": state.stopped,
            "reason": state.reason,
            "final": None if state.final is None else list(state.final),
            "free_order": state.free_order,
            "last": None if state.last < 0 else point_name(*geo.xy(state.last)),
        }

    def state_from_json(self, data: Mapping[str, Any]) -> DotsState:
        """Inverse of `state_to_json`."""
        width, height = int(data["width"]), int(data["height"])
        geo = geometry(width, height)
        b = geo.empty_board()
        rows = data["rows"]
        if len(rows) != height or any(len(r) != width for r in rows):
            raise ValueError("stored rows do not match the field size")
        for y, row in enumerate(rows):
            for x, ch in enumerate(row):
                b[geo.index(x, y)] = int(ch, 16)
        last = data.get("last")
        final = data.get("final")
        stopped = int(data["stopped"])
        return DotsState(
            width,
            height,
            bytes(b),
            int(data["turn"]),
            (int(data["caps"][0]), int(data["caps"][1])),
            int(data["playable"]),
            1 if stopped == 1 else 2 if stopped == 2 else 0,
            str(data["reason"]),
            None if final is None else (int(final[0]), int(final[1])),
            bool(data["free_order"]),
            -1 if last is None else geo.index(*_xy(str(last))),
        )

    def render_text(self, state: DotsState) -> str:
        """The field with column letters and row numbers (after a stop, as it settled: `settled`); see `LEGEND`
        for the symbols."""
        geo = state.geo
        b = settled(state).board
        w = state.width
        # Up to 26 columns: one letter per column, a space apart. Wider (`AA`…): one header row, every column
        # three characters wide (its label right-aligned over its point), the row number at both ends.
        names = [col_to_letters(c) for c in range(w)]
        lines: list[str] = []
        if w <= 26:
            lines.append("   " + " ".join(names))
            for y in range(state.height):
                row = [_CELL.get(b[geo.index(x, y)], "?") for x in range(w)]
                lines.append(f"{y + 1:>2} " + " ".join(row))
        else:  # only the part in play (every non-empty point, `MARGIN` around), so that it fits a terminal
            xs, ys = _in_play(state, b)
            lines.append("  " + "".join(names[x].rjust(3) for x in xs))
            for y in ys:
                cells = "".join(_CELL.get(b[geo.index(x, y)], "?").rjust(3) for x in xs)
                lines.append(f"{y + 1:>2}{cells}  {y + 1}")
            lines.append(lines[0])
            if len(xs) < w or len(ys) < state.height:
                lines.append(
                    f"(columns {names[xs[0]]}-{names[xs[-1]]}, rows {ys[0] + 1}-{ys[-1] + 1} of A-{names[-1]}, "
                    f"1-{state.height}: the rest is empty)"
                )
        lines = [ln.rstrip() for ln in lines]
        s = self.scores(state)
        if state.reason:
            out = self.outcome(state)
            assert out is not None
            who = f"seat {out.winner} wins" if out.winner else "draw"
            status = f"game over ({out.reason}): {who}"
        elif state.stopped:
            status = f"seat {state.stopped} stopped; seat {state.turn} plays on or writes end"
        else:
            status = f"seat {state.turn} to move"
        last = "" if state.last < 0 else f"; last dot {point_name(*geo.xy(state.last))}"
        lines.append(f"captured: red {s[1]}, blue {s[2]}; {status}{last}")
        lines.append(LEGEND)
        return "\n".join(lines)

    # -- SGF -----------------------------------------------------------------------
    sgf_records = True

    def import_sgf(self, text: str) -> tuple[dict[str, Any], list[str]]:
        """An SGF record (GM[40]) → replay options and seat-prefixed move lines."""
        from games.dots.sgf import import_sgf

        return import_sgf(text)

    def export_sgf(self, options: DotsOptions | Mapping[str, Any], moves: Sequence[Move]) -> str:
        """A game (its options and moves from the start) as an SGF record (GM[40])."""
        from games.dots.sgf import export_sgf

        opts = options if isinstance(options, DotsOptions) else self.parse_options(options)
        return export_sgf(self, opts, moves)


_SHOWN = frozenset(v for v in _CELL if v)
MARGIN = 3
"""Empty points shown around the part of a wide field in play (`render_text`)."""
SHOWN_AT_LEAST = 13
"""Columns and rows a wide field's text shows at the least (then widened around the part in play)."""


def _in_play(state: DotsState, board: bytes) -> tuple[range, range]:
    """The columns and rows of a wide field worth showing: every non-empty point with `MARGIN` around it,
    at least `SHOWN_AT_LEAST` of each, within the field."""
    geo = state.geo
    used = [(x, y) for y in range(state.height) for x in range(state.width) if board[geo.index(x, y)] in _SHOWN]
    xs = [x for x, _ in used] or [state.width // 2]
    ys = [y for _, y in used] or [state.height // 2]

    def span(low: int, high: int, size: int) -> range:
        low, high = max(0, low - MARGIN), min(size - 1, high + MARGIN)
        while high - low + 1 < min(SHOWN_AT_LEAST, size):
            low, high = max(0, low - 1), min(size - 1, high + 1)
        return range(low, high + 1)

    return span(min(xs), max(xs), state.width), span(min(ys), max(ys), state.height)


def _xy(name: str) -> tuple[int, int]:
    m = _POINT.match(name.strip().lower())
    if not m:
        raise ValueError(f"bad point {name!r}")
    return letters_to_col(m.group(1)), int(m.group(2)) - 1


RULESET = DotsRuleset()
