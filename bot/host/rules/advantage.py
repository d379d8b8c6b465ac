"""The advantage player's choice of who starts, timed like any action."""

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
    PracticeAnswer,
    PracticeTurn,
    Refused,
)
from bot.text import Text, strong
from bot.types import MatchStatus

CHOOSE = "choose"
"""The event asking the player with the advantage who starts."""
FIRST = Action("first", ("first", "i go first", "me"), "first", "I move first", "primary")
SECOND = Action("second", ("second", "you go first", "you"), "second", "Opponent moves first")


class AdvantageChoice(HouseRule):
    """With `advantage`, one player chooses who moves first; if the time for one move runs out, they do."""

    key: ClassVar[str] = "advantage"
    card: ClassVar[str | Text | None] = strong("Who starts, with an advantage.") + (
        " When the host gives one player the advantage, that player posts\n"
        "`first` or `second` (or uses the buttons). They have the time of one move for it (`move`, 60 s\n"
        "by default); if they let it run out, they move first — the choice was theirs, and so is the first\n"
        "move. A host pause stops this timer like every other."
    )
    order: ClassVar[int] = 10
    settable: ClassVar[bool] = False
    holds: ClassVar[tuple[MatchStatus, ...]] = (MatchStatus.HELD,)
    legacy_statuses: ClassVar[tuple[str, ...]] = ("choosing",)
    actions: ClassVar[tuple[Action, ...]] = (FIRST, SECOND)
    deadline_labels: ClassVar[Mapping[str, str]] = {"choose": "choose"}
    events: ClassVar[tuple[str, ...]] = (CHOOSE, "choice_timeout")
    pings: ClassVar[tuple[str, ...]] = (CHOOSE,)
    words: ClassVar[Mapping[str, str]] = {
        "choose_not_you": "{chooser} chooses who starts.",
        "choose_first": "{chooser} must first choose who starts.",
        "no_rule:first": "That choice is not open any more.",
        "no_rule:second": "That choice is not open any more.",
        "not_player:first": "Only a player of this match can choose.",
        "not_player:second": "Only a player of this match can choose.",
        "held:advantage": "Waiting for the advantage player to choose who starts.",
        "choice_timeout": "{player} did not choose in time, so {player} moves first.",
        "log:choice": "first player chosen",
        "deadline:choose": "The choice of who starts ends {at}",
        CHOOSE: (
            "{player} has the advantage: post `first` to move first or `second` to let {opponent} start "
            "(within {time}; after that {player} moves first)."
        ),
        f"ping:{CHOOSE}": (
            "you have the advantage: post `first` to move first or `second` to let {opponent} start "
            "(within {time}; after that you move first)."
        ),
    }

    def __init__(self) -> None:
        self.chooser: int | None = None

    @classmethod
    def practice(cls, kind: str, data: Mapping[str, Any], bot: PracticeTurn) -> PracticeAnswer | None:
        """The practice opponent with the advantage moves first."""
        return PracticeAnswer(FIRST.keywords[0]) if kind == CHOOSE and data.get("chooser") == bot.player_id else None

    def open_actions(self, m: MatchView) -> list[OpenAction]:
        """First or second, while the choice is open."""
        if self.chooser is None or m.status != MatchStatus.HELD:
            return []
        return [OpenAction(FIRST, 0), OpenAction(SECOND, 0)]

    def in_play(self, m: MatchView) -> bool:
        """Only while someone has the choice of who starts."""
        return self.chooser is not None

    def on_create(self, m: MatchView, advantage: int | None) -> Effects | None:
        """Hold the start until the advantage player has chosen (or their time is up)."""
        if advantage is None:
            return None
        self.chooser = advantage
        limit = m.clocks.tc.move
        return Effects(
            status=MatchStatus.HELD,
            timers={"choose": limit},
            say=[Note(CHOOSE, {"chooser": m.player_id(advantage), "seconds": limit}, advantage)],
        )

    def on_keyword(self, m: MatchView, seat: int, action: str, at: float) -> Effects | None:
        """`first` or `second` from the chooser."""
        chooser = self.chooser
        if chooser is None or m.status != MatchStatus.HELD:
            return None
        if seat != chooser:
            raise Refused("choose_not_you", chooser=chooser)
        return self._choose(m, first=seat if action.partition(":")[0] == "first" else 3 - seat, how=None)

    def _choose(self, m: MatchView, first: int, how: str | None) -> Effects:
        chooser = self.chooser or first
        self.chooser = None
        data: dict[str, Any] = {"first": m.player_id(first)}
        if how:
            data["how"] = how
        return Effects(
            swap_seats=first != 1,
            status=MatchStatus.ONGOING,
            start=True,
            timers={"choose": None},
            log=[Log("choice", chooser, data)],
            say=[Note("choice_timeout", {"chooser": chooser}, chooser)] if how else [],
        )

    def on_timer(self, m: MatchView, name: str) -> Effects | None:
        """Time is up: the chooser moves first (the choice was theirs, the first move is theirs too)."""
        if self.chooser is None:
            return None
        return self._choose(m, first=self.chooser, how="timeout")

    def holding(self) -> bool:
        """While the choice is open."""
        return self.chooser is not None

    def gate(self, m: MatchView, seat: int) -> None:
        """Nobody moves before the choice."""
        if self.chooser is not None and m.status == MatchStatus.HELD:
            raise Refused("choose_first", kind="turn", chooser=self.chooser)

    def dump(self, now: float) -> dict[str, Any]:
        """Who still has to choose."""
        return {"chooser": self.chooser}

    def load(self, data: Mapping[str, Any], now: float) -> None:
        """Inverse of `dump`."""
        chooser = data.get("chooser")
        self.chooser = None if chooser is None else int(chooser)

    def load_legacy(self, flags: Mapping[str, Any], pending: Mapping[str, Any] | None, now: float) -> None:
        """Old flag: `chooser`."""
        self.load(flags, now)
