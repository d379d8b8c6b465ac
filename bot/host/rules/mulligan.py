"""Mulligan: a player may rewind their own last turn and everything played after it."""

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
    RulesError,
)
from bot.types import MatchStatus

OFFER_SECONDS = 60.0
MAX_COUNT = 9
USED = "mulligan"
"""The event and log entry of a mulligan used."""
OFFERED = "mulligan_offer"
"""The event and log entry of a mulligan offered to the loser."""
USE = Action("mulligan", ("mulligan", "use mulligan"), "mull", "Use mulligan", "primary", command=True)
DECLINE = Action("decline", ("decline", "no mulligan", "decline mulligan"), "decl", "Decline mulligan")


class Mulligan(HouseRule):
    """`count` mulligans per player; a win against a player who still has one waits for their answer."""

    key: ClassVar[str] = "mulligan"
    card: ClassVar[str | None] = (
        "`mulligan=N`: each player may rewind N times (0 = none). On your own turn, or right after a\n"
        "result the board decided against you, your own last turn and everything played after it are\n"
        "undone and it is your turn again: usually that is your turn and your opponent's reply; when your\n"
        "own move handed your opponent the win, nothing came after it and only your turn is undone. Your\n"
        "clock restarts; a used grace stays used. A decided result waits up to 60 s for `mulligan` or\n"
        "`decline` (silence confirms it). Losses on time, by resignation or by the host's award are final."
    )
    order: ClassVar[int] = 30
    default: ClassVar[Any] = 0
    game_defaults: ClassVar[Mapping[str, Any]] = {"trax": 1}
    holds: ClassVar[tuple[MatchStatus, ...]] = (MatchStatus.HELD,)
    legacy_statuses: ClassVar[tuple[str, ...]] = ("mulligan_wait",)
    actions: ClassVar[tuple[Action, ...]] = (USE, DECLINE)
    deadline_labels: ClassVar[Mapping[str, str]] = {"offer": "mulligan_offer"}
    events: ClassVar[tuple[str, ...]] = (USED, OFFERED)
    pings: ClassVar[tuple[str, ...]] = (OFFERED,)
    redraws: ClassVar[tuple[str, ...]] = (USED,)
    needs_history: ClassVar[bool] = True
    legacy_timers: ClassVar[Mapping[str, str]] = {"mulligan": "offer"}
    words: ClassVar[Mapping[str, str]] = {
        "command:mulligan": "Use your mulligan (Trax)",
        "done:mulligan": "Mulligan used in match {match}.",
        "mulligan": "{player} used their mulligan: the last {rewound} turn(s) are rewound. {turn}",
        "mulligan_offer": (
            "{winner} completed a {reason}. {loser}, you still have your mulligan: "
            "post `mulligan` to rewind, or `decline` (you have {seconds:g} s)."
        ),
        "ping:mulligan_offer": (
            "{winner} completed a {reason}; you still have your mulligan: post "
            "`mulligan` to rewind, or `decline` (you have {seconds:g} s)."
        ),
        "mulligan_used": "You have already used your mulligan.",
        "mulligan_own_turn": "You can use your mulligan on your own turn.",
        "mulligan_winner": "Only the player who lost can use a mulligan now.",
        "mulligan_nothing": "You have no turn of your own to rewind yet.",
        "mulligan_no_offer": "There is no mulligan offer for you to decline.",
        "no_rule:mulligan": "This match has no mulligans.",
        "no_rule:decline": "There is no mulligan offer for you to decline.",
        "not_player:mulligan": "only a player of this match can use a mulligan",
        "not_player:decline": "only a player of this match can decline",
        "deadline:mulligan_offer": "The mulligan offer ends {at}",
        "log:mulligan": "mulligan",
        "log:mulligan_offer": "mulligan offered",
        "log:mulligan_declined": "mulligan declined",
        "logline:mulligan": "rewound to ply {to_ply}",
        "setting:mulligan": "{value} mulligan{s} each",
        "held:mulligan": "Waiting for the mulligan answer.",
    }

    @classmethod
    def log_rewind(cls, kind: str, data: Mapping[str, Any], ply: int) -> int | None:
        """A logged mulligan goes back to the ply before the user's own last turn (`to_ply`)."""
        return min(ply, int(data.get("to_ply", ply))) if kind == USED else None

    @classmethod
    def practice(cls, kind: str, data: Mapping[str, Any], bot: PracticeTurn) -> PracticeAnswer | None:
        """Offered its mulligan, the practice opponent takes it when it would take its move back (and avoids
        that move afterwards), else declines."""
        if kind != OFFERED or not bot.mine:
            return None
        if not bot.may_undo:
            return PracticeAnswer(DECLINE.keywords[0])
        return PracticeAnswer(USE.keywords[0], undoes_last=True, otherwise=DECLINE.keywords[0])

    def __init__(self, count: int, offer_seconds: float = OFFER_SECONDS) -> None:
        self.count = count
        self.offer_seconds = offer_seconds
        self.used: dict[int, int] = {1: 0, 2: 0}
        self.offer: tuple[int, str] | None = None
        """(winner, reason) of a result that waits for the loser's answer."""

    def describe(self) -> str:
        """`mulligan=1`."""
        return f"mulligan={self.count}"

    @classmethod
    def parse(cls, text: str) -> Any:
        """Mulligans per player (0 = off)."""
        text = text.strip()
        if not text.isdigit() or int(text) > MAX_COUNT:
            raise RulesError("rule_count", rule=cls.key, value=text)
        return int(text)

    @classmethod
    def build(cls, value: Any) -> HouseRule | None:
        """On with at least one mulligan."""
        return cls(int(value)) if value else None

    def open_actions(self, m: MatchView) -> list[OpenAction]:
        """Use or decline, while a win waits for the answer."""
        return [] if self.offer is None else [OpenAction(USE, m.ply), OpenAction(DECLINE, m.ply)]

    def on_keyword(self, m: MatchView, seat: int, action: str, at: float) -> Effects | None:
        """`mulligan` or `decline`."""
        if self.count <= 0:
            return None
        return self._use(m, seat) if action.partition(":")[0] == "mulligan" else self._decline(seat, "player")

    def _use(self, m: MatchView, seat: int) -> Effects:
        if self.used[seat] >= self.count:
            raise Refused("mulligan_used")
        if self.offer is None:
            if m.status != MatchStatus.ONGOING or m.provisional() is not None or m.to_move() != seat:
                raise Refused("mulligan_own_turn")
        elif self.offer[0] == seat:
            raise Refused("mulligan_winner")
        # Their own last turn and every turn after it: usually also the opponent's reply; when their
        # own move handed the opponent the win, nothing came after it and only that turn goes.
        idx = max((i for i, (s, _b, _p) in enumerate(m.history) if s == seat), default=None)
        if idx is None:
            raise Refused("mulligan_nothing")
        to_ply = m.history[idx][2]
        rewound = m.ply - to_ply
        self.used[seat] += 1
        self.offer = None
        return Effects(
            rewind_to=idx,
            status=MatchStatus.ONGOING,
            clock=["restart"],
            timers={"offer": None},
            log=[Log(USED, seat, {"rewound_plies": rewound, "to_ply": to_ply})],
            say=[Note(USED, {"rewound": rewound}, seat)],
        )

    def _decline(self, seat: int, how: str) -> Effects:
        offer = self.offer
        if offer is None or offer[0] == seat:
            raise Refused("mulligan_no_offer")
        self.offer = None
        data = {} if how == "player" else {"how": how}
        return Effects(
            status=MatchStatus.ONGOING,
            timers={"offer": None},
            finish=offer,
            log=[Log("mulligan_declined", seat, data)],
        )

    def at_result(self, m: MatchView, winner: int | None, reason: str) -> Effects | None:
        """A win against a player with a mulligan left waits for their answer."""
        if self.count <= 0 or winner is None:
            return None
        loser = 3 - winner
        if self.used[loser] >= self.count or not any(s == loser for s, _b, _p in m.history):
            return None
        self.offer = (winner, reason)
        return Effects(
            status=MatchStatus.HELD,
            clock=["stop"],
            timers={"offer": self.offer_seconds},
            log=[Log(OFFERED, loser, {"winner": winner, "reason": reason})],
            say=[
                Note(
                    OFFERED,
                    {"winner": winner, "loser": loser, "reason": reason, "seconds": self.offer_seconds},
                    loser,
                )
            ],
        )

    def holding(self) -> bool:
        """While a win waits for the loser's answer."""
        return self.offer is not None

    def gate(self, m: MatchView, seat: int) -> None:
        """While the loser decides, the game is over for moves."""
        if self.offer is not None:
            raise Refused("over", kind="finished")

    def on_timer(self, m: MatchView, name: str) -> Effects | None:
        """No answer in time confirms the win."""
        if self.offer is None:
            return None
        return self._decline(3 - self.offer[0], "timeout")

    def on_finish(self) -> None:
        """No offer outlives the match."""
        self.offer = None

    def dump(self, now: float) -> dict[str, Any]:
        """Mulligans used and the open offer."""
        return {
            "used": {str(k): v for k, v in self.used.items()},
            "offer": None if self.offer is None else list(self.offer),
        }

    def load(self, data: Mapping[str, Any], now: float) -> None:
        """Inverse of `dump`."""
        self.used = {int(k): int(v) for k, v in data.get("used", {}).items()} or {1: 0, 2: 0}
        offer = data.get("offer")
        self.offer = None if offer is None else (int(offer[0]), str(offer[1]))

    def load_legacy(self, flags: Mapping[str, Any], pending: Mapping[str, Any] | None, now: float) -> None:
        """Old flags: `mulligan_used_<seat>` and `mulligan_wait`."""
        self.used = {s: int(bool(flags.get(f"mulligan_used_{s}"))) for s in (1, 2)}
        wait = flags.get("mulligan_wait")
        self.offer = None if wait is None else (int(wait["winner"]), str(wait["reason"]))
