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


# -- moves without the message-content intent (`DMHOST_MESSAGE_CONTENT=off`) ------------------------------

MOVES_BY_MESSAGE = "Post each move as its own message in the room."
"""How the moves cards (`seeds/rules/moves/`) say to move: true only with the message-content intent."""


def how_to_move(message_content: bool, bot_name: str, example: str = "A1-B1") -> str:
    """How a player hands in a move on this bot: a plain message, or (without the message-content intent, when
    the bot reads only messages that mention it) a mention of the bot or `/move text:`."""
    if message_content:
        return MOVES_BY_MESSAGE
    return (
        f"Move by mentioning the bot: `@{display(bot_name)} {example}`, or with `/move text:{example}` "
        "(this bot reads only the messages that mention it)."
    )


def board_move_note(bot_name: str) -> str:
    """The line under a board's header when moves come by mention or `/move`."""
    return f"To move: `@{display(bot_name)} <your move>` or `/move text:<your move>`."


def help_moves_line(message_content: bool, bot_name: str) -> str:
    """The last line of `/dm help`: where moves are written."""
    if message_content:
        return "Moves are plain messages in the game room; `/dm rules game:` shows how to write them."
    return (
        f"Moves: mention the bot in the game room (`@{display(bot_name)} A1-B1`) or use `/move text:`; "
        "`/dm rules game:` shows how to write them."
    )


def move_played(who: str, move: str) -> str:
    """The room's line for a move handed in with `/move` (as the player's own message would show it)."""
    return f"{display(who)}: {quote(move)}"


def move_no_match() -> str:
    """`/move` where the player plays no match."""
    return "You play no match in this room: `/move` plays your move in the room of your match."


def move_not_read(text: str, why: str) -> str:
    """`/move` with a text the host does not take as a move (chat, empty, …)."""
    return f"{quote(text)} was not taken ({why}); write a move as the game's card says (`/dm rules game:`)."


def over_already(match_id: int, result: str) -> str:
    """A move posted in the room after the author's match there ended."""
    return f"Match {match_id} is over: {result}. No more moves are taken; `/dm log` shows its record."


MATCH_OVER = "The match is over."
"""The result under the final position when the room has no result line."""


def move_seconds_left(left: str) -> str:
    """A clock warning for the player it pings: `left` seconds for this move."""
    return f"{left} s left for this move."


def seconds_left(left: str) -> str:
    """A clock warning for the player it pings: `left` seconds before they lose on time."""
    return f"{left} s left before you lose on time."
