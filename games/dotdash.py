"""Dot Dash (`dotdash`), designed by Phil Leduc: slide a stone, drop two behind it, race for five-rows.

Points are bit indices of a padded board: point (col, row) is bit `row * (size + 1) + col`, so every
row ends with one always-empty guard column and whole-board shifts never wrap from one row into the
next. Each colour is one int bitmask; sliding, five-row counting and frozen stones are all a handful
of shifts and ands over those masks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, NamedTuple

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
from games.coords import column_header, letters_to_col, point_name

RED, BLUE = 0, 1
COLOURS = ("red", "blue")
Colour = int
"""0 is red, 1 is blue."""

Phase = Literal["setup", "choose", "move"]
Variant = Literal["standard", "frozen", "sacrificial"]
"""A (col, row) pair, 0-based, as parsed from text."""


class DotDashOptions(GameOptions):
    """Board size, rules variant and stones per colour."""

    size: int = Field(13, ge=7, le=19, description="points per side")
    variant: Variant = Field("standard", description="standard, frozen or sacrificial")
    stones: int = Field(60, ge=3, le=400, description="stones per colour")


# -- moves ---------------------------------------------------------------------------


class Slide(NamedTuple):
    """Move the stone on `src` to `dst` (bit indices of the padded board)."""

    src: int
    dst: int


class Setup(NamedTuple):
    """The opening placement: red and blue points (bit indices, ascending)."""

    red: tuple[int, ...]
    blue: tuple[int, ...]


class Take(NamedTuple):
    """Seat 2 chooses the colour it will play."""

    colour: Colour


Move = Slide | Setup | Take


class ParsedSlide(NamedTuple):
    """Two points read from text, not yet checked against a board."""

    src: Point
    dst: Point


class ParsedSetup(NamedTuple):
    """Colour groups read from text: ((colour, points), ...)."""

    groups: tuple[tuple[Colour, tuple[Point, ...]], ...]


Parsed = ParsedSlide | ParsedSetup | Take


# -- geometry ------------------------------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    """Precomputed masks and tables of one board size."""

    size: int
    width: int
    on: int
    """Every real point of the board."""
    slides: tuple[int, ...]
    """The eight signed bit steps (E, W, S, N, SE, NW, SW, NE)."""
    lines: tuple[tuple[int, int, int, int, int, int], ...]
    """Per line direction (E, S, SE, SW): steps s, 2s, 4s, 8s, 12s and s again for convenience."""
    names: tuple[str, ...]
    """Bit index → point name (empty for guard bits)."""

    def index(self, point: Point) -> int | None:
        """Bit index of a (col, row) point, None when it is off the board."""
        col, row = point
        if 0 <= col < self.size and 0 <= row < self.size:
            return row * self.width + col
        return None

    def colrow(self, index: int) -> Point:
        """(col, row) of a bit index."""
        row, col = divmod(index, self.width)
        return col, row

    def last_point(self) -> str:
        """Name of the bottom-right point."""
        return point_name(self.size - 1, self.size - 1)


@cache
def geometry(size: int) -> Geometry:
    """Tables for a size×size board (cached)."""
    width = size + 1
    on = 0
    names = [""] * (size * width)
    for row in range(size):
        for col in range(size):
            on |= 1 << (row * width + col)
            names[row * width + col] = point_name(col, row)
    slides = (1, -1, width, -width, width + 1, -width - 1, width - 1, -(width - 1))
    lines = tuple((s, 2 * s, 4 * s, 8 * s, 12 * s, s) for s in (1, width, width + 1, width - 1))
    return Geometry(size, width, on, slides, lines, tuple(names))


def count_fives(stones: int, geo: Geometry) -> int:
    """Five-rows of one colour: a maximal run of L stones counts (L - 1) // 4, over all four directions."""
    total = 0
    for s, s2, s4, s8, s12, _ in geo.lines:
        pairs = stones & (stones >> s)
        if not pairs:
            continue
        fours = pairs & (pairs >> s2)
        if not fours:
            continue
        fives = fours & (stones >> s4)  # p .. p+4s all stones
        if not fives:
            continue
        starts = stones & ~(stones << s)  # first stone of each run
        hits = starts & fives
        if not hits:
            continue
        total += hits.bit_count()
        # A run also counts once more for every further 4 stones: windows of 9, 13, 17.
        window = fives
        for shift in (s4, s8, s12):
            window &= fives >> shift
            hits = starts & window
            if not hits:
                break
            total += hits.bit_count()
    return total


