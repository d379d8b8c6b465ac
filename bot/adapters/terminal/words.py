"""What the terminal room reads itself, before a line goes to the host: `help`/`?`, `quit`/`exit` (and Ctrl-C:
leave, the match stays resumable), `vacation N`, who an unnamed withdrawal of a provisional move belongs to (the
player who just moved). What it says back is in `bot.wording.terminal`; the room renders it with
`bot.text.plain` (times in UTC, no marks, nothing only a chat has)."""

from __future__ import annotations

import re
from typing import Any, Final

from bot.host import rules as house_rules
from bot.host.match import keyword
from bot.wording.terminal import vacation_days_refused

HELP_WORDS: Final = frozenset({"help", "?", "/help", "commands"})
LEAVE_WORDS: Final = frozenset({"quit", "exit", "/quit", "/exit", "leave"})
INTERRUPT: Final = "\x00interrupt\n"
"""The line the room's SIGINT handler puts on its input queue (no reader ever yields it: NUL starts it)."""


def word(text: str) -> str:
    """A line's text as the room compares it: trimmed, lower case, trailing `.`/`!` left out."""
    return text.strip().lower().rstrip(".!")


def is_help(text: str) -> bool:
    """`help` or `?`."""
    return word(text) in HELP_WORDS


def is_leave(text: str) -> bool:
    """`quit`, `exit` (or the Ctrl-C marker)."""
    return text == INTERRUPT or word(text) in LEAVE_WORDS


def is_withdraw(text: str) -> bool:
    """A phrase of the action that withdraws a provisional move (`HouseRule.withdraw`), if a rule declares one."""
    name = house_rules.withdraw_action()
    return name is not None and keyword(text) == name


_VACATION = re.compile(r"^vacation(?:\s+(\S+))?$")
MAX_VACATION_DAYS: Final = 366


def vacation_days(text: str) -> int | str | None:
    """`vacation N` (N whole days, 0 ends a vacation): N; `vacation` with anything else as its one word
    (`vacation -1`, `vacation abc`, `vacation` alone): why it is refused; None for any other line (chat)."""
    found = _VACATION.match(word(text))
    if found is None:
        return None
    said = found.group(1)
    if said is None:
        return vacation_days_refused(None)
    if not said.isdigit() or int(said) > MAX_VACATION_DAYS:
        return vacation_days_refused(said)
    return int(said)


def withdrawer_seat(live: Any) -> int | None:
    """The seat an unnamed withdrawal is for: the provisional move's author, else the last mover."""
    pending = live.provisional()
    if pending is not None:
        return int(pending.seat)
    if live.history:
        return int(live.history[-1][0])
    to_move = live.ruleset.to_move(live.state)
    return None if to_move is None else 3 - int(to_move)


def leave_on_sigint(lines: Any) -> None:
    """Ctrl-C (SIGINT) leaves the room as `quit` does: the resume line, exit 0, the match resumable."""
    import asyncio
    import signal

    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, lines.put_nowait, INTERRUPT)
    except (NotImplementedError, RuntimeError):  # no signal handlers on this platform or thread
        pass
