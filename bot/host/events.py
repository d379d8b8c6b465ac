"""What the host core says: typed events, refusals and results, as data (never sentences).

Subscriber API
--------------
The host keeps no listeners: it hands every event to its `outlet`, the composition root's bus, and
`Bus.subscribe(listener)` (`bot.compose`) registers a `Listener`: a function (or coroutine function) called
with every `HostEvent`, in order, once the change it reports is stored. Inline listeners (the faces) run
inside the match's lock: they must only read, buffer or schedule work (never call back into the service
and wait). A listener that raises is logged and skipped; the others still hear the event.

A finished match's consequences (its rating, its tournament game, its scheduled DM, its series) are
listeners marked `@after_commit(kinds...)` (`bot.host.subscribers`): the host only queues the event for
them, and each drains its own queue in its own task, in commit order, off every match's lock
(`batch=True`: every event queued since its last call at once). `MatchService.drained()` waits until they
have caught up.

Every event has a `kind` (an `EventKind`), the `match_id`, the `seat` it is about (if any), public
`data` (what `dmhost room --events-json` prints), and the facts its sentence needs (`names`, `turn`,
`detail`): `bot.wording.event_text(event)` words it the same way for every adapter.

`finished` and `aborted` events carry a `MatchResult` (`event.result`): match and guild ids, game, both
players' ids and names, winner seat, end reason, whether it was a practice match, and when the match
started and ended (aware UTC). Ratings, scheduling and tournaments read that.

Refusals are `Refusal(code, kind, data, names)` values: a `SubmitResult` carries one when a text was
rejected, a `HostError` carries one when a request was refused; `bot.wording.refusal_text` words it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.types import ClockKind, EndReason, MatchStatus

__all__ = [
    "ClockFacts",
    "EventKind",
    "Grave",
    "HostError",
    "HostEvent",
    "Ignored",
    "Listener",
    "MatchResult",
    "Outcome",
    "PlayerRef",
    "Posted",
    "Refusal",
    "RefusalKind",
    "SubmitResult",
    "TurnFacts",
]


@dataclass(frozen=True)
class PlayerRef:
    """A player: a stable id (e.g. a Discord user id) and a display name."""

    id: str
    name: str


class EventKind(StrEnum):
    """The kinds of host events the core publishes (the `event` field of `--events-json`); every house rule
    declares its own kinds (`HouseRule.events`: the choice of who starts, a provisional move, ...)."""

    STARTED = "started"
    RESUMED = "resumed"
    MOVE = "move"
    TURN = "turn"
    CLOCK = "clock"
    ILLEGAL = "illegal"
    HINT = "hint"
    CONFIRM = "confirm"
    FINISHED = "finished"
    PAUSED = "paused"
    UNPAUSED = "unpaused"
    ABORTED = "aborted"
    TIME = "time"


class RefusalKind(StrEnum):
    """How a refusal classes the reply (`Refusal.kind`)."""

    HOST = "host"
    TURN = "turn"
    ILLEGAL = "illegal"
    SYNTAX = "syntax"
    FINISHED = "finished"
    PAUSED = "paused"
    GRACE = "grace"
    CONFIRM = "confirm"
    TIME = "time"
    ERROR = "error"


@dataclass(frozen=True)
class Refusal:
    """A refused action: `code` names the sentence in `bot.wording`; `kind` classifies the reply
    (`host`, `turn`, `illegal`, `syntax`, `finished`, `paused`, `grace`, `confirm`, `time`, `error`);
    `names` are the players' names by seat, for refusals that speak of a player."""

    code: str
    kind: str = "host"
    data: Mapping[str, Any] = field(default_factory=dict)
    names: Mapping[int, str] = field(default_factory=dict)


class HostError(ValueError):
    """A refused request: a `Refusal` (from the core) or, from an adapter, a sentence of its own."""

    def __init__(self, refusal: Refusal | str) -> None:
        self.refusal = refusal if isinstance(refusal, Refusal) else Refusal("said", data={"text": refusal})
        super().__init__(refusal if isinstance(refusal, str) else refusal.code)


@dataclass(frozen=True)
class TurnFacts:
    """Whose turn it is, or what the match waits for (`prompt`: the engine's own words for the turn)."""

    status: MatchStatus
    to_move: int | None
    prompt: str = ""
    provisional: int | None = None
    held_by: str | None = None
    """The key of the house rule holding the match (status `held`)."""


