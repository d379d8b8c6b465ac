"""The seam between the match service and its house rules: what a rule sees, and what it may ask for.

A house rule never touches the match or the database. It reads the match through `MatchView`, keeps
its own typed state, and answers each hook with `Effects`; the service applies every rule's effects in
one place (commit, then publish, then re-arm its timers).

A rule also describes itself, in one class: its `key` (the `K` of `--rule K=V`), the games that take
it, its default, how its value is parsed, the statuses it holds, its actions (keywords and button),
its deadline labels and the events it publishes. Subclassing `HouseRule` in a module of this package
registers the rule; nothing else needs to name it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from bot.host.clocks import Clocks
from bot.host.events import Refusal
from bot.text import Text
from bot.types import HELD_BEFORE, HOLD_STATUSES, MatchStatus
from games.base import AnyRuleset

__all__ = [
    "HOLD_STATUSES",
    "Action",
    "Effects",
    "HouseRule",
    "Log",
    "MatchView",
    "Note",
    "OpenAction",
    "PracticeAnswer",
    "PracticeTurn",
    "Provisional",
    "Refused",
    "RuleDeadline",
    "RulesError",
]

_ON = {"1": True, "on": True, "yes": True, "true": True, "0": False, "off": False, "no": False, "false": False}


class RulesError(ValueError):
    """A rule the game does not take, or a value the rule does not take (`refusal`: which, as data)."""

    def __init__(self, code: str, **data: Any) -> None:
        super().__init__(code)
        self.refusal = Refusal(code, data=data)


@dataclass(frozen=True)
class Action:
    """Something a player may do under a rule: `name` (what `MatchService.act` takes), the phrases a
    player may post for it, and its button (`button`: the code in the button's id; `label`, `style`)."""

    name: str
    keywords: tuple[str, ...] = ()
    button: str | None = None
    label: str | None = None
    style: str = "secondary"
    """`primary`, `secondary`, `success` or `danger`."""
    lapses: bool = False
    """Its button belongs to one moment (a ply): once that is gone, a click is refused as stale."""
    answered_when_off: bool = False
    """In a match without the rule its phrases are still answered (`no_rule:<name>`), not read as chat."""
    command: bool = False
    """It is also a slash command of its own, `/dm <name>` (generated from this declaration): its description
    is the rule's words `command:<name>`, its reply `done:<name>` (with `{match}`)."""


@dataclass(frozen=True)
class OpenAction:
    """An action open right now: for the turn at `ply`; `actor`: the only seat that may take it (None: either)."""

    action: Action
    ply: int
    actor: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RuleDeadline:
    """A rule's running timer as the room shows it: `label` names its words in `bot.wording`."""

    label: str
    at: float
    seat: int | None = None


class MatchView(Protocol):
    """What a rule may read of a match."""

    @property
    def game(self) -> str: ...
    @property
    def ruleset(self) -> AnyRuleset: ...
    @property
    def state(self) -> Any: ...
    @property
    def ply(self) -> int: ...
    @property
    def status(self) -> MatchStatus: ...
    @property
    def clocks(self) -> Clocks: ...
    @property
    def history(self) -> list[tuple[int, Any, int]]: ...

    def to_move(self) -> int | None:
        """The seat whose turn it is (None once the game is over)."""

    def player_id(self, seat: int) -> str:
        """The stable id of the player in a seat."""

    def timer_due(self, rule: str, name: str) -> float | None:
        """When a rule's timer fires on the loop clock (None: not set; infinity while paused)."""

    def provisional(self) -> Provisional | None:
        """The move some rule keeps provisional, if any."""

    def final_at_once(self, seat: int) -> bool:
        """Whether a seat's moves are final when played (the practice opponent never takes one back)."""


@dataclass(frozen=True)
class PracticeTurn:
    """What the practice opponent knows when a rule's event may ask something of it: its `player_id`,
    `mine`: the event is addressed to its seat, `may_undo`: it would take its latest move back (a searching
    level that has a move to take back and has not taken one back in this match)."""

    player_id: str
    mine: bool
    may_undo: bool


@dataclass(frozen=True)
class PracticeAnswer:
    """What the practice opponent posts for a rule's event: `say`; `undoes_last`: that takes its latest move
    back (it avoids that move afterwards, and does so once a match); `otherwise`: posted when `say` did not
    take its move back."""

    say: str
    undoes_last: bool = False
    otherwise: str | None = None


@dataclass(frozen=True)
class Note:
    """Something to announce: a structured host event (its sentence is made in `bot.wording`)."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    seat: int | None = None


@dataclass(frozen=True)
class Log:
    """An entry for the match's log."""

    kind: str
    seat: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Provisional:
    """A move that is played but not final yet (it can still be taken back)."""

    seat: int
    ply: int
    notation: str
    message_id: str | None
    at: float


@dataclass
class Effects:
    """What a hook asks the service to do. Empty by default; effects of several rules merge."""

    log: list[Log] = field(default_factory=list)
    say: list[Note] = field(default_factory=list)
    timers: dict[str, float | None] = field(default_factory=dict)
    """This rule's timers: name → seconds from now, or None to clear it."""
    clock: list[str] = field(default_factory=list)
    """Clock changes, in order: `pause`, `resume`, `restart` (a fresh action for the seat on move), `stop`."""
    rewind_to: int | None = None
    """Index into the match's history: that turn and every later one are undone."""
    status: MatchStatus | None = None
    defer: bool = False
    """After a move: it stays provisional; the turn passes only when `hand_over` comes."""
    hand_over: Provisional | None = None
    """This provisional move becomes final now."""
    finish: tuple[int | None, str] | None = None
    """End the match now with (winner seat or None, reason); no rule is asked again."""
    start: bool = False
    """The match begins now (after a choice): the first player's clock starts."""
    swap_seats: bool = False
    replay: tuple[str, str | None] | None = None
    """Play this move text (posted in this message) now, past the checks that held it."""
    reject: Refused | None = None
    """After validation: the move is held back with this reply (the match changes as the other effects say)."""

    def merge(self, other: Effects | None) -> Effects:
        """Both sets of effects (the later one's scalar choices win)."""
        if other is None:
            return self
        self.log += other.log
        self.say += other.say
        self.timers.update(other.timers)
        self.clock += other.clock
        for name in ("rewind_to", "status", "finish", "replay", "reject", "hand_over"):
            if getattr(other, name) is not None:
                setattr(self, name, getattr(other, name))
        for flag in ("defer", "start", "swap_seats"):
            if getattr(other, flag):
                setattr(self, flag, True)
        return self


class Refused(Exception):
    """A rule says no: `code` names the sentence in `bot.wording`, `kind` classifies the reply."""

    def __init__(self, code: str, kind: str = "host", **data: Any) -> None:
        super().__init__(code)
        self.code = code
        self.kind = kind
        self.data = data


class HouseRule:
    """Base class of a house rule: every hook does nothing unless a rule overrides it."""

    registry: ClassVar[list[type[HouseRule]]] = []
    """Every rule class, in the order their hooks run (filled by subclassing)."""

    key: ClassVar[str] = ""
    """The rule's name in snapshots and logs, and the `K` of `--rule K=V`."""
    order: ClassVar[int] = 100
    """Where the rule's hooks run among the match's rules (lower first)."""
    settable: ClassVar[bool] = True
    """A host may set it per match (False: every match has it, e.g. the presence check)."""
    games: ClassVar[tuple[str, ...] | None] = None
    """The games that take it (None: every game)."""
    default: ClassVar[Any] = False
    """Its value when the host does not set it."""
    game_defaults: ClassVar[Mapping[str, Any]] = {}
    """Death Match defaults of particular games."""
    in_defaults: ClassVar[bool] = True
    """Its default is written into every match's settings (False: only a value the host chose)."""
    holds: ClassVar[tuple[MatchStatus, ...]] = ()
    """The statuses in which this rule may hold the match (`MatchStatus.HELD`; which rule holds it: `holding`)."""
    legacy_statuses: ClassVar[tuple[str, ...]] = ()
    """The status names older versions stored while this rule held the match (read back as HELD)."""
    actions: ClassVar[tuple[Action, ...]] = ()
    """What players may do under it (keywords, buttons)."""
    deadline_labels: ClassVar[Mapping[str, str]] = {}
    """Timer name → the label its deadline is shown with."""
    events: ClassVar[tuple[str, ...]] = ()
    """The kinds of host events it publishes."""
    redraws: ClassVar[tuple[str, ...]] = ()
    """Those of its events after which the position is not the one last shown (turns undone): a room that
    prints the board prints it again."""
    tentative: ClassVar[tuple[str, ...]] = ()
    """Those of its events that play a move not final yet: shown like a move (its line, the record, the
    position before it), while the board's header and turn line already say it (no line of their own)."""
    pings: ClassVar[tuple[str, ...]] = ()
    """Those of its events that need one player to act now (the event's seat): a room that can notify
    players (Discord) pings that player besides showing the event."""
    words: ClassVar[Mapping[str, str | Text]] = {}
    """Templates `bot.wording` fills for this rule's own event kinds and refusal codes (`{player}`: the
    event's seat, `{opponent}`: the other player, `{offerer}`... any seat in the data, by name), its log
    lines (`log:<kind>` the label, `logline:<kind>` the detail after it), its deadline labels
    (`deadline:<label>`, with `{who}` and `{at}`), its answers in a match without it (`no_rule:<action>`),
    what the turn line says while it holds the match (`held:<key>`), how a match's settings say it
    (`setting:<key>`, with `{value}` and `{s}`) and, for an event it pings, the words spoken to that player
    (`ping:<kind>`). `{turn}` in an event's template is the turn line after it."""
    card: ClassVar[str | Text | None] = None
    """Its bullet in the house rules of the rule cards of the games that take it (`cards.py`; without the
    leading `- `, a line break where the card breaks the line; a `Text` for words in weight, which the card
    generator writes as the card's Markdown)."""
    keywords: ClassVar[Mapping[str, str]] = {}
    """Phrases a player may post (normalised, lower case) → the action they stand for (from `actions`)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.keywords = {phrase: a.name for a in cls.actions for phrase in a.keywords}
        if cls.key:
            _check_declarations(cls)
            HELD_BEFORE.update(cls.legacy_statuses)
            HouseRule.registry.append(cls)
            HouseRule.registry.sort(key=lambda rule: rule.order)

    # -- the setting ---------------------------------------------------------------
    @classmethod
    def takes(cls, game: str) -> bool:
        """Whether `game` takes this rule."""
        return cls.games is None or game in cls.games

    @classmethod
    def default_for(cls, game: str) -> Any:
        """The Death Match default in `game`."""
        return cls.game_defaults.get(game, cls.default)

    @classmethod
    def card_default(cls, game: str) -> str | None:
        """Its Death Match default in `game` as the card's "Defaults" line says it (`takeback=0` (off)), or
        None when it has none there."""
        if not cls.in_defaults:
            return None
        value = cls.default_for(game)
        if isinstance(value, bool):
            return f"`{cls.key}={'on' if value else 'off'}`"
        return f"`{cls.key}={value:g}`" + ("" if value else " (off)")

    @classmethod
    def parse(cls, text: str) -> Any:
        """The value of `K=text` (on/off unless the rule says otherwise); RulesError when it is not one."""
        value = _ON.get(text.strip().lower())
        if value is None:
            raise RulesError("rule_on_off", rule=cls.key, value=text)
        return value

    @classmethod
    def build(cls, value: Any) -> HouseRule | None:
        """The rule object of a match with this value (None: the rule is off)."""
        return cls() if value or not cls.settable else None

    def open_actions(self, m: MatchView) -> list[OpenAction]:
        """The actions open now (for buttons)."""
        return []

    def in_play(self, m: MatchView) -> bool:
        """Whether this match's players can use the rule's actions at all (a room's `help` lists only those):
        a rule built for every match but acting only under a setting (a clock kind, a choice at the start)
        says no when that setting is not this match's."""
        return True

    def deadlines(self, m: MatchView) -> list[RuleDeadline]:
        """The rule's running deadlines, with their labels."""
        out = []
        for timer, label in self.deadline_labels.items():
            at = m.timer_due(self.key, timer)
            if at is not None:
                out.append(RuleDeadline(label, at, self.deadline_seat(m)))
        return out

    def deadline_seat(self, m: MatchView) -> int | None:
        """The seat a deadline of this rule is about (None: nobody in particular)."""
        return None

    @classmethod
    def phrase_action(cls, norm: str) -> str | None:
        """An action said with a value, which no fixed phrase covers (`adjourn for 2h` → `adjourn:7200`):
        `norm` is the player's text normalised as `keyword` does; None: not this rule's phrase."""
        return None

    @classmethod
    def log_rewind(cls, kind: str, data: Mapping[str, Any], ply: int) -> int | None:
        """The ply a logged entry of this rule (`kind`, `data`) takes the line of play back to, read at `ply`
        (None: it undoes nothing). Every reader of a stored log rewinds through this (`rules.log_rewind`)."""
        return None

    @classmethod
    def from_clock(cls, clock: Mapping[str, Any]) -> dict[str, Any]:
        """This rule's setting carried by a clock's fields (`--clock takeback=5`, an old snapshot's time
        control): `{key: value}`, or empty when the clock says nothing of it."""
        return {}

    @classmethod
    def practice(cls, kind: str, data: Mapping[str, Any], bot: PracticeTurn) -> PracticeAnswer | None:
        """The practice opponent's policy for this rule's event `kind` (`data`): what it posts, or None when
        the event asks nothing of it (it then just looks at the position again)."""
        return None

    withdraw: ClassVar[str | None] = None
    """The action a deleted or edited message of the provisional move stands for (`MatchService.withdraw`)."""
    needs_history: ClassVar[bool] = False
    """The rule rewinds, so the service keeps earlier states."""
    legacy_timers: ClassVar[Mapping[str, str]] = {}
    """Timer names of the old snapshot format → this rule's timer names."""

    # -- hooks ---------------------------------------------------------------------
    def on_create(self, m: MatchView, advantage: int | None) -> Effects | None:
        """The match was just created."""
        return None

    def on_keyword(self, m: MatchView, seat: int, action: str, at: float) -> Effects | None:
        """A player posted one of this rule's keywords (None: not for this rule now, read it as a move)."""
        return None

    def gate(self, m: MatchView, seat: int) -> None:
        """Before any move attempt is judged: raise `Refused` to hold it back."""

    def gate_mover(self, m: MatchView, seat: int) -> None:
        """Before the player on move's move is validated: raise `Refused` to hold it back."""

    def after_validate(self, m: MatchView, seat: int, text: str, move: Any, message_id: str | None) -> Effects | None:
        """A legal move is about to be played."""
        return None

    def after_play(self, m: MatchView, seat: int, notation: str, message_id: str | None, at: float) -> Effects | None:
        """A move was played."""
        return None

    def after_illegal(self, m: MatchView, seat: int, code: str | None) -> Effects | None:
        """A well-formed move was illegal (`code`: the engine's reason code)."""
        return None

    def at_result(self, m: MatchView, winner: int | None, reason: str) -> Effects | None:
        """The engine decided the game (Effects: the rule holds the result back)."""
        return None

    def on_timer(self, m: MatchView, name: str) -> Effects | None:
        """One of this rule's timers is due."""
        return None

    def on_rewind(self) -> Effects | None:
        """Turns were undone: forget what belonged to them (only timer effects are applied)."""
        return None

    def on_finish(self) -> None:
        """The match ended."""

    # -- reading -------------------------------------------------------------------
    def holding(self) -> bool:
        """Whether this rule is the one holding the match now (its words: `held:<key>`)."""
        return False

    def holds_clock(self) -> bool:
        """The mover's clock must stay stopped (a provisional move, a presence check)."""
        return False

    def provisional(self) -> Provisional | None:
        """The move this rule keeps provisional, if any."""
        return None

    def describe(self) -> str:
        """The rule as the log shows it (`takeback=5`)."""
        return self.key

    # -- storage -------------------------------------------------------------------
    def dump(self, now: float) -> dict[str, Any]:
        """State, JSON-ready (loop times are stored relative to `now`)."""
        return {}

    def load(self, data: Mapping[str, Any], now: float) -> None:
        """Restore `dump`'s data (`now`: the loop time the stored times are relative to)."""

    def load_legacy(self, flags: Mapping[str, Any], pending: Mapping[str, Any] | None, now: float) -> None:
        """Restore from a snapshot written before rules had their own keys (`flags`/`pending`)."""


_BUTTON_CODE = re.compile(r"[a-z]+")
"""What a button's code may be: it is part of the button's id, read back after a restart."""


def _check_declarations(rule: type[HouseRule]) -> None:
    """A rule that would clash with the registered ones is refused as it is defined (TypeError): its key,
    its phrases and its buttons must be its own, and a button's code must fit the button's id."""
    for other in HouseRule.registry:
        if other.key == rule.key:
            raise TypeError(f"house rule {rule.__name__}: the key {rule.key!r} is {other.__name__}'s")
        taken = {phrase for phrase, name in other.keywords.items() if rule.keywords.get(phrase, name) != name}
        buttons = {a.button for a in other.actions if a.button} & {a.button for a in rule.actions if a.button}
        if taken or buttons:
            clash = ", ".join(sorted(taken | {str(b) for b in buttons}))
            raise TypeError(f"house rule {rule.__name__}: {clash} already belong to {other.__name__}")
    for a in rule.actions:
        if a.button is not None and not _BUTTON_CODE.fullmatch(a.button):
            raise TypeError(f"house rule {rule.__name__}: button code {a.button!r} is not lower-case letters")
