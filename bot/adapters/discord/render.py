"""Words (`bot.text.Text`) as Discord shows them: Markdown marks, moments as `<t:…>` timestamps (each reader
sees their own zone), and words that can never ping or show as a mention.

This is the one place that keeps names from acting on Discord: every `@` in the words (a plain string, names,
code, plain runs) that would start a mention gets a zero-width space after it, so `@everyone`, `@here`,
`<@user>` and `<@&role>` typed into a name or a move are shown as typed and never highlighted. What pings is
what this adapter put in on purpose: a `verbatim` run (`bot.text.verbatim`: a mention made by `_shared.mention`,
a `member.mention`), shown as it is; who it may ping is still the send's own `allowed_mentions` (`NO_PINGS` or
`pinging(...)`)."""

from __future__ import annotations

import re
from typing import Final, NewType

from bot.text import Kind, Run, Text, render_runs

Said = NewType("Said", str)
"""A message's content as this adapter sends it: words rendered by `markdown` (so nothing in them pings). The
helpers that send (`_shared.respond`) take a `Said` or a `Text`, never a bare `str`: mypy finds words that
skipped the renderer."""

ZWSP: Final = "\u200b"
"""The zero-width space that keeps an `@` from starting a mention."""


_MENTIONING_AT: Final = re.compile(r"@(?=everyone|here)|(?<=<)@(?!" + ZWSP + ")", re.IGNORECASE)
"""An `@` that would start a mention: `@everyone`, `@here`, `<@user>`, `<@!user>`, `<@&role>` (a Trax move such as
`@0+` starts none and stays as typed, so it can be copied back)."""


def mention_safe(words: str) -> str:
    """Words that cannot ping or show as a mention (`@everyone`, `@here`, `<@user>`, `<@&role>`); words that are
    safe already stay as they are (so a table that holds rendered lines can be rendered whole)."""
    return _MENTIONING_AT.sub("@" + ZWSP, words)


def timestamp(at: int, style: str) -> str:
    """A moment as Discord shows it in each reader's zone."""
    return f"<t:{at}:{style}>"


def _piece(run: Run) -> str:
    if run.kind == Kind.TIME:
        at = run.at or 0
        return timestamp(at, run.style) + (f" ({timestamp(at, 'R')})" if run.relative else "")
    if run.kind == Kind.VERBATIM:
        return run.text
    if run.kind == Kind.CODE:
        return f"`{mention_safe(run.text)}`"
    return mention_safe(run.text)


_WRAP: Final = {"strong": lambda s: f"**{s}**", "emphasis": lambda s: f"*{s}*"}


def markdown(text: str | Text) -> Said:
    """The words as a Discord message's Markdown. A `str` is words too (the wording's sentences, a player's
    name or move inside them): no `@` in it starts a mention."""
    if isinstance(text, str):
        return Said(mention_safe(text))
    return Said(render_runs(text, _piece, _WRAP))