@dataclass(frozen=True)
class ClockFacts:
    """Both clocks at one moment: per seat what is left (`move`, `reserve` or `grace`, `grace_used`)."""

    kind: ClockKind
    running: int | None
    remaining: Mapping[int, Mapping[str, float]]
    paused: bool = False
    away: Mapping[int, int] = field(default_factory=dict)
    """Correspondence: the seats on vacation (their clocks stand still), with the Unix time it ends."""


@dataclass(frozen=True)
class MatchResult:
    """How a match ended, for subscribers that keep records (ratings, schedules, tournaments)."""

    match_id: int
    guild_id: int | None
    channel_id: int | None
    game: str
    players: Mapping[int, PlayerRef]
    winner: int | None
    """The winning seat (None: a draw, or no result)."""
    reason: EndReason
    practice: bool
    started_at: dt.datetime
    ended_at: dt.datetime

    @property
    def winner_id(self) -> str | None:
        """The winner's player id (None: a draw or no result)."""
        return None if self.winner is None else self.players[self.winner].id


@dataclass(frozen=True)
class HostEvent:
    """Something that happened in a match, as data: `data` is public (the JSON of `--events-json`);
    `names`, `turn`, `clocks` and `detail` are the facts its sentence needs."""

    match_id: int
    kind: str
    """An `EventKind`, or a kind a house rule declares (its `events`)."""
    data: Mapping[str, Any] = field(default_factory=dict)
    seat: int | None = None
    names: Mapping[int, str] = field(default_factory=dict)
    turn: TurnFacts | None = None
    clocks: ClockFacts | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)
    result: MatchResult | None = None
    notice: str | None = None
    """The key of its notice in the outbox when it is owed durably (`bot.host.notices`): the face that told it
    marks it told (`MatchService.told`)."""
    late: bool = False
    """Told again from the outbox at a start (its action was committed by a process that died before telling)."""


Listener = Callable[[HostEvent], Awaitable[None] | None]
"""A subscriber: called with each committed event, in order (see the module docstring)."""


class Outcome(StrEnum):
    """What became of a player's text or action."""

    ACCEPTED = "accepted"
    IGNORED = "ignored"
    """Not for the host at all (chat, a stranger): no reply."""
    REJECTED = "rejected"
    """For the host, but refused: the reply is the `Refusal`."""


class Ignored(StrEnum):
    """Why a text was ignored (the `reason` of `--events-json`'s `ignored` lines)."""

    CHAT = "chat"
    """It is not shaped like a move or a keyword."""
    EMPTY = "empty"
    TOO_LONG = "too_long"
    """Longer than any move (and not a keyword)."""
    STRANGER = "stranger"
    """Its author plays no seat in the match."""
    ELSEWHERE = "elsewhere"
    """Another process hosts the match now."""
    NOT_RUNNING = "not_running"
    """No such match runs here."""
    NOT_PROVISIONAL = "not_provisional"
    """A deleted or edited message that holds no provisional move."""


@dataclass(frozen=True)
class Grave:
    """A player's text that, taken now, would end their match or their play by their own choice: a resignation
    (`action` "resign") or a move the game says gives up the mover's play (`action` "move", e.g. Dots' `stop`).
    A room that can ask (Discord) confirms it first, then submits `text` (the keyword or the move's notation);
    `ply`: the position it was asked in."""

    action: str
    match_id: int
    seat: int
    text: str
    ply: int


@dataclass
class SubmitResult:
    """What became of a player's text: accepted, ignored (`reason`: why, an `Ignored` code) or rejected
    (`refusal`: why, as data)."""

    status: Outcome
    reason: Ignored | None = None
    refusal: Refusal | None = None
    events: list[HostEvent] = field(default_factory=list)

    @classmethod
    def accepted(cls, events: list[HostEvent]) -> SubmitResult:
        """Taken: these events were committed and published."""
        return cls(Outcome.ACCEPTED, events=events)

    @classmethod
    def ignored(cls, reason: Ignored) -> SubmitResult:
        """Not for the host (no reply)."""
        return cls(Outcome.IGNORED, reason)

    @classmethod
    def rejected(cls, refusal: Refusal, events: list[HostEvent] | None = None) -> SubmitResult:
        """Refused (the reply is the refusal's words)."""
        return cls(Outcome.REJECTED, refusal=refusal, events=events or [])

    @property
    def kind(self) -> str | None:
        """The refusal's class (`turn`, `illegal`, ...), None unless rejected."""
        return None if self.refusal is None else self.refusal.kind


@dataclass(frozen=True)
class Posted:
    """What became of a message posted in a room (`MatchService.post`): the match it was for, and either what the
    match made of it (`result`) or, for a grave text not taken yet, what to ask the player first (`grave`)."""

    match_id: int
    result: SubmitResult | None = None
    grave: Grave | None = None
