"""The sentence a refused `at:` (or a tournament's `start:`) ends with (issue 37): which zone times without
one are read in, and where a host changes it."""

from __future__ import annotations


def zone_note(tz: str | None) -> str:
    """The note: times without a zone are read in the server's zone (`/dm config timezone:` sets it)."""
    return (
        f"Times without a zone are read in this server's zone, {tz or 'UTC'} "
        "(a host sets it with `/dm config timezone:`)."
    )
