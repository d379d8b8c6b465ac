"""The words of series, rematches, time odds and the double-booking warning (used by the adapters)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.series.core import Series, SeriesStatus
from bot.text import Text, strong
from bot.wording import display
from bot.wording.counts import plural


def points(value: float) -> str:
    """A series score as people write it: `1`, `½`, `1½`."""
    whole, half = int(value), value - int(value) >= 0.5
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)


def series_line(series: Series, match_id: int) -> str:
    """The line under a series game's board header: `Series: alice 1–0 bob, best of 3 · game 2`."""
    one, two, number = series.score_of(match_id)
    a, b = (display(p.name) for p in series.players)
    return f"Series: {a} {points(one)}–{points(two)} {b}, best of {series.best_of} · game {number}"


def series_result(series: Series) -> Text:
    """The series' end, posted in its room."""
    one, two = series.points
    a, b = (display(p.name) for p in series.players)
    if series.status == SeriesStatus.ABORTED:
        score = f"{a} {points(one)}–{points(two)} {b}"
        return strong("The series ends without a result") + f" (game {series.game_number} was aborted): {score}."
    if series.winner is None:
        return strong("The series is drawn") + f": {a} {points(one)}–{points(two)} {b}, best of {series.best_of}."
    winner = a if series.winner == 1 else b
    high, low = max(one, two), min(one, two)
    return strong(f"{winner} wins the series") + f", {points(high)}–{points(low)} (best of {series.best_of})."


def double_booked(names: Sequence[str], match_ids: Sequence[int]) -> str:
    """The host's private warning before a second live match for a player."""
    who = " and ".join(display(n) for n in names)
    verb = "is" if len(names) == 1 else "are"
    matches = ", ".join(f"`#{m}`" for m in match_ids)
    return (
        f"{who} {verb} already playing a live match here ({matches}). Start this one anyway? "
        "The button works for you only, for one minute."
    )


def start_anyway() -> str:
    """The button under that warning."""
    return "Start anyway"


def warning_lapsed() -> str:
    """The warning's button after its minute."""
    return "That warning lapsed; run `/dm start` again."


def not_your_warning() -> str:
    """Someone else clicked the host's button."""
    return "Only the host who asked can start this match."


def rematch_offer(names: Sequence[str], minutes: int, series_of: int | None = None) -> str:
    """Under a finished board: who must click, and until when."""
    who = " and ".join(display(n) for n in names)
    what = f"a new best of {series_of}" if series_of else "a rematch"
    both = "click" if len(names) == 1 else "both click"
    return f"Play {what} with colours swapped? {who} {both} within {offer_length(minutes)}."


def offer_length(minutes: int) -> str:
    """How long an offer stays open: `10 minutes`, `6 hours`, `2 days`, `1 day 12 hours` (a correspondence
    match's offer lasts as long as a move)."""
    days, rest = divmod(max(0, minutes), 1440)
    hours, mins = divmod(rest, 60)
    if not days and not hours:
        return plural(mins, "minute")
    parts = [plural(days, "day")] if days else []
    if hours:
        parts.append(plural(hours, "hour"))
    if mins and not days:
        parts.append(plural(mins, "minute"))
    return " ".join(parts)


def rematch_button() -> str:
    """The rematch button's label."""
    return "Rematch"


def rematch_waiting(name: str, other: str) -> str:
    """One player clicked: the other still has to."""
    return f"{display(name)} wants a rematch; waiting for {display(other)}."


def rematch_noted() -> str:
    """The first click's private answer."""
    return "Noted: the rematch starts when your opponent clicks too."


def rematch_started(match_id: int, where: str) -> str:
    """The rematch is on."""
    return f"Rematch: match {match_id} has started{where}."


def rematch_lapsed() -> str:
    """A click after the offer lapsed (or after a restart)."""
    return "This rematch offer has lapsed."


def rematch_not_player() -> str:
    """A spectator clicked."""
    return "Only the players of this match can ask for a rematch."


def series_refusal(code: str) -> str:
    """`/dm start series:` refusals."""
    return {
        "even": "Series: give an odd number of games (3, 5, 7 or 9), so that someone wins.",
        "advantage": "Series: the first move alternates from game to game; choose who moves first in game 1.",
        "unavailable": "Series are not available here.",
    }[code]
