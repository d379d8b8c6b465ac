"""Pathing Dots & Boxes (`pathing`, designer Zero): swap squares on a 4×4 board, draw the swap's edge.

The 16 squares `A1`…`D4` of the pathing board are also the dots of a 3×3 Dots-and-Boxes board (the
support board, shared with `games.boxes`): swapping two neighbouring squares fills the edge between
their dots. Square `A1` is index 0, index = row * 4 + column. The rule card is seeds/rules/pathing.md.

Events of `apply` (first is always `move`): `boxes` and `extra_turn` (the mover acts again: fresh
action timer), `round_end` (the round loser must now make a timed penalty pick), `penalty`,
`round_start`, `game_over`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import Field, field_validator

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
from games.boxes import geometry
from games.coords import column_header, parse_point, point_name

Phase = Literal["move", "penalty"]
RulesetName = Literal["dm5", "original"]

SIZE = 4
N_SQUARES = SIZE * SIZE
SUPPORT = geometry(SIZE - 1, SIZE - 1)
N_EDGES = SUPPORT.n_edges  # 24
N_BOXES = len(SUPPORT.box_masks)  # 9
ALL_EDGES = (1 << N_EDGES) - 1
PICK = N_EDGES
"""Moves are ints: 0…23 swap along that support edge, PICK + square (24…39) is a penalty pick."""

COLOUR_NAME = {1: "red", 2: "blue"}
COLOUR_LETTER = {1: "R", 2: "B"}
EMPTY_BOARD = "/".join(["." * SIZE] * SIZE)
"""The named starting boards, relative to the repository (or the Docker image's working folder)."""


def _square(p: Point) -> int:
    return p[1] * SIZE + p[0]


def square_name(sq: int) -> str:
    """Square index → 'C3'."""
    return point_name(sq % SIZE, sq // SIZE)


EDGE_SQUARES: tuple[tuple[int, int], ...] = tuple((_square(a), _square(b)) for a, b in SUPPORT.edge_points)
EDGE_NAMES: tuple[str, ...] = tuple(f"{square_name(a)}-{square_name(b)}" for a, b in EDGE_SQUARES)
EDGE_SWAP_MASK: tuple[int, ...] = tuple((1 << a) | (1 << b) for a, b in EDGE_SQUARES)
EDGE_OF: dict[tuple[int, int], int] = {}
for _e, (_a, _b) in enumerate(EDGE_SQUARES):
    EDGE_OF[_a, _b] = EDGE_OF[_b, _a] = _e
BOX_MASKS = SUPPORT.box_masks
EDGE_BOXES = SUPPORT.edge_boxes
BOX_NAMES: tuple[str, ...] = tuple(SUPPORT.box_name(b) for b in range(N_BOXES))
SWAP_MOVES: tuple[int, ...] = tuple(range(N_EDGES))


def has_line(mask: int) -> bool:
    """Whether a 16-bit square mask holds a full row or a full column (diagonals never count)."""
    rows = mask & (mask >> 1) & (mask >> 2) & (mask >> 3) & 0x1111
    cols = mask & (mask >> 4) & (mask >> 8) & (mask >> 12) & 0xF
    return bool(rows | cols)


def _lines(mask: int) -> list[str]:
    """Names of the full rows and columns of a mask ('row 1', 'column C')."""
    out = []
    for r in range(SIZE):
        if (mask >> (SIZE * r)) & 0xF == 0xF:
            out.append(f"row {r + 1}")
    for c in range(SIZE):
        if all(mask >> (r * SIZE + c) & 1 for r in range(SIZE)):
            out.append(f"column {point_name(c, 0)[:-1]}")
    return out


def parse_board(text: str) -> tuple[int, int]:
    """'R..B/..../..../B..R' → (red mask, blue mask); raises ValueError with a readable reason."""
    rows = [row.replace(" ", "") for row in text.strip().split("/")]
    if len(rows) != SIZE:
        raise ValueError(f"layout needs {SIZE} rows separated by '/', like R..B/..../..../B..R; got {len(rows)}")
    red = blue = 0
    for r, row in enumerate(rows):
        if len(row) != SIZE:
            raise ValueError(f"layout row {r + 1} ({row!r}) must have {SIZE} squares")
        for c, ch in enumerate(row.upper()):
            bit = 1 << (r * SIZE + c)
            if ch == "R":
                red |= bit
            elif ch == "B":
                blue |= bit
            elif ch != ".":
                raise ValueError(f"layout square {point_name(c, r)} is {ch!r}: use R (red), B (blue) or . (empty)")
    return red, blue


def board_text(red: int, blue: int) -> str:
    """(red mask, blue mask) → 'R..B/..../..../B..R'."""
    rows = []
    for r in range(SIZE):
        row = ""
        for c in range(SIZE):
            bit = 1 << (r * SIZE + c)
            row += "R" if red & bit else "B" if blue & bit else "."
        rows.append(row)
    return "/".join(rows)


@cache
def layout_presets() -> dict[str, str]:
    """Preset name → layout text, from the package's `data/pathing/layouts.json`."""
    from games.resources import pathing_layouts

    return {str(name).lower(): str(entry["layout"]) for name, entry in pathing_layouts().items()}


def resolve_layout(value: str) -> str:
    """A preset name (`corners`) or explicit rows (`R..B/..../..../B..R`) → the layout rows."""
    key = value.strip().lower()
    if "/" not in key:
        presets = layout_presets()
        if key in presets:
            return presets[key]
        known = ", ".join(sorted(presets)) or "none found"
        raise ValueError(
            f"no layout preset {value.strip()!r} (presets: {known}); or give 4 rows like R..B/..../..../B..R"
        )
    return value


class PathingOptions(GameOptions):
    """Ruleset variant, starting pathing board and the round limit."""

    ruleset: RulesetName = Field("dm5", description="dm5 (default) or original: who wins a double line")
    layout: str = Field(
        EMPTY_BOARD, description="starting pathing board: a preset name or 4 rows of R/B/. joined by '/'"
    )
    max_rounds: int | None = Field(
        None, ge=1, le=1000, description="no limit unless set; after that round more squares wins, equal draws"
    )

    @field_validator("max_rounds", mode="before")
    @classmethod
    def _no_limit(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() in ("", "none", "off"):
            return None
        return value

    @field_validator("ruleset", mode="before")
    @classmethod
    def _lower_ruleset(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("layout")
    @classmethod
    def _check_layout(cls, value: str) -> str:
        red, blue = parse_board(resolve_layout(value))
        for colour, mask in (("red", red), ("blue", blue)):
            lines = _lines(mask)
            if lines:
                raise ValueError(f"layout already has a {colour} line ({', '.join(lines)}); the match would be over")
        return board_text(red, blue)


@dataclass(frozen=True, slots=True)
class PathingState:
    """A position: both boards, the round's edges and boxes, phase, and the result once decided.

    `red`/`blue` are 16-bit square masks; `drawn` the round's filled edges, `red_edges` those filled
    by red (seat 1); `boxes_red`/`boxes_blue` 9-bit box masks. `turn` is the seat to act,
    `last_swapper` who made the latest swap (they start the next round). `winner` is 0 while the
    match goes on and for a draw; `reason` is None until the match is decided.
    """

    red: int
    blue: int
    drawn: int
    red_edges: int
    boxes_red: int
    boxes_blue: int
    turn: Seat
    phase: Phase
    round_no: int
    last_swapper: Seat
    winner: Seat
    reason: Termination | None
    ruleset: RulesetName
    max_rounds: int | None

    @property
    def finished(self) -> bool:
        """Whether the match is decided (`winner` stays 0 for a draw at the round limit)."""
        return self.reason is not None

    def colour_mask(self, seat: Seat) -> int:
        """Squares of the seat's colour."""
        return self.red if seat == 1 else self.blue

    def box_count(self, seat: Seat) -> int:
        """Boxes the seat holds this round."""
        return (self.boxes_red if seat == 1 else self.boxes_blue).bit_count()

    @property
    def round_winner(self) -> Seat:
        """During the penalty phase: the seat with more boxes in the finished round."""
        return 1 if self.boxes_red.bit_count() > self.boxes_blue.bit_count() else 2


_MOVE = re.compile(
    r"^\s*(?:(?P<kw>swap|pick)\b[\s:]*)?"
    r"(?P<a>[A-Za-z]{1,3}\s*\d{1,3})"
    r"(?:\s*(?:(?:[,\-–—&]|to|and|with)\s*)*(?P<b>[A-Za-z]{1,3}\s*\d{1,3}))?"
    r"\s*[.!]?\s*$",
    re.IGNORECASE,
)
_KEYWORD_START = re.compile(r"^\s*(swap|pick)\b", re.IGNORECASE)
_CHATTER = re.compile(r"[A-Za-z]{1,3}\s*\d{1,3}|[\s,\-–—&.!]+|\bto\b|\band\b|\bwith\b", re.IGNORECASE)


class PathingRuleset(Ruleset[PathingOptions, PathingState, tuple[Point, ...], int]):
    """Pathing Dots & Boxes: 4 in a row on the pathing board, Dots-and-Boxes on the support board."""

    id = "pathing"
    options_model = PathingOptions

    def default_clock(self, options: PathingOptions) -> ClockSpec:
        """dm5: 60 s per action + 300 s reserve; original: 120 s + 300 s."""
        move = 120 if options.ruleset == "original" else 60
        return ClockSpec(ClockKind.MOVE_RESERVE, move=move, reserve=300)

    # -- states --------------------------------------------------------------------
    def new_game(self, options: PathingOptions) -> PathingState:
        """The layout on the pathing board, an empty support board, round 1, red (seat 1) to swap."""
        red, blue = parse_board(options.layout)
        return PathingState(red, blue, 0, 0, 0, 0, 1, "move", 1, 1, 0, None, options.ruleset, options.max_rounds)

    def to_move(self, state: PathingState) -> Seat | None:
        """The seat to swap (or to pick during the penalty phase); None once decided."""
        return None if state.finished else state.turn

    def scores(self, state: PathingState) -> dict[Seat, int]:
        """Boxes of the current round (during the penalty phase: of the round just finished)."""
        return {1: state.boxes_red.bit_count(), 2: state.boxes_blue.bit_count()}

    def outcome(self, state: PathingState) -> Outcome | None:
        """The winner (None for a draw) and `four-in-a-row` / `round-limit` once decided."""
        if state.reason is None:
            return None
        return Outcome(state.winner or None, state.reason, self.scores(state))

    def rules_summary(self, options: PathingOptions) -> str | None:
        """The round limit, when the host set one (there is none by default)."""
        if options.max_rounds is None:
            return None
        rounds = "round" if options.max_rounds == 1 else f"{options.max_rounds} rounds"
        return (
            f"Round limit: the match stops after {rounds}, penalty pick included. If nobody has a line by "
            "then, the colour with more squares on the pathing board wins; equal numbers are a draw."
        )

    def extra(self, state: PathingState) -> dict[str, Any]:
        """Round number, pathing board and phase."""
        return {"round": state.round_no, "board": board_text(state.red, state.blue), "phase": state.phase}

    # -- notation ------------------------------------------------------------------
    def parse_syntax(self, text: str) -> tuple[Point, ...]:
        """Two squares for a swap (`Swap A4 and B4`, `A4-B4`), one for a penalty pick (`pick C3`)."""
        m = _MOVE.match(text) if len(text) <= 80 else None
        if not m:
            raise MoveSyntaxError(text, "write a swap as two squares like A4-B4, or a penalty pick like pick C3")
        kw = (m.group("kw") or "").lower()
        try:
            points = tuple(parse_point(g) for g in (m.group("a"), m.group("b")) if g)
        except ValueError:
            raise MoveSyntaxError(text, "rows are numbered from 1 (squares A1 to D4)") from None
        if kw == "swap" and len(points) != 2:
            raise MoveSyntaxError(text, "a swap names two squares, like Swap A4 and B4")
        if kw == "pick" and len(points) != 1:
            raise MoveSyntaxError(text, "a pick names one square, like pick C3")
        return points

    def validate(self, state: PathingState, parsed: tuple[Point, ...], seat: Seat) -> int:
        """The move int; explains off-board squares, wrong phase, non-neighbours, used edges, bad picks."""
        names = [point_name(*p) for p in parsed]
        text = "-".join(names) if len(parsed) == 2 else f"pick {names[0]}"
        for (c, r), name in zip(parsed, names, strict=True):
            if not (0 <= c < SIZE and 0 <= r < SIZE):
                raise IllegalMoveError(text, f"{name} is off the board (squares A1 to D4)")
        if len(parsed) == 2:
            return self._validate_swap(state, parsed, names, text)
        return self._validate_pick(state, _square(parsed[0]), names[0], text)

    def _validate_swap(self, state: PathingState, parsed: tuple[Point, ...], names: list[str], text: str) -> int:
        if state.phase == "penalty":
            raise IllegalMoveError(text, "the round is over; " + self._penalty_task(state, seat_word=False))
        a, b = _square(parsed[0]), _square(parsed[1])
        if a == b:
            raise IllegalMoveError(text, f"{names[0]} cannot be swapped with itself")
        edge = EDGE_OF.get((a, b))
        if edge is None:
            raise IllegalMoveError(text, f"{names[1]} is not next to {names[0]} (swaps are between neighbours)")
        if state.drawn >> edge & 1:
            raise IllegalMoveError(text, f"{EDGE_NAMES[edge]} was already swapped this round")
        return edge

    def _validate_pick(self, state: PathingState, sq: int, name: str, text: str) -> int:
        if state.phase == "move":
            raise IllegalMoveError(
                text, "a square is picked only after a round ends; now swap two neighbours, like A1-B1"
            )
        loser = state.turn
        bit = 1 << sq
        if (state.red | state.blue) != (1 << N_SQUARES) - 1:
            if (state.red | state.blue) & bit:
                raise IllegalMoveError(text, f"{name} is not empty: {self._penalty_task(state, seat_word=False)}")
        elif not state.colour_mask(loser) & bit:
            raise IllegalMoveError(text, f"{name} is not yours: {self._penalty_task(state, seat_word=False)}")
        return PICK + sq

    def turn_prompt(self, state: PathingState) -> str | None:
        """The round loser's penalty pick."""
        if state.phase == "penalty" and not state.finished:
            return self._penalty_task(state, seat_word=False)
        return None

    @staticmethod
    def _penalty_task(state: PathingState, seat_word: bool = True) -> str:
        """What the round loser must do now."""
        loser = state.turn
        who = f"seat {loser} ({COLOUR_NAME[loser]})" if seat_word else "the round loser"
        if (state.red | state.blue) != (1 << N_SQUARES) - 1:
            return f"{who} must pick an empty square to paint {COLOUR_NAME[3 - loser]}, like pick C3"
        if state.ruleset == "original":
            return f"the board is full, so {who} must pick one of their {COLOUR_NAME[loser]} squares to empty"
        return (
            f"the board is full, so {who} must pick one of their {COLOUR_NAME[loser]} squares "
            f"to turn {COLOUR_NAME[3 - loser]}"
        )

    def format(self, state: PathingState, move: int) -> str:
        """`A1-B1` (left or upper square first) for a swap, `pick C3` for a penalty pick."""
        if move < PICK:
            return EDGE_NAMES[move]
        return f"pick {square_name(move - PICK)}"

    def looks_like_move(self, text: str) -> bool:
        """Starts with swap/pick, or is little more than square names."""
        if len(text) > 60:
            return False
        if _KEYWORD_START.match(text):
            return True
        return bool(re.search(r"[A-Za-z]\s*\d", text)) and len(_CHATTER.sub("", text)) <= 3

    def move_hint(self) -> str:
        """How to write a move."""
        return (
            "swap two neighbouring squares, like A4-B4 or Swap A4 and B4; "
            "after a round the loser picks a square, like pick C3"
        )

    # -- rules ---------------------------------------------------------------------
    def legal_moves(self, state: PathingState) -> list[int]:
        """Unfilled edges in the move phase; the allowed squares in the penalty phase."""
        if state.finished:
            return []
        if state.phase == "move":
            drawn = state.drawn
            return [e for e in SWAP_MOVES if not drawn >> e & 1]
        coloured = state.red | state.blue
        if coloured != (1 << N_SQUARES) - 1:
            return [PICK + sq for sq in range(N_SQUARES) if not coloured >> sq & 1]
        own = state.colour_mask(state.turn)
        return [PICK + sq for sq in range(N_SQUARES) if own >> sq & 1]

    def apply(self, state: PathingState, move: int) -> tuple[PathingState, list[Event]]:
        """Play a swap or a penalty pick (validated moves only); see the rule card."""
        if move < PICK:
            return self._apply_swap(state, move)
        return self._apply_pick(state, move - PICK)

    def _decide(self, red: int, blue: int, actor: Seat, ruleset: RulesetName) -> Seat:
        """Winner after an action by `actor`, or 0 when neither colour has a line."""
        red_line, blue_line = has_line(red), has_line(blue)
        if red_line and blue_line:
            if ruleset == "original":
                nr, nb = red.bit_count(), blue.bit_count()
                if nr != nb:
                    return 1 if nr > nb else 2
            return actor
        return 1 if red_line else 2 if blue_line else 0

    def _apply_swap(self, state: PathingState, edge: int) -> tuple[PathingState, list[Event]]:
        seat = state.turn
        a, b = EDGE_SQUARES[edge]
        red, blue = state.red, state.blue
        if (red >> a ^ red >> b) & 1:
            red ^= EDGE_SWAP_MASK[edge]
        if (blue >> a ^ blue >> b) & 1:
            blue ^= EDGE_SWAP_MASK[edge]
        bit = 1 << edge
        drawn = state.drawn | bit
        red_edges = state.red_edges | bit if seat == 1 else state.red_edges
        events = [Event("move", {"seat": seat, "kind": "swap", "move": EDGE_NAMES[edge]})]
        gained = 0
        for box in EDGE_BOXES[edge]:
            if drawn & BOX_MASKS[box] == BOX_MASKS[box]:
                gained |= 1 << box
        boxes_red, boxes_blue = state.boxes_red, state.boxes_blue
        if gained:
            if seat == 1:
                boxes_red |= gained
            else:
                boxes_blue |= gained
            won = [BOX_NAMES[x] for x in range(N_BOXES) if gained >> x & 1]
            events.append(Event("boxes", {"seat": seat, "count": len(won), "boxes": won}))
        winner = self._decide(red, blue, seat, state.ruleset)
        phase: Phase = "move"
        turn = seat if gained else 3 - seat
        reason = None
        if winner:
            reason = Termination.FOUR_IN_A_ROW
        elif drawn == ALL_EDGES:
            phase = "penalty"
            round_winner = 1 if boxes_red.bit_count() > boxes_blue.bit_count() else 2
            turn = 3 - round_winner
        new = PathingState(
            red,
            blue,
            drawn,
            red_edges,
            boxes_red,
            boxes_blue,
            turn,
            phase,
            state.round_no,
            seat,
            winner,
            reason,
            state.ruleset,
            state.max_rounds,
        )
        if winner:
            events.append(self._game_over(new))
        elif phase == "penalty":
            events.append(
                Event(
                    "round_end",
                    {
                        "round": state.round_no,
                        "winner": 3 - turn,
                        "scores": self.scores(new),
                        "picker": turn,
                        "task": self._penalty_task(new),
                        "next": seat,
                    },
                )
            )
        elif gained:
            events.append(Event("extra_turn", {"seat": seat}))
        return new, events

    def _apply_pick(self, state: PathingState, sq: int) -> tuple[PathingState, list[Event]]:
        loser = state.turn
        round_winner = 3 - loser
        bit = 1 << sq
        red, blue = state.red, state.blue
        if (red | blue) & bit and state.ruleset == "original":
            action, colour = "empty", COLOUR_NAME[loser]
            red &= ~bit
            blue &= ~bit
        elif (red | blue) & bit:
            action, colour = "turn", COLOUR_NAME[round_winner]
            red ^= bit
            blue ^= bit
        else:
            action, colour = "paint", COLOUR_NAME[round_winner]
            if round_winner == 1:
                red |= bit
            else:
                blue |= bit
        events = [
            Event("move", {"seat": loser, "kind": "pick", "move": f"pick {square_name(sq)}"}),
            Event("penalty", {"seat": loser, "square": square_name(sq), "action": action, "colour": colour}),
        ]
        winner = self._decide(red, blue, loser, state.ruleset)
        reason = Termination.FOUR_IN_A_ROW if winner else None
        if not winner and state.max_rounds is not None and state.round_no >= state.max_rounds:
            winner, reason = self._round_limit_winner(red, blue), Termination.ROUND_LIMIT
        if reason is not None:
            new = PathingState(
                red,
                blue,
                state.drawn,
                state.red_edges,
                state.boxes_red,
                state.boxes_blue,
                loser,
                "penalty",
                state.round_no,
                state.last_swapper,
                winner,
                reason,
                state.ruleset,
                state.max_rounds,
            )
            events.append(self._game_over(new))
            return new, events
        starter = state.last_swapper
        new = PathingState(
            red,
            blue,
            0,
            0,
            0,
            0,
            starter,
            "move",
            state.round_no + 1,
            starter,
            0,
            None,
            state.ruleset,
            state.max_rounds,
        )
        events.append(Event("round_start", {"round": new.round_no, "seat": starter}))
        return new, events

    @staticmethod
    def _round_limit_winner(red: int, blue: int) -> Seat:
        """After the last allowed round: more squares of one's colour wins; equal → 0, a draw."""
        nr, nb = red.bit_count(), blue.bit_count()
        if nr == nb:
            return 0
        return 1 if nr > nb else 2

    def _game_over(self, state: PathingState) -> Event:
        data: dict[str, Any] = {"winner": state.winner or None, "reason": state.reason, "scores": self.scores(state)}
        if state.reason is Termination.FOUR_IN_A_ROW:
            data["lines"] = _lines(state.colour_mask(state.winner))
        return Event("game_over", data)

    # -- storage and display -------------------------------------------------------
    def state_to_json(self, state: PathingState) -> dict[str, Any]:
        """Board text, edges and boxes by owner seat, phase, turns and result."""
        return {
            "ruleset": state.ruleset,
            "max_rounds": state.max_rounds,
            "board": board_text(state.red, state.blue),
            "edges": {
                EDGE_NAMES[e]: 1 if state.red_edges >> e & 1 else 2 for e in range(N_EDGES) if state.drawn >> e & 1
            },
            "boxes": {
                BOX_NAMES[x]: 1 if state.boxes_red >> x & 1 else 2
                for x in range(N_BOXES)
                if (state.boxes_red | state.boxes_blue) >> x & 1
            },
            "turn": state.turn,
            "phase": state.phase,
            "round": state.round_no,
            "last_swapper": state.last_swapper,
            "winner": state.winner,
            "reason": "" if state.reason is None else state.reason.value,
        }

    def state_from_json(self, data: Mapping[str, Any]) -> PathingState:
        """Inverse of `state_to_json`."""
        red, blue = parse_board(str(data["board"]))
        names = {name: e for e, name in enumerate(EDGE_NAMES)}
        drawn = red_edges = 0
        for name, seat in dict(data["edges"]).items():
            if name not in names or seat not in (1, 2):
                raise ValueError(f"bad edge {name!r}: {seat!r} in stored state")
            drawn |= 1 << names[name]
            if seat == 1:
                red_edges |= 1 << names[name]
        boxes = {name: x for x, name in enumerate(BOX_NAMES)}
        boxes_red = boxes_blue = 0
        for name, seat in dict(data["boxes"]).items():
            if name not in boxes or seat not in (1, 2):
                raise ValueError(f"bad box {name!r}: {seat!r} in stored state")
            if seat == 1:
                boxes_red |= 1 << boxes[name]
            else:
                boxes_blue |= 1 << boxes[name]
        phase = data["phase"]
        ruleset = data["ruleset"]
        if phase not in ("move", "penalty") or ruleset not in ("dm5", "original"):
            raise ValueError("bad phase or ruleset in stored state")
        return PathingState(
            red,
            blue,
            drawn,
            red_edges,
            boxes_red,
            boxes_blue,
            int(data["turn"]),
            phase,
            int(data["round"]),
            int(data["last_swapper"]),
            int(data["winner"]),
            _stored_reason(data.get("reason")),
            ruleset,
            None if data.get("max_rounds") is None else int(data["max_rounds"]),
        )

    def render_text(self, state: PathingState) -> str:
        """Pathing board (R/B/.) beside the support board (edges r/b by who filled them, boxes R/B); `LEGEND`
        under it."""
        gap = " " * 6
        left_w = 3 + 2 * SIZE - 1
        lines = [
            "Pathing".ljust(left_w) + gap + "Support",
            column_header(SIZE).ljust(left_w) + gap + column_header(SIZE, cell=4),
        ]
        for r in range(SIZE):
            cells = []
            for c in range(SIZE):
                bit = 1 << (r * SIZE + c)
                cells.append("R" if state.red & bit else "B" if state.blue & bit else ".")
            left = f"{r + 1:>2} " + " ".join(cells)
            right = f"{r + 1:>2} "
            for c in range(SIZE):
                right += "o"
                if c < SIZE - 1:
                    right += self._edge_mark(state, r * (SIZE - 1) + c, "-{}-", "   ")
            lines.append((left + gap + right).rstrip())
            if r < SIZE - 1:
                right = "   "
                for c in range(SIZE):
                    right += self._edge_mark(state, SUPPORT.n_h + r * SIZE + c, "{}", " ")
                    if c < SIZE - 1:
                        box = 1 << (r * (SIZE - 1) + c)
                        owner = "R" if state.boxes_red & box else "B" if state.boxes_blue & box else " "
                        right += f" {owner} "
                lines.append((" " * left_w + gap + right).rstrip())
        s = self.scores(state)
        lines.append(f"round {state.round_no}; boxes: red (seat 1) {s[1]}, blue (seat 2) {s[2]}")
        lines.append(self._status(state))
        lines.extend(LEGEND)
        return "\n".join(lines)

    @staticmethod
    def _edge_mark(state: PathingState, edge: int, filled: str, empty: str) -> str:
        if not state.drawn >> edge & 1:
            return empty
        return filled.format("r" if state.red_edges >> edge & 1 else "b")

    def _status(self, state: PathingState) -> str:
        if state.reason is Termination.FOUR_IN_A_ROW:
            return f"game over: seat {state.winner} ({COLOUR_NAME[state.winner]}) wins, four in a row"
        if state.reason is Termination.ROUND_LIMIT:
            if not state.winner:
                return f"game over: a draw after the {state.max_rounds}-round limit, equal squares"
            return (
                f"game over: seat {state.winner} ({COLOUR_NAME[state.winner]}) wins on squares "
                f"after the {state.max_rounds}-round limit"
            )
        if state.phase == "penalty":
            return f"round won by {COLOUR_NAME[3 - state.turn]}; {self._penalty_task(state)}"
        return f"seat {state.turn} ({COLOUR_NAME[state.turn]}) to swap"


LEGEND = (
    "Pathing: R red and B blue squares, . an empty square.",
    "Support: o dots, -r- | r lines drawn by red, -b- | b by blue, R / B a box closed by red / blue.",
)
"""The text board's key, under the status line."""


def _stored_reason(value: Any) -> Termination | None:
    """A stored reason; `line` is how states written before the contract's names said four-in-a-row."""
    if not value:
        return None
    return Termination.FOUR_IN_A_ROW if value == "line" else Termination(value)


RULESET = PathingRuleset()
