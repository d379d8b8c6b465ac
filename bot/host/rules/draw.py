"""Draw offers: a player offers a draw; the opponent accepts before making their own move, else it lapses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bot.host.rules.base import Action, Effects, HouseRule, Log, MatchView, Note, OpenAction, Refused
from bot.text import Text, chat_only, code
from bot.types import EndReason, MatchStatus

OFFER = Action("offer_draw", ("offer draw", "offer a draw", "draw offer"), "draw", "Offer draw", answered_when_off=True)
ACCEPT = Action(
    "accept_draw",
    ("accept draw", "accept the draw", "accept draw offer"),
    "accept",
    "Accept draw",
    "success",
    answered_when_off=True,
)


class DrawOffer(HouseRule):
    """`draw=on`: `offer draw` (or the button) stands until the opponent moves; `accept draw` ends the
    match with no winner, by agreement."""

    key: ClassVar[str] = "draw"
    card: ClassVar[str | None] = (
        "`draw=on|off` (off by default): a player may offer a draw with `offer draw` (or the button); the\n"
        "opponent accepts with `accept draw` (or the button) before making their own move, else the offer\n"
        "lapses. An accepted offer ends the match with no winner, by agreement (`reason: agreement`)."
    )
    order: ClassVar[int] = 70
    default: ClassVar[Any] = False
    in_defaults: ClassVar[bool] = False
    actions: ClassVar[tuple[Action, ...]] = (OFFER, ACCEPT)
    events: ClassVar[tuple[str, ...]] = ("draw_offer", "draw_lapsed")
    words: ClassVar[Mapping[str, str | Text]] = {
        "draw_offer": (
            "{opponent} offers a draw. {player}, post "
            + code("accept draw")
            + chat_only(" (or press Accept draw)")
            + " before your next move to accept; your move lets it lapse."
        ),
        "draw_lapsed": "{opponent} moved instead of accepting, so {player}'s draw offer lapsed.",
        "draw_not_now": "A draw can be offered only while the game is in play.",
        "draw_standing": "Your draw offer stands: {opponent} may accept it before their next move.",
        "draw_theirs": "{opponent} has offered a draw: post `accept draw` to accept it.",
        "draw_no_offer": "There is no draw offer for you to accept.",
        "log:draw_offer": "draw offered",
        "log:draw_accepted": "draw accepted",
        "log:draw_lapsed": "draw offer lapsed",
        "logline:draw_offer": "{text}",
        "logline:draw_accepted": "{text}",
        "logline:draw_lapsed": "{text}",
        "no_rule:offer_draw": "This match has no draw offers (a host starts one with the rule `draw=on`).",
        "no_rule:accept_draw": "This match has no draw offers (a host starts one with the rule `draw=on`).",
    }

    def __init__(self) -> None:
        self.offer: int | None = None
        """The seat whose offer stands."""

    def describe(self) -> str:
        """`draw=on`."""
        return "draw=on"

    def on_keyword(self, m: MatchView, seat: int, action: str, at: float) -> Effects | None:
        """`offer draw` from either player while the game is in play; `accept draw` from the other one."""
        if action.partition(":")[0] == OFFER.name:
            if m.status != MatchStatus.ONGOING or m.to_move() is None:
                raise Refused("draw_not_now")
            if self.offer == seat:
                raise Refused("draw_standing", opponent=3 - seat)
            if self.offer is not None:
                raise Refused("draw_theirs", opponent=self.offer)
            self.offer = seat
            return Effects(log=[Log("draw_offer", seat)], say=[Note("draw_offer", {"offerer": seat}, 3 - seat)])
        if self.offer is None or self.offer == seat or m.status != MatchStatus.ONGOING:
            raise Refused("draw_no_offer")
        self.offer = None
        return Effects(log=[Log("draw_accepted", seat)], finish=(None, EndReason.AGREEMENT.value))

    def after_play(self, m: MatchView, seat: int, notation: str, message_id: str | None, at: float) -> Effects | None:
        """The opponent moved instead of accepting: the offer lapses (the offerer's own moves keep it)."""
        offerer = self.offer
        if offerer is None or seat == offerer:
            return None
        self.offer = None
        return Effects(log=[Log("draw_lapsed", offerer)], say=[Note("draw_lapsed", {"offerer": offerer}, offerer)])

    def open_actions(self, m: MatchView) -> list[OpenAction]:
        """Offer while nothing stands; accept (the opponent only) while an offer stands."""
        if m.status != MatchStatus.ONGOING or m.to_move() is None:
            return []
        if self.offer is None:
            return [OpenAction(OFFER, m.ply)]
        return [OpenAction(ACCEPT, m.ply, actor=3 - self.offer)]

    def on_rewind(self) -> Effects | None:
        """An offer does not survive turns being undone."""
        self.offer = None
        return None

    def on_finish(self) -> None:
        """No offer outlives the match."""
        self.offer = None

    def dump(self, now: float) -> dict[str, Any]:
        """The standing offer."""
        return {"offer": self.offer}

    def load(self, data: Mapping[str, Any], now: float) -> None:
        """Inverse of `dump`."""
        offer = data.get("offer")
        self.offer = None if offer is None else int(offer)
