"""The Trax ruleset (`trax`): the game contract over `games.trax.state`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import field_validator

from games.base import (
    ClockKind,
    ClockSpec,
    Event,
    GameFinishedError,
    GameOptions,
    IllegalMoveError,
    Outcome,
    Ruleset,
    Seat,
    Termination,
)
from games.trax import notation
from games.trax.board import (
    FIRST_TILES,
    FIT,
    ORIGIN,
    SHAPE,
    SHAPE_TILES,
    SIDE_NAMES,
    WHITE,
    ThreeSame,
    bounding_box,
    need,
    pack,
)
from games.trax.notation import ParsedMove, col_label
from games.trax.render import RED_MARK, WHITE_MARK, render
from games.trax.state import Move, TraxState, empty, legal_moves, play, rewind, simulate

THREE_SAME = "three-same"
"""`IllegalMoveError.code` of a turn refused by the three-same-colour rule (the host's house rule)."""

_ORIGIN_X, _ORIGIN_Y = ORIGIN >> 16, ORIGIN & 0xFFFF


class TraxOptions(GameOptions):
    """Which colour seat 1 plays."""

    first_color: Literal["white", "red"] = "white"

    @field_validator("first_color", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


def colour_name(colour: int) -> str:
    """WHITE → 'white'."""
    return "white" if colour == WHITE else "red"


class TraxRuleset(Ruleset[TraxOptions, TraxState, ParsedMove, Move]):
    """Unlimited Trax with the Death Match notation on top."""

    id = "trax"
    options_model = TraxOptions

    def __init__(self) -> None:
        # validate() already plays the turn out; apply() reuses that work for the same state.
        self._last: tuple[TraxState, Move, tuple[dict[int, int], list[int]]] | None = None

    # -- options and states ----------------------------------------------------------
    def default_clock(self, options: TraxOptions) -> ClockSpec:
        """One grace: 60 s per move, once per match up to 10 min."""
        return ClockSpec(ClockKind.GRACE, move=60, grace=600)

    def new_game(self, options: TraxOptions) -> TraxState:
        """The empty board; seat 1 moves first with the chosen colour."""
        return empty(options.first_color == "white")

    def to_move(self, state: TraxState) -> Seat | None:
        """Seats alternate; None once a loop or line is made."""
        return None if state.finished else state.seat

    def outcome(self, state: TraxState) -> Outcome | None:
        """Winner and 'loop' or 'line'."""
        if not state.finished:
            return None
        return Outcome(state.winner, Termination(state.reason), self.scores(state))

    def scores(self, state: TraxState) -> dict[Seat, int]:
        """Trax has no score: 0 for both seats."""
        return {1: 0, 2: 0}

    def extra(self, state: TraxState) -> dict[str, Any]:
        """Tile count and bounding box."""
        return {"tiles": len(state.tiles), "width": state.width, "height": state.height}

    def colour_of(self, state: TraxState, seat: Seat) -> str:
        """'white' or 'red' for a seat."""
        return colour_name(state.colour_of(seat))

    def rewind(self, state: TraxState, turns: int = 1) -> TraxState:
        """The position `turns` whole turns back, forced tiles included (a mulligan rewinds 2)."""
        return rewind(state, turns)

    def turns_played(self, state: TraxState) -> int:
        """How many turns have been played."""
        return len(state.turns)

    # -- moves -------------------------------------------------------------------------
    def parse_syntax(self, text: str) -> ParsedMove:
        """Standard notation or the Death Match form; see `games.trax.notation`."""
        return notation.parse(text)

    def validate(self, state: TraxState, parsed: ParsedMove, seat: Seat) -> Move:
        """The placement named, if the whole turn (forced plays included) is legal."""
        if state.finished:
            raise GameFinishedError(_written(parsed), "the game is already over")
        if not state.tiles:
            return self._first_move(state, parsed, seat, _written(parsed))
        minx, _maxx, miny, _maxy = state.box
        width, height = state.width, state.height
        col, row = parsed.col, parsed.row
        if not (-1 <= col <= width and 0 <= row <= height + 1):
            text, label = _written(parsed), _cell(parsed)
            raise IllegalMoveError(
                text,
                f"{label} is off the board: columns run from @ to {col_label(width)}, rows from 0 to {height + 1}",
            )
        if col in (-1, width) and row in (0, height + 1):
            text, label = _written(parsed), _cell(parsed)
            raise IllegalMoveError(text, f"{label} is a corner cell: it never touches a tile")
        key = pack(minx + col, miny + row - 1)
        board = state.board
        if key in board:
            text, label = _written(parsed), _cell(parsed)
            raise IllegalMoveError(text, f"{label} is already taken")
        idx = need(board, key)
        if idx == 0:
            text, label = _written(parsed), _cell(parsed)
            raise IllegalMoveError(text, f"{label} is not next to any tile")
        fits = FIT[idx]
        if parsed.shape is not None:
            options = [t for t in SHAPE_TILES[parsed.shape] if t in fits]
            if not options:
                text, label = _written(parsed), _cell(parsed)
                raise IllegalMoveError(text, f"no {parsed.shape} tile fits at {label}: {_demands(idx, label)}")
            mask = options[0]
        else:
            mask = _dm_mask(parsed, state.colour_of(seat))
            if mask not in fits:
                text, label = _written(parsed), _cell(parsed)
                raise IllegalMoveError(text, f"{text} does not fit: {_demands(idx, label)}")
        move = (key, mask)
        try:
            done = simulate(state, move)
        except ThreeSame as exc:
            text, label = _written(parsed), _cell(parsed)
            where = _label_of(state, exc.cell)
            raise IllegalMoveError(
                text,
                f"{label}{SHAPE[mask]} would leave {where} entered by three "
                f"{colour_name(exc.colour)} tracks, which no tile can fill",
                code=THREE_SAME,
            ) from None
        self._last = (state, move, done)
        return move

    def _first_move(self, state: TraxState, parsed: ParsedMove, seat: Seat, text: str) -> Move:
        if (parsed.col, parsed.row) != (-1, 0):
            raise IllegalMoveError(text, "the first tile goes at @0: play @0+ or @0/")
        if parsed.shape is not None:
            if parsed.shape == "\\":
                raise IllegalMoveError(
                    text, "the first tile is @0+ or @0/ (a \\ tile is the same as / with the board turned)"
                )
            return (ORIGIN, 5 if parsed.shape == "+" else 9)
        # Any first tile is one of the two standard ones seen from another side of the table.
        mask = _dm_mask(parsed, state.colour_of(seat))
        return (ORIGIN, FIRST_TILES[0] if mask in (5, 10) else FIRST_TILES[1])

    def format(self, state: TraxState, move: Move) -> str:
        """Standard notation relative to the board before the move: `B3/`."""
        key, mask = move
        return _label_of(state, key) + SHAPE[mask]

    def format_dm(self, state: TraxState, move: Move) -> str:
        """The Death Match form: the cell and the two sides the mover's colour joins (`B3 north east`)."""
        key, mask = move
        mine = mask if state.colour_of(state.seat) == WHITE else 15 ^ mask
        a, b = (side for side in range(4) if mine >> side & 1)
        return f"{_label_of(state, key)} {SIDE_NAMES[a]} {SIDE_NAMES[b]}"

    def legal_moves(self, state: TraxState) -> list[Move]:
        """Every legal placement once (perft counts these)."""
        return legal_moves(state)

    def apply(self, state: TraxState, move: Move) -> tuple[TraxState, list[Event]]:
        """Place the tile, fill the forced cells, judge loops and lines for both colours."""
        if state.finished:
            raise GameFinishedError(self.format(state, move), "the game is already over")
        cached = self._last
        if cached is not None and cached[0] is state and cached[1] == move:
            done = cached[2]
        else:
            key, mask = move
            if state.tiles:
                if key in state.board or mask not in FIT[need(state.board, key)]:
                    raise IllegalMoveError(self.format(state, move), "that tile cannot go there")
            elif move not in [(ORIGIN, t) for t in FIRST_TILES]:
                raise IllegalMoveError("@0", "the first tile is @0+ or @0/")
            try:
                done = simulate(state, move) if state.tiles else ({move[0]: move[1]}, [move[0]])
            except ThreeSame:
                raise IllegalMoveError(
                    self.format(state, move), "three same-coloured tracks would meet", code=THREE_SAME
                ) from None
        self._last = None
        seat = state.seat
        new = play(state, move, done)
        placed = done[1]
        events = [
            Event(
                "move",
                {
                    "seat": seat,
                    "colour": colour_name(state.colour_of(seat)),
                    "move": self.format(state, move),
                    "tiles": len(placed),
                },
            )
        ]
        if len(placed) > 1:
            # Forced tiles are named on the board after the move (the picture players see next).
            names = [_label_of(new, k) + SHAPE[new.board[k]] for k in placed[1:]]
            events.append(Event("forced", {"seat": seat, "tiles": names}))
        if new.finished:
            events.append(
                Event(
                    "game_over",
                    {
                        "winner": new.winner,
                        "reason": new.reason,
                        "colour": colour_name(new.colour_of(new.winner)),
                    },
                )
            )
        return new, events

    def looks_like_move(self, text: str) -> bool:
        """A cell label followed by a tile sign or a side word."""
        return notation.looks_like_move(text)

    def move_hint(self) -> str:
        """How to write a move."""
        return (
            "place a tile like B3/, B3+ or B3\\ (labels as on the board; @ and 0 are the empty "
            "column and row before A and 1), or name a cell and the two sides your colour joins: "
            "B3 north east"
        )

    # -- storage and display -------------------------------------------------------------
    def state_to_json(self, state: TraxState) -> dict[str, Any]:
        """Tiles as [x, y, white sides mask] from the first tile, per-turn tile counts, result."""
        return {
            "first_color": "white" if state.seat1_white else "red",
            "tiles": [[(k >> 16) - _ORIGIN_X, (k & 0xFFFF) - _ORIGIN_Y, m] for k, m in state.tiles],
            "turns": list(state.turns),
            "winner": state.winner or None,
            "reason": state.reason or None,
        }

    def state_from_json(self, data: Mapping[str, Any]) -> TraxState:
        """Inverse of `state_to_json`."""
        tiles = tuple((pack(_ORIGIN_X + int(x), _ORIGIN_Y + int(y)), int(m)) for x, y, m in data["tiles"])
        turns = tuple(int(n) for n in data["turns"])
        if sum(turns) != len(tiles) or any(m not in SHAPE for _k, m in tiles):
            raise ValueError("stored Trax state is inconsistent")
        seat1_white = data.get("first_color", "white") == "white"
        board = dict(tiles)
        box = bounding_box(board) if tiles else (0, -1, 0, -1)
        winner = int(data.get("winner") or 0)
        return TraxState(tiles, turns, seat1_white, winner, str(data.get("reason") or ""), box, board)

    def render_text(self, state: TraxState) -> str:
        """The board with labels, then whose turn it is or who won."""
        lines = [render(state)]
        tiles = len(state.tiles)
        lines.append(f"{WHITE_MARK} white track, {RED_MARK} red track; {tiles} tile{'s' if tiles != 1 else ''}")
        if state.finished:
            lines.append(f"seat {state.winner} ({colour_name(state.colour_of(state.winner))}) wins by {state.reason}")
        else:
            lines.append(f"seat {state.seat} ({colour_name(state.colour_of(state.seat))}) to move")
        return "\n".join(lines)


def _cell(parsed: ParsedMove) -> str:
    """The cell label as written, normalised (`b3` → `B3`)."""
    return f"{col_label(parsed.col)}{parsed.row}"


def _written(parsed: ParsedMove) -> str:
    """The move as a compact echo for error messages."""
    cell = f"{col_label(parsed.col)}{parsed.row}"
    if parsed.shape is not None:
        return cell + parsed.shape
    assert parsed.sides is not None
    colour = f"{parsed.colour} " if parsed.colour else ""
    return f"{cell} {colour}{SIDE_NAMES[parsed.sides[0]]} {SIDE_NAMES[parsed.sides[1]]}"


def _dm_mask(parsed: ParsedMove, mover_colour: int) -> int:
    """The tile whose `colour` (default the mover's) track joins the two named sides."""
    assert parsed.sides is not None
    bits = 1 << parsed.sides[0] | 1 << parsed.sides[1]
    colour = mover_colour if parsed.colour is None else (WHITE if parsed.colour == "white" else 0)
    return bits if colour == WHITE else 15 ^ bits


def _demands(idx: int, label: str) -> str:
    """'white enters from the north, red from the west' for a FIT index."""
    parts = []
    for side in range(4):
        if idx >> side & 1:
            parts.append(f"white from the {SIDE_NAMES[side]}")
        elif idx >> (side + 4) & 1:
            parts.append(f"red from the {SIDE_NAMES[side]}")
    return f"tracks enter {label} " + ", ".join(parts)


def _label_of(state: TraxState, key: int) -> str:
    """Notation label of a cell relative to `state`'s board (`@0` on the empty board)."""
    if not state.tiles:
        return "@0"
    minx, _maxx, miny, _maxy = state.box
    col = (key >> 16) - minx
    row = (key & 0xFFFF) - miny + 1
    if col < -1 or row < 0:
        return f"the cell at offset ({col}, {row - 1}) from A1"
    return f"{col_label(col)}{row}"


RULESET = TraxRuleset()
