"""Player names given on the command line (`dmhost room --player`, `schedule add --player`, `tournament
join`): what a terminal room can read back in a line `NAME: text`."""

from __future__ import annotations

from collections.abc import Iterable

MAX_NAME = 40
"""The longest name a room line `NAME: text` is read with."""


def name_problem(names: Iterable[str], taken: Iterable[str] = ()) -> str | None:
    """What is wrong with these names (one sentence), or None: each non-empty, not blank, without `:` or a
    line break, at most 40 characters, and no two the same once case is ignored (nor one of `taken`)."""
    seen = {t.strip().casefold(): t.strip() for t in taken}
    for name in names:
        if not name.strip():
            return "a player's name cannot be empty or blank"
        if any(c in name for c in "\r\n\t\v\f\x00") or not name.isprintable():
            return f"a player's name cannot hold a line break or control character: {name!r}"
        if ":" in name:
            return f"a player's name cannot hold `:` (a line `NAME: text` could not name them): {name!r}"
        if len(name.strip()) > MAX_NAME:
            return f"a player's name is at most {MAX_NAME} characters: {name.strip()[:MAX_NAME]!r}…"
        key = name.strip().casefold()
        if key in seen:
            return f"{seen[key]!r} and {name.strip()!r} are the same name: give two different players"
        seen[key] = name.strip()
    return None


def clean_name(name: str, limit: int = MAX_NAME) -> str | None:
    """A name read from elsewhere (a Discord server's), made safe to keep and show by the rules above: every
    control, line-break or direction-override character becomes a space, runs of spaces one, and the result is
    cut to `limit` characters (an ellipsis marks the cut). None when nothing is left."""
    clean = " ".join("".join(c if c.isprintable() else " " for c in name[: limit * 4]).split())
    if len(clean) > limit:
        clean = clean[: limit - 1].rstrip() + "…"
    return clean or None
