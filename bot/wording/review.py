"""Sentences of the match review: the page's note while its analysis is still to come, and the terminal
room's line while it waits for the analysis of the match that just ended."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.wording.counts import plural
from bot.wording.log import clock_words


def analysis_pending() -> str:
    """The review page of a finished match whose analysis is not stored yet."""
    return (
        "Analysis pending: the engine judges the moves in the background after the match ends; "
        "reload the page later (or run `dmhost log MATCH_ID --analyse`)."
    )


def analysing(match_id: int, seconds: float) -> str:
    """The terminal room, after the match: it waits for the analysis before it closes."""
    return (
        f"Analysing the moves (at most {seconds:g} s; Ctrl-C skips it, and "
        f"`dmhost log {match_id} --analyse` computes it later)."
    )


def page_reply(what: str, url: str | None) -> str:
    """`/dm tournament page`, `/dm ratings page`: the review page's address (`what`: whose page), or why
    there is none."""
    if url is None:
        return (
            f"{what} has a review page, but this bot has no public address for its pages: an operator sets "
            "`DMHOST_WEB_URL` to where `dmhost web` serves them."
        )
    return f"{what}: <{url}>"


def _on(value: object) -> str:
    return "on" if value else "off"


def option_words(game: str, options: Mapping[str, Any]) -> str:
    """A match's options as the rule cards say them ("8×8 points, cross start"), never a Python value:
    a switch is on or off, an unset limit is "no limit"."""
    opts = dict(options)
    said: list[str] = []
    if game == "boxes" and {"rows", "cols"} <= opts.keys():
        said.append(f"{opts.pop('rows')}×{opts.pop('cols')} boxes")
    if game == "dots" and {"width", "height"} <= opts.keys():
        said.append(f"{opts.pop('width')}×{opts.pop('height')} points")
        start = opts.pop("start", None)
        seed = opts.pop("seed", None)
        if start is not None:
            said.append(
                f"{str(start).replace('-', ' ')} start" + (f" (seed {seed})" if start == "four-crosses" else "")
            )
    if game == "dotdash":
        if "size" in opts:
            size = opts.pop("size")
            said.append(f"{size}×{size} points")
        if "variant" in opts:
            said.append(f"{opts.pop('variant')} variant")
        if "stones" in opts:
            said.append(plural(int(opts.pop("stones")), "stone") + " per colour")
    if game == "pathing":
        if "ruleset" in opts:
            said.append(f"{opts.pop('ruleset')} rules")
        if "layout" in opts:
            said.append(f"starting board {opts.pop('layout')}")
        if "max_rounds" in opts:
            limit = opts.pop("max_rounds")
            said.append("no round limit" if limit is None else f"at most {plural(int(limit), 'round')}")
    for key, value in opts.items():
        name = key.replace("_", " ")
        if isinstance(value, bool):
            said.append(f"{name} {_on(value)}")
        elif value is None:
            said.append(f"{name}: none")
        else:
            said.append(f"{name} {value}")
    return ", ".join(said) or "the game's defaults"


def _days(value: float) -> str:
    days = value / 86_400
    if days >= 1:
        return f"{days:g} day" if days == 1 else f"{days:.3g} days"
    hours = value / 3_600
    return f"{hours:.3g} hour" + ("" if hours == 1 else "s")


def page_clock_words(clock: Mapping[str, Any], *, with_window: bool = True) -> str:
    """A match's time control for its review page: the log's words (`clock_words`: a correspondence clock in
    days a move, with its bank), and for a correspondence match its reminder too."""
    said = clock_words(clock, with_window=with_window)
    remind = clock.get("remind")
    if clock.get("kind") == "correspondence" and remind:
        said += f", a reminder once {float(remind) * 100:.0f} % of a move's time is used"
    return said


CHART_CAPTIONS = {
    "boxes": "the exact solver's final margin under best play",
    "pathing": "the exact solver's margin on the round's support board",
    "trax": "forced wins the search sees (100 %: one for {one}; 0 %: one for {two}; 50 %: nothing forced)",
    "dots": "the engine's value: captured dots ahead",
    "dotdash": "the engine's value: open threes and fours, a five in a row winning",
}


def chart_caption(game: str, one: str, two: str) -> str:
    """What the review page's chart shows, in the game's terms (`one`, `two`: the seats' names)."""
    what = CHART_CAPTIONS.get(game, "the engine's value").format(one=one, two=two)
    return f"{one}'s chance to win after each ply (up: {one}, down: {two}), from {what}."


def value_words(game: str, value_p1: float) -> str:
    """A chart point's value, seat 1's side, in the game's units ("+2 boxes", "+1.3 dots")."""
    if game in ("boxes", "pathing"):
        return f"{value_p1:+g} box" + ("" if abs(value_p1) == 1 else "es")
    if game == "dots":
        dots = value_p1 / 10
        return "won" if dots >= 100 else "lost" if dots <= -100 else f"{dots:+.1f} dots"
    if game == "trax":
        return "forced win" if value_p1 > 0 else "forced loss" if value_p1 < 0 else "nothing forced"
    return "won" if value_p1 >= 100 else "lost" if value_p1 <= -100 else f"{value_p1:+g}"


def accuracy_words(name: str, good: int, judged: int) -> str:
    """A player's accuracy in the page's header: the share of best or good moves."""
    if not judged:
        return f"{name}: no move judged"
    return f"{name}: {round(100 * good / judged)} % best or good ({good} of {plural(judged, 'move')})"


NO_MOVES_ANALYSIS = "Analysis: no move was played in this match (it ended before the first one), so there is none."
"""The analysis of a match that ended before its first move."""

PAGE_FAILED = "Something went wrong on our side."
"""A review page that could not be built (an error of ours, logged)."""


def in_progress(result: str) -> str:
    """The result of a match not over yet, on its page."""
    return f"In progress ({result})."


# The notes under `/dm log`'s files: what had to be left out to fit the upload limit.

ANALYSIS_NOT_READY = "The move analysis is not ready yet: it is computed in the background."
REPLAY_LEFT_OUT = "The replay was left out: even two frames do not fit the upload limit."


def file_left_out(name: str) -> str:
    """A file that does not fit the upload limit."""
    return f"{name} was left out: it does not fit the upload limit."


def replay_thinned(every: int, count: int) -> str:
    """The replay shows fewer positions to fit."""
    return f"The replay shows every {every}th position ({count} frames) to fit the upload limit."


def replay_failed(error: str) -> str:
    """The replay could not be drawn (`error`: the exception's name)."""
    return f"The replay could not be drawn ({error})."
