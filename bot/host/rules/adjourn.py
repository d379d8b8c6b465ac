"""Adjournment by agreement: a player proposes `adjourn for 2h`, the opponent accepts, and the match rests
with both clocks stopped until the agreed time; then it resumes by itself.

The ruling (the Death Match rules say nothing of adjournments): off unless the host sets `adjourn=on`;
either player may propose while the game is in play and no move is provisional, for 1 minute to 7 days;
only the opponent accepts, before their own move (a move lets it lapse, like a draw offer); while
adjourned nobody moves and both clocks stand where they stood (the mover's move time is not restarted);
a host pause freezes the adjournment's end too; a restart keeps the rest and its end."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from bot.host.rules.base import Action, Effects, HouseRule, Log, MatchView, Note, OpenAction, Refused
from bot.text import Text, chat_only, code
from bot.types import MatchStatus

UNITS = {"m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60, "h": 3600, "hour": 3600, "hours": 3600}
UNITS.update({"d": 86400, "day": 86400, "days": 86400})
LONGEST = 7 * 86400
"""An adjournment lasts at most a week (a live clock stays within a week, as `TimeControl` does)."""
_SPAN = re.compile(r"adjourn(?: for)? (\d{1,4}) ?([a-z]+)")

PROPOSE = Action("adjourn", ("adjourn",), answered_when_off=True)
ACCEPT = Action(
    "accept_adjourn",
    ("accept adjournment", "accept adjourn", "accept the adjournment"),
    "adjourn",
    "Accept adjournment",
    "success",
    answered_when_off=True,
)


def span(seconds: int) -> str:
    """`90m` → `1h30m`, `2d`: the agreed time, as short as the player wrote it."""
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    return "".join(f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m")) if n) or "0m"


class Adjournment(HouseRule):
    """`adjourn=on`: `adjourn for <n>m|h|d` proposes a rest; the opponent's `accept adjournment` (or the
    button) stops both clocks until then, and the match resumes by itself. A move by the opponent, instead
    of accepting, lets the proposal lapse."""

    key: ClassVar[str] = "adjourn"
    card: ClassVar[str | None] = (
        "`adjourn=on|off` (off by default): a player proposes a rest with `adjourn for 30m` (or `2h`, `1d`; at\n"
        "most 7 days); the opponent agrees with `accept adjournment` (or the button) before their own move, else\n"
        "the proposal lapses. While adjourned both clocks are stopped and nobody moves; at the agreed time the\n"
        "match resumes by itself, with the clock of the player on move running again where it stood."
    )
    order: ClassVar[int] = 75
    games: ClassVar[tuple[str, ...] | None] = ("boxes", "trax", "dots", "pathing", "dotdash")
    default: ClassVar[Any] = False
    in_defaults: ClassVar[bool] = False
    holds: ClassVar[tuple[MatchStatus, ...]] = (MatchStatus.HELD,)
    actions: ClassVar[tuple[Action, ...]] = (PROPOSE, ACCEPT)
    deadline_labels: ClassVar[Mapping[str, str]] = {"until": "adjourned"}
    events: ClassVar[tuple[str, ...]] = ("adjourn_offer", "adjourn_lapsed", "adjourned", "adjourn_over")
    pings: ClassVar[tuple[str, ...]] = ("adjourn_offer",)
    words: ClassVar[Mapping[str, str | Text]] = {
        "adjourn_offer": (
            "{offerer} proposes to adjourn the match for {span}, clocks stopped. {player}, post "
            + code("accept adjournment")
            + chat_only(" (or press Accept adjournment)")
            + " to agree; your move declines it."
        ),
        "adjourn_lapsed": "{opponent} moved instead of agreeing, so {player}'s proposal to adjourn lapsed.",
        "adjourned": "Adjourned by agreement for {span}: both clocks are stopped, and the match resumes by itself.",
        "adjourn_over": "The adjournment is over: the match goes on. {turn}",
        "adjourn_how": "Say for how long: `adjourn for 30m`, `adjourn for 2h` or `adjourn for 1d` (at most 7d).",
        "adjourn_not_now": "The match can be adjourned only while the game is in play.",
        "adjourn_standing": "Your proposal stands: {opponent} may accept it before their next move.",
        "adjourn_theirs": "{opponent} has proposed to adjourn: post `accept adjournment` to agree.",
        "adjourn_no_offer": "There is no proposal to adjourn for you to accept.",
        "adjourn_resting": "The match is adjourned: it resumes by itself at the agreed time.",
        "held:adjourn": "Adjourned by agreement: the match resumes by itself at the agreed time.",
        "deadline:adjourned": "The adjournment ends {at}",
        "log:adjourn_offer": "adjournment proposed",
        "log:adjourned": "adjourned",
        "log:adjourn_lapsed": "adjournment lapsed",
        "log:adjourn_over": "adjournment over",
        "logline:adjourn_offer": "for {span}",
        "logline:adjourned": "for {span}",
        "setting:adjourn": "adjournment by agreement",
        "no_rule:adjourn": "This match has no adjournments (a host starts one with the rule `adjourn=on`).",
        "no_rule:accept_adjourn": "This match has no adjournments (a host starts one with the rule `adjourn=on`).",
    }

    @classmethod
    def phrase_action(cls, norm: str) -> str | None:
        """`adjourn for 2h` (or `adjourn 30 min`) → `adjourn:7200`."""
        m = _SPAN.fullmatch(norm)
        if m is None or m.group(2) not in UNITS:
            return None
        return f"{PROPOSE.name}:{int(m.group(1)) * UNITS[m.group(2)]}"

    def __init__(self) -> None:
        self.offer: tuple[int, int] | None = None
        """(proposer's seat, seconds) of the standing proposal."""
        self.resting = False
        """Adjourned now: the clocks are stopped until the rule's timer."""

    def describe(self) -> str:
        """`adjourn=on`."""
        return "adjourn=on"

    def on_keyword(self, m: MatchView, seat: int, action: str, at: float) -> Effects | None:
        """A proposal from either player while the game is in play; its acceptance from the other one."""
        name, _, value = action.partition(":")
        if name == PROPOSE.name:
            return self._propose(m, seat, value)
        offer = self.offer
        if offer is None or offer[0] == seat or m.status != MatchStatus.ONGOING:
            raise Refused("adjourn_no_offer")
        self.offer, self.resting = None, True
        data = {"seconds": offer[1], "span": span(offer[1])}
        return Effects(
            status=MatchStatus.HELD,
            clock=["pause"],
            timers={"until": float(offer[1])},
            log=[Log("adjourned", seat, data)],
            say=[Note("adjourned", data)],
        )

    def _propose(self, m: MatchView, seat: int, value: str) -> Effects:
        if m.status != MatchStatus.ONGOING or m.to_move() is None or m.provisional() is not None:
            raise Refused("adjourn_not_now")
        if not value.isdigit() or not 60 <= int(value) <= LONGEST:
            raise Refused("adjourn_how")
        if self.offer is not None and self.offer[0] == seat:
            raise Refused("adjourn_standing", opponent=3 - seat)
        if self.offer is not None:
            raise Refused("adjourn_theirs", opponent=self.offer[0])
        self.offer = (seat, int(value))
        data = {"offerer": seat, "seconds": int(value), "span": span(int(value))}
        return Effects(log=[Log("adjourn_offer", seat, data)], say=[Note("adjourn_offer", data, 3 - seat)])

    def after_play(self, m: MatchView, seat: int, notation: str, message_id: str | None, at: float) -> Effects | None:
        """The opponent moved instead of agreeing: the proposal lapses (the proposer's own moves keep it)."""
        offer = self.offer
        if offer is None or seat == offer[0]:
            return None
        self.offer = None
        return Effects(
            log=[Log("adjourn_lapsed", offer[0])], say=[Note("adjourn_lapsed", {"offerer": offer[0]}, offer[0])]
        )

    def gate(self, m: MatchView, seat: int) -> None:
        """Nobody moves while the match rests."""
        if self.resting:
            raise Refused("adjourn_resting", kind="paused")

    def on_timer(self, m: MatchView, name: str) -> Effects | None:
        """The agreed time has come: the match resumes, the clock of the player on move runs again."""
        if not self.resting:
            return None
        self.resting = False
        return Effects(
            status=MatchStatus.ONGOING, clock=["resume"], log=[Log("adjourn_over")], say=[Note("adjourn_over")]
        )

    def open_actions(self, m: MatchView) -> list[OpenAction]:
        """The opponent's acceptance, while a proposal stands."""
        if self.offer is None or m.status != MatchStatus.ONGOING:
            return []
        return [OpenAction(ACCEPT, m.ply, actor=3 - self.offer[0])]

    def holding(self) -> bool:
        """While the match rests."""
        return self.resting

    def on_rewind(self) -> Effects | None:
        """A proposal does not survive turns being undone."""
        self.offer = None
        return None

    def on_finish(self) -> None:
        """Nothing outlives the match."""
        self.offer, self.resting = None, False

    def dump(self, now: float) -> dict[str, Any]:
        """The standing proposal and whether the match rests (the end time is the rule's timer)."""
        return {"offer": None if self.offer is None else list(self.offer), "resting": self.resting}

    def load(self, data: Mapping[str, Any], now: float) -> None:
        """Inverse of `dump`."""
        offer = data.get("offer")
        self.offer = None if offer is None else (int(offer[0]), int(offer[1]))
        self.resting = bool(data.get("resting"))
