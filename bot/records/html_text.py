"""Words (`bot.text.Text`) as the review pages show them: HTML, escaped; code in `<code>`, weight in `<strong>`,
emphasis in `<em>`, a moment as `<time>` in UTC (the page's script may show it in the reader's zone), and
nothing of what only a chat with messages and buttons has."""

from __future__ import annotations

import datetime as dt
import html as _html
from typing import Final

from bot.text import Kind, Run, Text, render_runs, utc


def _piece(run: Run) -> str:
    if run.kind == Kind.TIME:
        at = run.at or 0
        iso = dt.datetime.fromtimestamp(at, dt.UTC).isoformat()
        return f'<time datetime="{iso}">{utc(at)}</time>'
    if run.kind == Kind.CODE:
        return f"<code>{_html.escape(run.text)}</code>"
    return _html.escape(run.text)


_WRAP: Final = {"strong": lambda s: f"<strong>{s}</strong>", "emphasis": lambda s: f"<em>{s}</em>"}


def html(text: str | Text) -> str:
    """The words as HTML (a `str` escaped as it is)."""
    if isinstance(text, str):
        return _html.escape(text)
    return render_runs(Text(tuple(run for run in text.runs if not run.chat)), _piece, _WRAP)
