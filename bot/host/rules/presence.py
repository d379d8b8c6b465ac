"""One-grace clock: a player in grace posts `ready`, the opponent confirms presence, then the move counts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bot.host.rules.base import Action, Effects, HouseRule, Log, MatchView, Note, OpenAction, Refused
from bot.text import Text, chat_only, code, strong
from bot.types import ClockKind

NO_ANSWER = "no confirmation in time"
CLEARED = "presence_ok"
"""The event of a player in grace cleared to move."""
READY = Action("ready", ("ready",), command=True)
HERE = Action("here", ("here", "i'm here", "im here"), "here", "I'm here", "success")


class GracePresence(HouseRule):
    """With the one-grace clock: `ready` stops the clock for one presence check per grace, never more."""

    key: ClassVar[str] = "presence"
    card: ClassVar[str | Text | None] = strong("In grace.") + (
        " `ready` asks your opponent to confirm they are here (`here`); the clock stops for\n"
        "that one check only: a second `ready` in the same grace is refused and stops nothing, so nobody\n"
        "stays in grace longer than the grace limit plus one presence window."
    )
    order: ClassVar[int] = 40
    settable: ClassVar[bool] = False
    actions: ClassVar[tuple[Action, ...]] = (READY, HERE)
    deadline_labels: ClassVar[Mapping[str, str]] = {"presence": "presence"}
    events: ClassVar[tuple[str, ...]] = ("presence", CLEARED)
    pings: ClassVar[tuple[str, ...]] = ("presence", CLEARED)
    legacy_timers: ClassVar[Mapping[str, str]] = {"presence": "presence"}
    words: ClassVar[Mapping[str, str | Text]] = {
        "log:ready": "ready",
        "log:here": "presence",
        "command:ready": "Say you are ready to move from grace (Trax)",
        "done:ready": "Your opponent has been asked to confirm they are here.",
        "ready_not_in_grace": "`ready` is for a player in grace, on their turn.",
        "ready_cleared": "You are cleared to move.",
        "ready_waiting": "Already asked: waiting for {other} to confirm they are here.",
        "here_nobody": "Nobody is waiting for your confirmation.",
        "grace_ready": "You are in grace: post `ready` and wait for {other} to confirm, then move.",
        "grace_wait": "Waiting for {other} to confirm they are here.",
        "no_rule:ready": "`ready` is for a player in grace, on their turn.",
        "no_rule:here": "Nobody is waiting for your confirmation.",
        "not_player:here": "only the opponent can confirm presence",
        "presence": (
            "{asker} is ready to move from grace. {confirmer}, please confirm you are here ("
            + chat_only("button or ")
            + code("here")
            + ") within {seconds:g} s."
        ),
        "ping:presence": (
            "{asker} is ready to move from grace: please confirm you are here ("
            + chat_only("button or ")
            + code("here")
            + ") within {seconds:g} s."
        ),
        "presence_ok": "{player}, you may move now ({how}).",
        "deadline:presence": "The presence check ends {at}",
    }

    def __init__(self) -> None:
        self.waiting = False
        """`ready` was posted; the opponent has not confirmed yet (the clock is stopped)."""
        self.cleared = False
        """This grace's presence check is over: the player may move, and `ready` never stops the clock again."""

    def describe(self) -> str:
        """`presence`."""
        return "presence"

    def in_play(self, m: MatchView) -> bool:
        """Only on the one-grace clock."""
        return m.clocks.tc.kind == ClockKind.GRACE

    def open_actions(self, m: MatchView) -> list[OpenAction]:
        """The opponent confirms while the check waits."""
        return [OpenAction(HERE, 0)] if self.waiting else []

    def on_keyword(self, m: MatchView, seat: int, action: str, at: float) -> Effects | None:
        """`ready` from the player in grace, `here` from the opponent."""
        if m.clocks.tc.kind != ClockKind.GRACE:
            return None
        if action.partition(":")[0] == "ready":
            if not (m.clocks.in_grace and m.clocks.running == seat):
                raise Refused("ready_not_in_grace")
            if self.cleared:
                raise Refused("ready_cleared")
            if self.waiting:
                raise Refused("ready_waiting", other=3 - seat)
            self.waiting = True
            window = m.clocks.tc.presence
            return Effects(
                clock=["pause"],
                timers={"presence": window},
                log=[Log("ready", seat)],
                say=[
                    Note(
                        "presence",
                        {
                            "asker": seat,
                            "confirmer": 3 - seat,
                            "confirmer_id": m.player_id(3 - seat),
                            "seconds": window,
                        },
                        3 - seat,
                    )
                ],
            )
        if not self.waiting or m.clocks.running != 3 - seat:
            raise Refused("here_nobody")
        return self._clear(m, seat, "confirmed")

    def _clear(self, m: MatchView, confirmer: int | None, how: str) -> Effects:
        self.waiting = False
        self.cleared = True
        return Effects(
            clock=["resume"],
            timers={"presence": None},
            log=[Log("here", confirmer, {"how": how})],
            say=[Note(CLEARED, {"how": how}, m.clocks.running)],
        )

    def gate_mover(self, m: MatchView, seat: int) -> None:
        """A player in grace moves only after the presence check."""
        if m.clocks.in_grace and m.clocks.running == seat and not self.cleared:
            raise Refused("grace_wait" if self.waiting else "grace_ready", kind="grace", other=3 - seat)

    def after_play(self, m: MatchView, seat: int, notation: str, message_id: str | None, at: float) -> Effects | None:
        """A new action, a new check."""
        return self.on_rewind()

    def on_timer(self, m: MatchView, name: str) -> Effects | None:
        """The opponent did not answer: the player may move, the clock runs again."""
        return self._clear(m, None, NO_ANSWER) if self.waiting else None

    def on_rewind(self) -> Effects | None:
        """Forget the check of an action that is gone."""
        self.waiting = self.cleared = False
        return Effects(timers={"presence": None})

    def holds_clock(self) -> bool:
        """The clock is stopped while the opponent is asked."""
        return self.waiting

    def dump(self, now: float) -> dict[str, Any]:
        """Where the check stands."""
        return {"waiting": self.waiting, "cleared": self.cleared}

    def load(self, data: Mapping[str, Any], now: float) -> None:
        """Inverse of `dump`."""
        self.waiting = bool(data.get("waiting"))
        self.cleared = bool(data.get("cleared"))

    def load_legacy(self, flags: Mapping[str, Any], pending: Mapping[str, Any] | None, now: float) -> None:
        """Old flags: `presence_wait`, `presence_ok`."""
        self.waiting = bool(flags.get("presence_wait"))
        self.cleared = bool(flags.get("presence_ok"))
