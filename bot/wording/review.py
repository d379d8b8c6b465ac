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


def page_reply(what: str, url: str | None) -> str:
    """`/dm tournament page`, `/dm ratings page`: the review page's address (`what`: whose page), or why
    there is none."""
    if url is None:
        return (
            f"{what} has a review page, but this bot has no public address for its pages: an operator sets "
            "`DMHOST_WEB_URL` to where `dmhost web` serves them."
        )
    return f"{what}: <{url}>"
