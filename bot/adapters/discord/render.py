"""Words (`bot.text.Text`) as Discord shows them: Markdown marks, moments as `<t:…>` timestamps (each reader
sees their own zone), names that can never ping."""

from __future__ import annotations

from typing import Final

from bot.text import Kind, Run, Text, render_runs

ZWSP: Final = "\u200b"
"""The zero-width space that keeps an `@` from starting a mention."""


def mention_safe(name: str) -> str:
    """A name that cannot ping (`@everyone`, `@here`, `<@user>`, `<@&role>`)."""
    return name.replace("@", "@" + ZWSP)


def timestamp(at: int, style: str) -> str:
    """A moment as Discord shows it in each reader's zone."""
    return f"<t:{at}:{style}>"


def _piece(run: Run) -> str:
    if run.kind == Kind.TIME:
        at = run.at or 0
        return timestamp(at, run.style) + (f" ({timestamp(at, 'R')})" if run.relative else "")
    if run.kind == Kind.CODE:
        return f"`{run.text}`"
    if run.kind == Kind.NAME:
        return mention_safe(run.text)
    return run.text


_WRAP: Final = {"strong": lambda s: f"**{s}**", "emphasis": lambda s: f"*{s}*"}


def markdown(text: str | Text) -> str:
    """The words as a Discord message's Markdown (a `str` as it is)."""
    if isinstance(text, str):
        return text
    return render_runs(text, _piece, _WRAP)
