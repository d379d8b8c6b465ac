"""Take-back window: a move stays provisional for some seconds and its author may take it back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bot.host.rules.base import (
    Action,
    Effects,
    HouseRule,
    Log,
    MatchView,
    Note,
    OpenAction,
    Provisional,
    Refused,
    RulesError,
)
from bot.text import Text, chat_only, code
from bot.types import WINDOW, duration

MAX_SECONDS = 600.0
PROVISIONAL = "provisional"
"""The event of a move played but not yet final."""
TAKEN_BACK = "takeback"
"""The event and log entry of a move taken back."""
TAKE_BACK = Action("takeback", ("take back", "takeback", "undo"), "take", "Take back", lapses=True)


def from_clock(clock: Mapping[str, Any]) -> dict[str, float]:
    """This rule's setting carried by a clock (empty: none): a typed clock's take-back part (`--clock
    takeback=5`, already checked by `TimeControl.from_spec`), or the window a time control stored before it
    was only this rule's (an old snapshot's `clocks.tc`, whose None meant the game's default)."""
    raw = clock.get(WINDOW)
    return {} if raw is None else {TakeBack.key: duration(raw)}


class TakeBack(HouseRule):
    """Moves are final only `seconds` after they are played (deleting, editing or `take back` undoes them)."""

    key: ClassVar[str] = "takeback"
    card: ClassVar[str | None] = (
        "`takeback=SECONDS`: each legal move stays provisional that long; its author may take it back by\n"
        "deleting or editing the message, or posting `take back` / `undo` (0 = moves are final at once)."
    )
    order: ClassVar[int] = 20
    default: ClassVar[Any] = 0.0
    game_defaults: ClassVar[Mapping[str, Any]] = {"trax": 5.0}
    actions: ClassVar[tuple[Action, ...]] = (TAKE_BACK,)
    deadline_labels: ClassVar[Mapping[str, str]] = {"commit": "final"}
    events: ClassVar[tuple[str, ...]] = (PROVISIONAL, TAKEN_BACK)
    redraws: ClassVar[tuple[str, ...]] = (TAKEN_BACK,)
    tentative: ClassVar[tuple[str, ...]] = (PROVISIONAL,)
    withdraw: ClassVar[str | None] = TAKE_BACK.name
    needs_history: ClassVar[bool] = True
    legacy_timers: ClassVar[Mapping[str, str]] = {"commit": "commit"}

    @classmethod
    def from_clock(cls, clock: Mapping[str, Any]) -> dict[str, Any]:
        """The clock's take-back field (`from_clock`)."""
        return from_clock(clock)

    words: ClassVar[Mapping[str, str | Text]] = {
        "provisional": (
            "{player} played {move}. It becomes final in {seconds:g} s ("
            + chat_only("delete or edit your message, or ")
            + "post "
            + code("take back")
            + chat_only(",")
            + " to take it back)."
        ),
        "takeback": "{player} took back {move}. {turn}",
        "takeback_none": "There is no move of yours to take back: moves are final after {seconds:g} s.",
        "takeback_late": "Too late: the move is already final.",
        "not_final": "Wait: the last move is not final yet.",
        "turn:provisional": "{player}'s move becomes final in a few seconds.",
        "no_rule:takeback": "Moves are final at once in this match.",
        "stale:takeback": "That move is already final.",
        "not_actor:takeback": "Only {actor} can take back {move}.",
        "deadline:final": "{who}'s move becomes final {at}",
        "log:takeback": "take-back",
        "logline:takeback": "{move} by {via}",
        "setting:takeback": "a move can be taken back for {value:g} s",
    }

    @classmethod
    def log_rewind(cls, kind: str, data: Mapping[str, Any], ply: int) -> int | None:
        """A logged take-back undoes the last ply."""
        return max(0, ply - 1) if kind == TAKEN_BACK else None

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.pending: Provisional | None = None

    def describe(self) -> str:
        """`takeback=5`."""
        return f"takeback={self.seconds:g}"

    @classmethod
    def parse(cls, text: str) -> Any:
        """Seconds a move stays provisional (0 = off)."""
        try:
            seconds = float(text)
        except ValueError:
            raise RulesError("rule_seconds", rule=cls.key, value=text) from None
        if not 0 <= seconds <= MAX_SECONDS:
            raise RulesError("rule_range", rule=cls.key, low=0, high=MAX_SECONDS)
        return seconds

    @classmethod
    def build(cls, value: Any) -> HouseRule | None:
        """On when the window is longer than 0 s."""
        return cls(float(value)) if value else None

    def open_actions(self, m: MatchView) -> list[OpenAction]:
        """Its author may take the provisional move back."""
        p = self.pending
        return [] if p is None else [OpenAction(TAKE_BACK, p.ply, p.seat, {"move": p.notation})]

    def deadline_seat(self, m: MatchView) -> int | None:
        """The provisional move's author."""
        return None if self.pending is None else self.pending.seat

    def on_keyword(self, m: MatchView, seat: int, action: str, at: float) -> Effects | None:
        """`take back` (or a deleted/edited message or the button: `takeback:delete`)."""
        if self.seconds <= 0:
            return None
        via = action.partition(":")[2] or "text"
        pending = self.pending
        if pending is None or pending.seat != seat:
            raise Refused("takeback_none", seconds=self.seconds)
        due = m.timer_due(self.key, "commit")
        if due is not None and at > due + 1e-9:
            raise Refused("takeback_late")
        self.pending = None
        return Effects(
            rewind_to=len(m.history) - 1,
            clock=["resume"],
            timers={"commit": None},
            log=[Log(TAKEN_BACK, seat, {"via": via, "move": pending.notation})],
            say=[Note(TAKEN_BACK, {"move": pending.notation, "via": via}, seat)],
        )

    def gate(self, m: MatchView, seat: int) -> None:
        """Nobody moves while the last move can still be taken back."""
        if self.pending is not None:
            raise Refused("not_final", kind="turn")

    def after_play(self, m: MatchView, seat: int, notation: str, message_id: str | None, at: float) -> Effects | None:
        """The move just played is provisional: the mover's clock stops, the opponent's waits (the practice
        opponent's moves are final at once)."""
        if self.seconds <= 0 or m.final_at_once(seat):
            return None
        self.pending = Provisional(seat, m.ply, notation, message_id, at)
        return Effects(
            defer=True,
            timers={"commit": self.seconds},
            say=[Note(PROVISIONAL, {"move": notation, "ply": m.ply, "seconds": self.seconds}, seat)],
        )

    def on_timer(self, m: MatchView, name: str) -> Effects | None:
        """The window closed: the move is final."""
        pending, self.pending = self.pending, None
        return None if pending is None else Effects(hand_over=pending)

    def on_rewind(self) -> Effects | None:
        """A rewound provisional move is gone."""
        self.pending = None
        return Effects(timers={"commit": None})

    def on_finish(self) -> None:
        """Nothing is provisional after the end."""
        self.pending = None

    def holds_clock(self) -> bool:
        """While a move is provisional nobody's clock runs."""
        return self.pending is not None

    def provisional(self) -> Provisional | None:
        """The provisional move."""
        return self.pending

    def dump(self, now: float) -> dict[str, Any]:
        """The provisional move (its time relative to `now`)."""
        p = self.pending
        if p is None:
            return {"pending": None}
        return {
            "pending": {
                "seat": p.seat,
                "ply": p.ply,
                "notation": p.notation,
                "message_id": p.message_id,
                "at": p.at - now,
            }
        }

    def load(self, data: Mapping[str, Any], now: float) -> None:
        """Inverse of `dump`."""
        self.load_legacy({}, data.get("pending"), now)

    def load_legacy(self, flags: Mapping[str, Any], pending: Mapping[str, Any] | None, now: float) -> None:
        """The old snapshot's `pending` is this rule's provisional move."""
        if pending is None:
            self.pending = None
            return
        self.pending = Provisional(
            int(pending["seat"]),
            int(pending["ply"]),
            str(pending["notation"]),
            pending.get("message_id"),
            now + float(pending["at"]),
        )
