"""Sentences of the match review: the page's note while its analysis is still to come, and the terminal
room's line while it waits for the analysis of the match that just ended."""

from __future__ import annotations


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
