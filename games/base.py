"""The contract every game implements, plus the values it trades in."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

SCHEMA_VERSION = 1

Seat = int
"""A seat number: 1 moves first, 2 second."""

Point = tuple[int, int]
"""A board point or square as (column, row), both from 0: `A1` is (0, 0)."""

TITLES: dict[str, str] = {
    "pathing": "Pathing Dots & Boxes",
    "trax": "Trax",
    "boxes": "Dots-and-Boxes",
    "dots": "Dots (Kropki)",
    "dotdash": "Dot Dash",
}
"""Every game id and its title, the one place they are written (a ruleset's `title` comes from here)."""


class MoveError(ValueError):
    """A move attempt that cannot be played; `kind` says which layer refused it."""

    kind: ClassVar[str] = "illegal"

    def __init__(self, text: str, reason: str, code: str | None = None) -> None:
        self.text = text
        self.reason = reason
        self.code = code
        """A stable machine-readable reason when the host must react to it (e.g. 'three-same')."""
        shown = text if len(text) <= 40 else text[:37] + "..."
        super().__init__(f"{shown!r}: {reason}")


class MoveSyntaxError(MoveError):
    """The text does not parse as a move of this game."""

    kind = "syntax"


class IllegalMoveError(MoveError):
    """The text parses, but the move is not legal in this position or phase."""

    kind = "illegal"


class TurnError(MoveError):
    """The seat is not the one to act."""

    kind = "turn"


class GameFinishedError(MoveError):
    """The game is already over."""

    kind = "finished"


@dataclass(frozen=True)
class OptionProblem:
    """One option that does not validate, as data for whoever words it: the option's name (empty: the
    options as a whole), the kind of problem (pydantic's error type: `extra_forbidden`, `less_than_equal`,
    `int_parsing`, `literal_error`, `value_error`...), its limits (`le`, `ge`, `expected`...), the value
    given and the validator's own message."""

    key: str
    kind: str
    limits: Mapping[str, Any] = field(default_factory=dict)
    given: Any = None
    message: str = ""


class OptionsError(ValueError):
    """Game options that do not validate; the message lists every problem (for developers: players read
    `problems` worded at the edge), `valid` names the options the game takes."""

    def __init__(self, message: str, problems: Sequence[OptionProblem] = (), valid: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)
        self.valid = tuple(valid)


@dataclass(frozen=True)
class Event:
    """Something that happened while applying a move (move played, boxes scored, ...)."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)


class Termination(StrEnum):
    """Why a game ended; the values are the `reason` strings of docs/cli.md.

    Engines produce the game-specific ones; the host adds `time`, `resign`, `award`, `agreement` and `aborted`.
    """

    FOUR_IN_A_ROW = "four-in-a-row"
    """Pathing: four squares of one colour fill a row or a column."""
    ROUND_LIMIT = "round-limit"
    """Pathing: the host's `max_rounds` ran out; more squares on the pathing board wins."""
    LOOP = "loop"
    """Trax: a closed loop of one colour."""
    LINE = "line"
    """Trax: a line of one colour joining opposite edges of an 8-wide span."""
    SCORE = "score"
    """Boxes: all boxes taken; Dots: the field is full. Higher score wins, equal is a draw."""
    STOP = "stop"
    """Dots: a player stopped the game with all their dots grounded."""
    FIVE_ROWS = "five-rows"
    """Dot Dash: a lead in five-rows at the start of the leader's turn."""
    NO_MOVES = "no-moves"
    """Dot Dash: the player to move has too few stones or no legal slide."""
    SHIFT = "shift"
    """Dot Dash: a slide that lowered the mover's own five-rows."""
    TIME = "time"
    """Host: a player's clock ran out."""
    RESIGN = "resign"
    """Host or replay: a player resigned."""
    AWARD = "award"
    """Host: a host declared the result."""
    AGREEMENT = "agreement"
    """Host: the players agreed to a draw (house rule `draw`)."""
    ABORTED = "aborted"
    """Host: a host aborted the match; no result."""
    NO_SHOW = "no_show"
    """Host: a scheduled match never began; the player who checked in wins because the other did not come."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: the winning seat (None for a draw), why, and the scores."""

    winner: Seat | None
    termination: Termination
    scores: Mapping[Seat, int]

    @property
    def reason(self) -> str:
        """The termination as the contract's plain string (`four-in-a-row`, `loop`...)."""
        return self.termination.value


class UnsupportedError(NotImplementedError):
    """The game does not offer this optional ability (an SGF record, a rewind...)."""


class ClockKind(StrEnum):
    """How a game's clock runs: per-move time plus a reserve, per-move time plus one grace per game, or
    correspondence (days per move, an optional capped bank of saved time; deadlines on the wall clock)."""

    MOVE_RESERVE = "move_reserve"
    GRACE = "grace"
    CORRESPONDENCE = "correspondence"


@dataclass(frozen=True)
class ClockSpec:
    """Default time control of a game: per-move + reserve, or the one-grace system."""

    kind: ClockKind
    move: float
    reserve: float = 0.0
    grace: float = 0.0


class GameOptions(BaseModel):
    """Base for per-game options: immutable, unknown keys rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid")


S = TypeVar("S")
M = TypeVar("M")
P = TypeVar("P")
Opt = TypeVar("Opt", bound=GameOptions)

_MOVEISH = re.compile(r"[A-Za-z@]{1,3}\s*\d{1,2}")


class Ruleset(ABC, Generic[Opt, S, P, M]):
    """One game: options, states, notation and rules. Pure: no I/O, no clocks.

    Move text is read in two layers: `parse_syntax` (state-free) raises `MoveSyntaxError`;
    `validate` (against a position and seat) raises `IllegalMoveError`.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    """Filled from `TITLES` by the game's id."""
    options_model: ClassVar[type[GameOptions]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        game_id = cls.__dict__.get("id")
        if game_id is not None:
            cls.title = TITLES[game_id]

    # -- options -------------------------------------------------------------------
    def parse_options(self, raw: Mapping[str, Any] | None = None) -> Opt:
        """Validate raw options (strings from a command line are fine) into the model."""
        try:
            return self.options_model.model_validate(dict(raw or {}))  # type: ignore[return-value]
        except ValidationError as exc:
            problems, said = [], []
            for err in exc.errors():
                where = ".".join(str(p) for p in err["loc"])
                said.append(f"{where or 'options'}: {err['msg']}")
                limits = {k: v for k, v in (err.get("ctx") or {}).items() if k != "error"}
                given = err.get("input") if where else None
                problems.append(OptionProblem(where, err["type"], limits, given, str(err["msg"])))
            valid = list(self.options_model.model_fields)
            raise OptionsError(f"bad options for {self.id}: " + "; ".join(said), problems, valid) from None

    @abstractmethod
    def default_clock(self, options: Opt) -> ClockSpec:
        """The time control RULES.md gives this game."""

    # -- states --------------------------------------------------------------------
    @abstractmethod
    def new_game(self, options: Opt) -> S:
        """The starting state."""

    @abstractmethod
    def to_move(self, state: S) -> Seat | None:
        """The seat to act, or None once the game is over."""

    def check_turn(self, state: S, seat: Seat) -> None:
        """Raise `TurnError` unless `seat` may act now (games with free order override)."""
        if self.to_move(state) != seat:
            raise TurnError(str(seat), f"it is seat {self.to_move(state)}'s turn, not seat {seat}'s")

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result once finished, else None."""

    @abstractmethod
    def scores(self, state: S) -> dict[Seat, int]:
        """The contract's per-seat score of this state."""

    def extra(self, state: S) -> dict[str, Any]:
        """Game-specific figures for the replay CLI's `extra`."""
        return {}

    # -- moves ---------------------------------------------------------------------
    @abstractmethod
    def parse_syntax(self, text: str) -> P:
        """Read move text without a position; raise `MoveSyntaxError`."""

    @abstractmethod
    def validate(self, state: S, parsed: P, seat: Seat) -> M:
        """Turn parsed text into a legal move for `seat`; raise `IllegalMoveError`."""

    def parse(self, state: S, text: str, seat: Seat | None = None) -> M:
        """Both layers at once, for the seat to move unless one is given."""
        parsed = self.parse_syntax(text)
        who = self.to_move(state) if seat is None else seat
        if who is None:
            raise GameFinishedError(text, "the game is over")
        return self.validate(state, parsed, who)

    @abstractmethod
    def format(self, state: S, move: M) -> str:
        """Canonical text of `move` in `state` (the state before it): parse(format(m)) == m."""

    @abstractmethod
    def legal_moves(self, state: S) -> list[M]:
        """Every legal move of the seat to act."""

    @abstractmethod
    def apply(self, state: S, move: M) -> tuple[S, list[Event]]:
        """Play a legal move; returns the new state (the old one is untouched) and events."""

    def looks_like_move(self, text: str) -> bool:
        """Whether unparseable text was probably meant as a move (gets a hint, not silence)."""
        return len(text) <= 60 and bool(_MOVEISH.search(text))

    def move_hint(self) -> str:
        """One line telling a player how moves are written."""
        return "see the rule card for move notation"

    def ends_own_play(self, move: M) -> bool:
        """Whether this (validated) move gives up the mover's play for the rest of the game, so that a room
        asks the player to confirm it first (Dots' `stop`); ordinary moves, winning ones included, do not."""
        return False

    def turn_prompt(self, state: S) -> str | None:
        """What the seat to act must do now, when it is not an ordinary move (a setup, a choice...)."""
        return None

    def choices(self, state: S) -> Mapping[str, str]:
        """When the seat to act chooses among a few fixed texts rather than moves: a short code for each
        (lower-case letters) → the text to post (`{"red": "take red", ...}`); rooms offer them as buttons."""
        return {}

    def rules_summary(self, options: Opt) -> str | None:
        """A sentence for the start announcement about how these options change the usual rules, if any."""
        return None

    # -- optional abilities: every adapter calls these directly (defaults say "not here") ----------
    def loses_by_shifting(self, state: S, move: M) -> bool:
        """Whether a legal move loses at once by the mover's own doing, so a host may ask to confirm it."""
        return False

    def format_dm(self, state: S, move: M) -> str:
        """The move in the Death Match texts' own notation (the canonical notation unless a game has one)."""
        return self.format(state, move)

    def rewind(self, state: S, turns: int = 1) -> S:
        """The position `turns` whole turns back; raises `UnsupportedError` unless the game can rewind."""
        raise UnsupportedError(f"{self.id} cannot rewind a position")

    sgf_records: ClassVar[bool] = False
    """Whether `export_sgf` / `import_sgf` work for this game."""

    def export_sgf(self, options: Opt | Mapping[str, Any], moves: Sequence[M]) -> str:
        """A game (its options and moves from the start) as an SGF record; `UnsupportedError` if none."""
        raise UnsupportedError(f"{self.id} has no SGF records")

    def import_sgf(self, text: str) -> tuple[dict[str, Any], list[str]]:
        """An SGF record → (replay options, seat-prefixed move lines); `UnsupportedError` if none."""
        raise UnsupportedError(f"{self.id} has no SGF records")

    # -- storage and display -------------------------------------------------------
    @abstractmethod
    def state_to_json(self, state: S) -> dict[str, Any]:
        """The state as JSON-ready data (without the schema envelope)."""

    @abstractmethod
    def state_from_json(self, data: Mapping[str, Any]) -> S:
        """Inverse of `state_to_json`."""

    def to_json(self, state: S) -> dict[str, Any]:
        """The state with a schema version and game id, ready for `json.dumps`."""
        return {"schema": SCHEMA_VERSION, "game": self.id, "state": self.state_to_json(state)}

    def from_json(self, data: Mapping[str, Any]) -> S:
        """Load a state written by `to_json`; refuses other games and newer schemas."""
        if data.get("game") != self.id:
            raise ValueError(f"state is for game {data.get('game')!r}, not {self.id!r}")
        if int(data.get("schema", 0)) > SCHEMA_VERSION:
            raise ValueError(f"state schema {data.get('schema')} is newer than {SCHEMA_VERSION}")
        return self.state_from_json(data["state"])

    @abstractmethod
    def render_text(self, state: S) -> str:
        """A monospace picture of the state with coordinate labels."""


AnyRuleset = Ruleset[Any, Any, Any, Any]


def play_text(ruleset: AnyRuleset, state: Any, text: str, seat: Seat | None = None) -> tuple[Any, Any, list[Event]]:
    """Parse and apply one move attempt in RULES.md §6 error order.

    Order: syntax → finished → turn → illegal. `seat=None` means the seat to move.
    Returns (new state, move, events).
    """
    parsed = ruleset.parse_syntax(text)
    current = ruleset.to_move(state)
    if current is None:
        raise GameFinishedError(text, "the game is already over")
    who = current if seat is None else seat
    ruleset.check_turn(state, who)
    move = ruleset.validate(state, parsed, who)
    new_state, events = ruleset.apply(state, move)
    return new_state, move, events
