"""Dot Dash: a move that lowers the mover's own five-row count (and so loses) is played only when confirmed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bot.host.rules.base import Action, Effects, HouseRule, MatchView, Refused


class ShiftConfirm(HouseRule):
    """Asks before playing a move the engine says loses by shifting; `confirm` plays it."""

    key: ClassVar[str] = "shiftconfirm"
    card: ClassVar[str | None] = (
        "`shiftconfirm=on|off`: ask before playing a move that lowers your own five-row count and so\n"
        "loses at once (`confirm` plays it). Off: such a move is played, and loses, without asking."
    )
    order: ClassVar[int] = 60
    games: ClassVar[tuple[str, ...] | None] = ("dotdash",)
    default: ClassVar[Any] = True
    actions: ClassVar[tuple[Action, ...]] = (Action("confirm", ("confirm",)),)
    events: ClassVar[tuple[str, ...]] = ("confirm",)
    words: ClassVar[Mapping[str, str]] = {
        "shift_confirm": "That move lowers your five-row count and loses at once. Post `confirm` to play it anyway.",
        "confirm_nothing": "There is nothing for you to confirm.",
    }

    def __init__(self) -> None:
        self.held: tuple[int, str, str | None] | None = None
        """(seat, text, message id) of the move waiting for `confirm`."""

    def after_validate(self, m: MatchView, seat: int, text: str, move: Any, message_id: str | None) -> Effects | None:
        """Hold back a losing shift until the mover confirms it."""
        if not m.ruleset.loses_by_shifting(m.state, move):
            return None
        self.held = (seat, text, message_id)
        return Effects(reject=Refused("shift_confirm", kind="confirm"))

    def on_keyword(self, m: MatchView, seat: int, action: str, at: float) -> Effects | None:
        """`confirm` plays the held move."""
        if self.held is None:
            return None
        if self.held[0] != seat:
            raise Refused("confirm_nothing")
        _seat, text, message_id = self.held
        self.held = None
        return Effects(replay=(text, message_id))

    def after_play(self, m: MatchView, seat: int, notation: str, message_id: str | None, at: float) -> Effects | None:
        """Any move played drops the held one."""
        self.held = None
        return None

    def on_rewind(self) -> Effects | None:
        """A held move does not survive a rewind."""
        self.held = None
        return None

    def dump(self, now: float) -> dict[str, Any]:
        """The held move."""
        return {"held": None if self.held is None else list(self.held)}

    def load(self, data: Mapping[str, Any], now: float) -> None:
        """Inverse of `dump`."""
        held = data.get("held")
        self.held = None if held is None else (int(held[0]), str(held[1]), held[2])

    def load_legacy(self, flags: Mapping[str, Any], pending: Mapping[str, Any] | None, now: float) -> None:
        """Old flag: `confirm`."""
        held = flags.get("confirm")
        self.held = None if not held else (int(held["seat"]), str(held["text"]), held.get("message_id"))