def in_fives(stones: int, geo: Geometry) -> int:
    """The stones of one colour that lie in a run of five or more (any direction)."""
    cover = 0
    for s, s2, s4, _, _, _ in geo.lines:
        fours = stones & (stones >> s)
        fours &= fours >> s2
        fives = fours & (stones >> s4)
        if fives:
            cover |= fives | (fives << s) | (fives << s2) | (fives << (s2 + s)) | (fives << s4)
    return cover


def _bits(mask: int) -> Iterator[int]:
    """Indices of the set bits, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# -- state ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DotDashState:
    """A position: both colours' stones, phase, who plays red, whose turn, and the result if over."""

    size: int
    variant: Variant
    stones: int
    board: tuple[int, int]
    """Bitmasks of the red and the blue stones."""
    fives: tuple[int, int]
    """Five-rows of red and of blue (derived from `board`, kept for speed)."""
    phase: Phase
    red_seat: Seat
    """The seat playing red (seat 1 until seat 2 takes red)."""
    turn: Seat
    winner: Seat | None = None
    reason: str | None = None

    @property
    def geo(self) -> Geometry:
        """The board's tables."""
        return geometry(self.size)

    @property
    def finished(self) -> bool:
        """Whether the game is over."""
        return self.reason is not None

    def seat_of(self, colour: Colour) -> Seat:
        """The seat playing `colour`."""
        return self.red_seat if colour == RED else 3 - self.red_seat

    def colour_of(self, seat: Seat) -> Colour:
        """The colour `seat` plays."""
        return RED if seat == self.red_seat else BLUE

    def reserve(self, colour: Colour) -> int:
        """Stones of `colour` not on the board."""
        return self.stones - self.board[colour].bit_count()


def can_slide(state: DotDashState, colour: Colour) -> bool:
    """Whether `colour` has a legal slide (reserve not considered)."""
    geo = state.geo
    own = state.board[colour]
    empty = geo.on & ~(own | state.board[1 - colour])
    if state.variant == "frozen":
        own &= ~in_fives(own, geo)
    land = empty | state.board[1 - colour] if state.variant == "sacrificial" else empty
    for s in geo.slides:
        # A slide of 3 exists whenever any longer one does, so one step past two empties suffices.
        if s > 0:
            if (((((own << s) & empty) << s) & empty) << s) & land:
                return True
        elif (((((own >> -s) & empty) >> -s) & empty) >> -s) & land:
            return True
    return False


_TAKE = re.compile(r"^\s*(?:take|choose|pick|play)\s+(red|blue)\s*[.!]?\s*$", re.IGNORECASE)
_SETUP_WORD = re.compile(r"^\s*set\s*-?\s*up\b\s*:?", re.IGNORECASE)
_SETUP_TOKEN = re.compile(
    r"\s*(?:(?P<colour>red|blue)\b|(?P<point>[A-Za-z]{1,3}\s*\d{1,3})(?![0-9])|(?P<sep>,|;|:|\band\b)|(?P<bad>\S+))",
    re.IGNORECASE,
)
_POINT_RE = re.compile(r"^\s*([A-Za-z]{1,3})\s*(\d{1,3})\s*$")
_SLIDE = re.compile(
    r"^\s*(?:move\s+)?([A-Za-z]{1,3}\s*\d{1,3})\s*(?:-+>?|–|—|→|>|,|\bto\b|\band\b|\s)\s*([A-Za-z]{1,3}\s*\d{1,3})\s*[.!]?\s*$",
    re.IGNORECASE,
)
_HINT = "slide a stone like F7-I10; to open, setup red F7 blue E5 G5; to choose a colour, take red"


def _point(text: str) -> Point:
    """'F7' → (5, 6), lenient about case and inner spaces; row 0 becomes -1 (off the board, not a typo)."""
    m = _POINT_RE.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a point like F7")
    return letters_to_col(m.group(1)), int(m.group(2)) - 1


