"""Confirmations and edits in a Discord room (issue 28, points 1 and 10)."""

from __future__ import annotations

from bot.wording.basics import display, quote

CONFIRM_LABEL = "Confirm"
CANCEL_LABEL = "Cancel"

_ENDS_PLAY = {"stop": "you place no more dots, and your dots not joined to the edge go to your opponent"}
"""What confirming a move that gives up the mover's play means, by its notation (`Grave.text`)."""


def confirm_question(action: str, who: str, move: str, within: float) -> str:
    """The prompt with Confirm / Cancel under a resignation or a play-ending move (`action` as in `Grave`)."""
    tail = f"Confirm within {within:g} s; the clocks keep running."
    if action == "resign":
        return f"{display(who)}, do you resign this match? {tail}"
    means = _ENDS_PLAY.get(move, "it ends your play in this game")
    return f"{display(who)}, play {quote(move)}? Then {means}. {tail}"


def confirm_done(action: str, who: str, move: str) -> str:
    """The prompt once confirmed (the board announces what follows)."""
    if action == "resign":
        return f"Confirmed: {display(who)} resigns."
    return f"Confirmed: {display(who)} plays {quote(move)}."


def confirm_cancelled(action: str, who: str, move: str) -> str:
    """The prompt once cancelled."""
    what = "resign" if action == "resign" else f"play {quote(move)}"
    return f"Cancelled: {display(who)} did not {what}; the game goes on."


def confirm_lapsed(action: str, who: str, move: str, within: float) -> str:
    """The prompt when nobody confirmed it in time."""
    what = "resign" if action == "resign" else f"play {quote(move)}"
    return f"Lapsed: not confirmed within {within:g} s, so {display(who)} did not {what}."


def confirm_moved_on(move: str) -> str:
    """A move confirmed after the position it was asked in changed."""
    return f"The game moved on since you asked: {quote(move)} was not played. Post it again if you still mean it."


def confirm_closed() -> str:
    """A press on a prompt that was answered already (or that a restart left without its question)."""
    return "This question was answered already: nothing more was done."


def confirm_only(who: str) -> str:
    """Someone else pressed a player's Confirm / Cancel."""
    return f"Only {display(who)} can answer this."


def edit_after_move(move: str) -> str:
    """A player edited the message of a move already played."""
    return f"Edits don't change a move already played: {quote(move)} stands."


def edit_not_read(text: str) -> str:
    """A player edited a message that was not taken as a move into something that looks like one."""
    return f"Edits aren't read as moves: post {quote(text)} as a new message."


def over_already(match_id: int, result: str) -> str:
    """A move posted in the room after the author's match there ended."""
    return f"Match {match_id} is over: {result}. No more moves are taken; `/dm log` shows its record."