class DotDashRuleset(Ruleset[DotDashOptions, DotDashState, Parsed, Move]):
    """Dot Dash with the pie-rule opening and the standard, frozen and sacrificial variants."""

    id = "dotdash"
    options_model = DotDashOptions

    def default_clock(self, options: DotDashOptions) -> ClockSpec:
        """60 s per move plus 300 s reserve."""
        return ClockSpec(ClockKind.MOVE_RESERVE, move=60, reserve=300)

    def turn_prompt(self, state: DotDashState) -> str | None:
        """The opening steps: the setup, then the colour choice."""
        if state.phase == "setup":
            return "place one stone of one colour and two of the other, like `setup red F7 blue E5 G5`"
        if state.phase == "choose":
            return "choose your colour with `take red` or `take blue` (the colour with one stone moves first)"
        return None

    def choices(self, state: DotDashState) -> dict[str, str]:
        """The colour choice."""
        return {"red": "take red", "blue": "take blue"} if state.phase == "choose" else {}

    # -- state ---------------------------------------------------------------------
    def new_game(self, options: DotDashOptions) -> DotDashState:
        """An empty board; seat 1 places the opening stones."""
        return DotDashState(options.size, options.variant, options.stones, (0, 0), (0, 0), "setup", 1, 1, None, None)

    def to_move(self, state: DotDashState) -> Seat | None:
        """The seat to act, None once the game is over."""
        return None if state.reason is not None else state.turn

    def outcome(self, state: DotDashState) -> Outcome | None:
        """Winner and reason (`five-rows`, `no-moves` or `shift`) once over."""
        if state.reason is None:
            return None
        return Outcome(state.winner, Termination(state.reason), self.scores(state))

    def scores(self, state: DotDashState) -> dict[Seat, int]:
        """Five-rows on the board per seat."""
        return {seat: state.fives[state.colour_of(seat)] for seat in (1, 2)}

    def extra(self, state: DotDashState) -> dict[str, Any]:
        """Reserves per seat and the phase."""
        return {
            "reserve": {str(seat): state.reserve(state.colour_of(seat)) for seat in (1, 2)},
            "phase": state.phase,
        }

    # -- reading moves ---------------------------------------------------------------
    def parse_syntax(self, text: str) -> Parsed:
        """`F7-I10` / `move F7 to I10`, `setup red F7 blue E5 G5`, `take red`."""
        if len(text) > 120:
            raise MoveSyntaxError(text, _HINT)
        m = _TAKE.match(text)
        if m:
            return Take(COLOURS.index(m.group(1).lower()))
        m = _SLIDE.match(text)
        if m:
            return ParsedSlide(_point(m.group(1)), _point(m.group(2)))
        setup = _SETUP_WORD.match(text)
        body = text[setup.end() :] if setup else text
        if setup or re.match(r"^\s*(red|blue)\b", body, re.IGNORECASE):
            return self._parse_setup(text, body)
        raise MoveSyntaxError(text, _HINT)

    @staticmethod
    def _parse_setup(text: str, body: str) -> ParsedSetup:
        groups: list[tuple[Colour, list[Point]]] = []
        pos = 0
        body = body.rstrip(" .!")
        while pos < len(body):
            m = _SETUP_TOKEN.match(body, pos)
            if not m or m.end() == pos:
                break
            pos = m.end()
            if m.group("colour"):
                groups.append((COLOURS.index(m.group("colour").lower()), []))
            elif m.group("point"):
                if not groups:
                    raise MoveSyntaxError(text, "name a colour before its points: setup red F7 blue E5 G5")
                groups[-1][1].append(_point(m.group("point")))
            elif m.group("bad"):
                raise MoveSyntaxError(text, "a setup looks like: setup red F7 blue E5 G5")
        if not groups or any(not pts for _, pts in groups):
            raise MoveSyntaxError(text, "a setup looks like: setup red F7 blue E5 G5")
        return ParsedSetup(tuple((c, tuple(pts)) for c, pts in groups))

    def validate(self, state: DotDashState, parsed: Parsed, seat: Seat) -> Move:
        """Check the move against the phase and the position; errors say what is wrong."""
        if isinstance(parsed, Take):
            return self._validate_take(state, parsed)
        if isinstance(parsed, ParsedSetup):
            return self._validate_setup(state, parsed)
        return self._validate_slide(state, parsed, seat)

    def _validate_take(self, state: DotDashState, take: Take) -> Take:
        text = f"take {COLOURS[take.colour]}"
        if state.phase == "setup":
            raise IllegalMoveError(text, "there is nothing to choose yet: seat 1 places the opening stones first")
        if state.phase == "move":
            raise IllegalMoveError(text, "the colours are already chosen")
        return take

    def _validate_setup(self, state: DotDashState, parsed: ParsedSetup) -> Setup:
        text = "setup " + " ".join(COLOURS[c] + " " + " ".join(point_name(*p) for p in pts) for c, pts in parsed.groups)
        if state.phase != "setup":
            raise IllegalMoveError(text, "the opening stones are already placed")
        colours = [c for c, _ in parsed.groups]
        if sorted(colours) != [RED, BLUE]:
            raise IllegalMoveError(text, "name each colour once: setup red F7 blue E5 G5")
        geo = state.geo
        found: dict[Colour, list[int]] = {RED: [], BLUE: []}
        seen: set[int] = set()
        for colour, pts in parsed.groups:
            for p in pts:
                index = geo.index(p)
                if index is None:
                    raise IllegalMoveError(text, self._off_board(p, geo))
                if index in seen:
                    raise IllegalMoveError(text, f"{point_name(*p)} is named twice")
                seen.add(index)
                found[colour].append(index)
        if sorted((len(found[RED]), len(found[BLUE]))) != [1, 2]:
            raise IllegalMoveError(text, "place one stone of one colour and two of the other")
        for colour in (RED, BLUE):
            if len(found[colour]) > state.stones:
                stones = f"{state.stones} stone{'s' if state.stones != 1 else ''}"
                raise IllegalMoveError(text, f"{COLOURS[colour]} has only {stones}")
        return Setup(tuple(sorted(found[RED])), tuple(sorted(found[BLUE])))

    @staticmethod
    def _off_board(p: Point, geo: Geometry) -> str:
        return f"{point_name(*p)} is off the board (A1 to {geo.last_point()})"

    def _validate_slide(self, state: DotDashState, parsed: ParsedSlide, seat: Seat) -> Slide:
        geo = state.geo
        a, b = parsed
        text = f"{point_name(*a)}-{point_name(*b)}"
        if state.phase == "setup":
            raise IllegalMoveError(
                text, "the game has not started: seat 1 first places stones, like setup red F7 blue E5 G5"
            )
        if state.phase == "choose":
            raise IllegalMoveError(text, "seat 2 must first choose a colour: take red or take blue")
        src, dst = geo.index(a), geo.index(b)
        for p, index in ((a, src), (b, dst)):
            if index is None:
                raise IllegalMoveError(text, self._off_board(p, geo))
        assert src is not None and dst is not None
        text = f"{geo.names[src]}-{geo.names[dst]}"
        colour = state.colour_of(seat)
        own, other = state.board[colour], state.board[1 - colour]
        if not own >> src & 1:
            what = "empty" if not other >> src & 1 else f"a {COLOURS[1 - colour]} stone"
            raise IllegalMoveError(text, f"{geo.names[src]} is {what}; you play {COLOURS[colour]}")
        dc, dr = b[0] - a[0], b[1] - a[1]
        if dc == dr == 0:
            raise IllegalMoveError(text, "a stone must move to another point")
        if dc and dr and abs(dc) != abs(dr):
            raise IllegalMoveError(text, f"{text} is not a straight line (orthogonal or diagonal)")
        steps = max(abs(dc), abs(dr))
        if steps < 3:
            raise IllegalMoveError(text, f"{text} moves {steps} point{'s' * (steps > 1)}; a slide goes at least 3")
        if state.variant == "frozen" and in_fives(own, geo) >> src & 1:
            raise IllegalMoveError(text, f"{geo.names[src]} lies in a five-row and is frozen")
        step = (dst - src) // steps
        for i in range(1, steps):
            passed = src + i * step
            if (own | other) >> passed & 1:
                raise IllegalMoveError(text, f"{geo.names[passed]} is in the way: a slide cannot pass over stones")
        if own >> dst & 1:
            raise IllegalMoveError(text, f"{geo.names[dst]} holds your own stone")
        if other >> dst & 1 and state.variant != "sacrificial":
            raise IllegalMoveError(text, f"{geo.names[dst]} is occupied")
        if state.reserve(colour) < 2:
            raise IllegalMoveError(text, "you need 2 stones in reserve to move")
        return Slide(src, dst)

    def format(self, state: DotDashState, move: Move) -> str:
        """`F7-I10`, `setup red F7 blue E5 G5` (single stone first), `take red`."""
        names = state.geo.names
        if isinstance(move, Slide):
            return f"{names[move.src]}-{names[move.dst]}"
        if isinstance(move, Take):
            return f"take {COLOURS[move.colour]}"
        groups = sorted(((RED, move.red), (BLUE, move.blue)), key=lambda g: len(g[1]))
        return "setup " + " ".join(COLOURS[c] + " " + " ".join(names[p] for p in pts) for c, pts in groups)

    def legal_moves(self, state: DotDashState) -> list[Move]:
        """Every legal slide, or both colour choices; in the setup phase a fixed sample (see below).

        The opening placement has millions of choices (4.7 million on 13×13), so the setup phase
        lists only the placements inside the central 3×3 block; `validate` accepts any placement.
        """
        if state.reason is not None:
            return []
        if state.phase == "choose":
            return [Take(RED), Take(BLUE)]
        if state.phase == "setup":
            return list(self._sample_setups(state))
        return list(self.slides(state))

    def _sample_setups(self, state: DotDashState) -> Iterator[Setup]:
        geo = state.geo
        mid = state.size // 2
        block = [(mid + dr) * geo.width + mid + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
        for single in block:
            for i, p in enumerate(block):
                for q in block[i + 1 :]:
                    if single not in (p, q):
                        yield Setup((single,), (p, q))
                        yield Setup((p, q), (single,))

    def slides(self, state: DotDashState) -> list[Slide]:
        """Every legal slide of the colour to move (shifting slides included)."""
        colour = state.colour_of(state.turn)
        if state.reserve(colour) < 2:
            return []
        geo = state.geo
        own, other = state.board[colour], state.board[1 - colour]
        empty = geo.on & ~(own | other)
        if state.variant == "frozen":
            own &= ~in_fives(own, geo)
        land = empty | other if state.variant == "sacrificial" else empty
        out: list[Slide] = []
        append = out.append
        for s in geo.slides:
            if s > 0:
                reach = (((own << s) & empty) << s) & empty
                back = 3 * s
                while reach:
                    nxt = reach << s
                    hits = nxt & land
                    while hits:
                        low = hits & -hits
                        p = low.bit_length() - 1
                        append(Slide(p - back, p))
                        hits ^= low
                    reach = nxt & empty
                    back += s
            else:
                r = -s
                reach = (((own >> r) & empty) >> r) & empty
                back = 3 * r
                while reach:
                    nxt = reach >> r
                    hits = nxt & land
                    while hits:
                        low = hits & -hits
                        p = low.bit_length() - 1
                        append(Slide(p + back, p))
                        hits ^= low
                    reach = nxt & empty
                    back += r
        return out

    # -- playing -----------------------------------------------------------------------
    def _slide_boards(self, state: DotDashState, move: Slide) -> tuple[tuple[int, int], list[int], bool]:
        """Boards after a slide, the two placed points and whether an enemy stone was sacrificed."""
        geo = state.geo
        src, dst = move
        colour = state.colour_of(state.turn)
        (sc, sr), (dc, dr) = geo.colrow(src), geo.colrow(dst)
        steps = max(abs(dc - sc), abs(dr - sr))
        step = (dst - src) // steps
        placed = [dst - step, dst - 2 * step]
        own, other = state.board[colour], state.board[1 - colour]
        own &= ~(1 << src)
        own |= (1 << placed[0]) | (1 << placed[1])
        captured = bool(other >> dst & 1)
        if captured:
            other &= ~(1 << dst)
        else:
            own |= 1 << dst
        board = (own, other) if colour == RED else (other, own)
        return board, placed, captured

    def loses_by_shifting(self, state: DotDashState, move: Move) -> bool:
        """Whether playing `move` lowers the mover's five-rows (so it loses at once): ask to confirm."""
        if not isinstance(move, Slide) or state.phase != "move" or state.reason is not None:
            return False
        colour = state.colour_of(state.turn)
        board, _, _ = self._slide_boards(state, move)
        return count_fives(board[colour], state.geo) < state.fives[colour]

    def apply(self, state: DotDashState, move: Move) -> tuple[DotDashState, list[Event]]:
        """Play a legal move; the new state already knows whether the next turn wins or loses."""
        seat = state.turn
        text = self.format(state, move)
        if isinstance(move, Setup):
            board = (sum(1 << p for p in move.red), sum(1 << p for p in move.blue))
            new = DotDashState(state.size, state.variant, state.stones, board, (0, 0), "choose", 1, 2, None, None)
            return new, [Event("move", {"seat": seat, "move": text})]
        if isinstance(move, Take):
            red_seat = 2 if move.colour == RED else 1
            first = RED if state.board[RED].bit_count() == 1 else BLUE
            first_seat = red_seat if first == RED else 3 - red_seat
            events = [
                Event("move", {"seat": seat, "move": text}),
                Event("colours", {"red": red_seat, "blue": 3 - red_seat, "first": first_seat}),
            ]
            base = DotDashState(
                state.size,
                state.variant,
                state.stones,
                state.board,
                state.fives,
                "move",
                red_seat,
                first_seat,
            )
            return self._start_turn(base, None, events)
        colour = state.colour_of(seat)
        board, placed, captured = self._slide_boards(state, move)
        geo = state.geo
        fives = (count_fives(board[RED], geo), count_fives(board[BLUE], geo))
        data: dict[str, Any] = {
            "seat": seat,
            "colour": COLOURS[colour],
            "move": text,
            "placed": [geo.names[p] for p in placed],
        }
        if captured:
            data["sacrificed"] = geo.names[move.dst]
        events = [Event("move", data)]
        if fives != state.fives:
            events.append(Event("five_rows", {str(state.seat_of(c)): fives[c] for c in (RED, BLUE)}))
        base = DotDashState(state.size, state.variant, state.stones, board, fives, "move", state.red_seat, 3 - seat)
        shifted = fives[colour] < state.fives[colour]
        return self._start_turn(base, colour if shifted else None, events)

    def _start_turn(
        self, state: DotDashState, shifted: Colour | None, events: list[Event]
    ) -> tuple[DotDashState, list[Event]]:
        """Settle the start of `state.turn`'s turn: a shift loses, a lead wins, no move loses."""
        starting = state.colour_of(state.turn)
        winner: Seat | None = None
        reason = None
        if shifted is not None:
            winner, reason = state.seat_of(1 - shifted), "shift"
        elif state.fives[starting] > state.fives[1 - starting]:
            winner, reason = state.turn, "five-rows"
        elif state.reserve(starting) < 2 or not can_slide(state, starting):
            winner, reason = 3 - state.turn, "no-moves"
        if reason is None:
            return state, events
        done = DotDashState(
            state.size,
            state.variant,
            state.stones,
            state.board,
            state.fives,
            state.phase,
            state.red_seat,
            state.turn,
            winner,
            reason,
        )
        events.append(Event("game_over", {"winner": winner, "reason": reason, "scores": self.scores(done)}))
        return done, events

    # -- hints -------------------------------------------------------------------------
    def move_hint(self) -> str:
        """How to write a move."""
        return _HINT

    def looks_like_move(self, text: str) -> bool:
        """Points, or the words setup/take with a colour."""
        if len(text) > 120:
            return False
        if re.match(r"^\s*(set\s*-?\s*up|take|choose|pick)\b", text, re.IGNORECASE):
            return True
        return super().looks_like_move(text)

    # -- storage and display -------------------------------------------------------------
    def state_to_json(self, state: DotDashState) -> dict[str, Any]:
        """Options, stones by point name, phase, seats and result."""
        names = state.geo.names
        return {
            "size": state.size,
            "variant": state.variant,
            "stones": state.stones,
            "red": [names[p] for p in _bits(state.board[RED])],
            "blue": [names[p] for p in _bits(state.board[BLUE])],
            "phase": state.phase,
            "red_seat": state.red_seat,
            "turn": state.turn,
            "winner": state.winner,
            "reason": state.reason,
        }

    def state_from_json(self, data: Mapping[str, Any]) -> DotDashState:
        """Inverse of `state_to_json`."""
        opts = self.parse_options({k: data[k] for k in ("size", "variant", "stones")})
        geo = geometry(opts.size)
        board = [0, 0]
        for colour in (RED, BLUE):
            for name in data[COLOURS[colour]]:
                index = geo.index(_point(name))
                if index is None:
                    raise ValueError(f"stored stone {name!r} is off a {opts.size}x{opts.size} board")
                board[colour] |= 1 << index
        if board[RED] & board[BLUE]:
            raise ValueError("stored state has a point holding both colours")
        phase = data["phase"]
        if phase not in ("setup", "choose", "move"):
            raise ValueError(f"bad phase {phase!r} in stored state")
        winner = data.get("winner")
        return DotDashState(
            opts.size,
            opts.variant,
            opts.stones,
            (board[RED], board[BLUE]),
            (count_fives(board[RED], geo), count_fives(board[BLUE], geo)),
            phase,
            int(data["red_seat"]),
            int(data["turn"]),
            None if winner is None else int(winner),
            data.get("reason"),
        )

    def diagram_state(
        self,
        diagram: str,
        *,
        turn: str = "red",
        variant: Variant = "standard",
        stones: int = 60,
        red_seat: Seat = 1,
    ) -> DotDashState:
        """A move-phase position from rows of `.`, `r`, `b` (for tests and analysis; not checked for a win).

        Rows are read top to bottom; spaces are ignored; the board is square. `turn` names the
        colour to move.
        """
        rows = [line.replace(" ", "") for line in diagram.strip().splitlines() if line.strip()]
        size = len(rows)
        if any(len(r) != size for r in rows):
            raise ValueError("a diagram must be square")
        geo = geometry(size)
        board = [0, 0]
        for row, line in enumerate(rows):
            for col, ch in enumerate(line.lower()):
                if ch in "rb":
                    board[RED if ch == "r" else BLUE] |= 1 << (row * geo.width + col)
                elif ch != ".":
                    raise ValueError(f"unknown diagram character {ch!r}")
        colour = COLOURS.index(turn)
        seat = red_seat if colour == RED else 3 - red_seat
        return DotDashState(
            size,
            variant,
            stones,
            (board[RED], board[BLUE]),
            (count_fives(board[RED], geo), count_fives(board[BLUE], geo)),
            "move",
            red_seat,
            seat,
        )

    def render_text(self, state: DotDashState) -> str:
        """The board: `r`/`b` stones, capitals for stones in a five-row, `.` empty; then the figures."""
        geo = state.geo
        lit = (in_fives(state.board[RED], geo), in_fives(state.board[BLUE], geo))
        lines = [column_header(state.size, cell=2, indent=3)]
        for row in range(state.size):
            cells = []
            for col in range(state.size):
                bit = 1 << (row * geo.width + col)
                if state.board[RED] & bit:
                    cells.append("R" if lit[RED] & bit else "r")
                elif state.board[BLUE] & bit:
                    cells.append("B" if lit[BLUE] & bit else "b")
                else:
                    cells.append(".")
            lines.append(f"{row + 1:>2} " + " ".join(cells))
        for colour in (RED, BLUE):
            lines.append(
                f"{COLOURS[colour]} ({COLOURS[colour][0]}, seat {state.seat_of(colour)}): "
                f"{state.fives[colour]} five-row{'s' * (state.fives[colour] != 1)}, "
                f"{state.reserve(colour)} in reserve"
            )
        lines.append(f"capitals: stones in a five-row; variant {state.variant}")
        if state.reason is not None:
            lines.append(f"game over: seat {state.winner} wins ({state.reason})")
        elif state.phase == "setup":
            lines.append("seat 1 to place the opening stones, like: setup red F7 blue E5 G5")
        elif state.phase == "choose":
            lines.append("seat 2 to choose a colour: take red or take blue")
        else:
            colour = state.colour_of(state.turn)
            lines.append(f"seat {state.turn} ({COLOURS[colour]}) to move")
        return "\n".join(lines)


RULESET = DotDashRuleset()
