"""Words as structured text: a `Text` is a tuple of runs (plain words, a name, code, a moment), each face renders
it its own way (Discord: Markdown, `<t:…>` timestamps and names that cannot ping, `bot/adapters/discord/render.py`;
the terminal: `plain` below, times in UTC; the review pages: `html` in `bot/records/html_text.py`).

A sentence is built from strings and runs: `strong(tournament) + ": round 2 starts " + time(at, "R")`. A run can
say what only a chat with messages and buttons has (`chat_only(" (or press Accept draw)")`): the terminal leaves
it out. A `Text` is never a `str`: `str(text)` raises, so a sentence nobody rendered fails where it is made
instead of reaching people with its runs lost.
"""

from __future__ import annotations

import datetime as dt
import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final


class Kind(StrEnum):
    """What a run is: the face renders each kind its own way."""

    PLAIN = "plain"
    NAME = "name"
    """A player's (or a server's, a tournament's) own name: a face keeps it from acting (Discord: from pinging)."""
    CODE = "code"
    """Something to type, or typed: a command, a keyword, a move."""
    TIME = "time"
    """A moment (`at`, Unix seconds), shown in each reader's zone where the face can, else in UTC."""
    VERBATIM = "verbatim"
    """A face's own piece handed back to it through the words (a Discord mention of a member, a role, a room that
    the Discord adapter made): shown exactly as it is, the one run a face does not guard. Only the face that makes
    such a piece ever sees it; the words never make one."""


class TimeStyle(StrEnum):
    """How a moment is shown where the face shows it in the reader's zone (Discord's timestamp styles)."""

    SHORT_TIME = "t"
    LONG_TIME = "T"
    SHORT_DATE = "d"
    LONG_DATE = "D"
    SHORT = "f"
    LONG = "F"
    RELATIVE = "R"


@dataclass(frozen=True, slots=True)
class Run:
    """One piece of a `Text`: its words and how they are shown."""

    text: str
    kind: Kind = Kind.PLAIN
    strong: bool = False
    emphasis: bool = False
    chat: bool = False
    """Said only where there are messages to edit and buttons to press (the terminal leaves it out)."""
    at: int | None = None
    """A `TIME` run's moment, in Unix seconds."""
    style: TimeStyle = TimeStyle.SHORT
    relative: bool = False
    """A `TIME` run also said relatively after it, `(in 2 hours)`, where the face can (the terminal cannot)."""


@dataclass(frozen=True, slots=True)
class Text:
    """Words made of runs; `+` with a `str` or another `Text`, `sep.join(parts)` as `str.join` does."""

    runs: tuple[Run, ...] = ()

    def __add__(self, other: str | Text) -> Text:
        return Text(self.runs + as_text(other).runs)

    def __radd__(self, other: str) -> Text:
        return Text(as_text(other).runs + self.runs)

    def __bool__(self) -> bool:
        return any(run.text or run.kind == Kind.TIME for run in self.runs)

    def __str__(self) -> str:
        raise TypeError("a Text is rendered by a face (`plain`, the Discord or web renderer), never by str()")

    def __format__(self, spec: str) -> str:
        raise TypeError("a Text cannot go into an f-string: build it with `+` and render it at the face")

    def join(self, parts: Iterable[str | Text]) -> Text:
        """The parts with this text between them."""
        runs: list[Run] = []
        for i, part in enumerate(parts):
            if i:
                runs.extend(self.runs)
            runs.extend(as_text(part).runs)
        return Text(tuple(runs))

    def map(self, change: Callable[[str], str]) -> Text:
        """Every run's words changed by `change` (a moment's words are none; a face's verbatim piece is its own)."""
        return Text(tuple(run if run.kind in _UNWORDED else replace(run, text=change(run.text)) for run in self.runs))

    def rstrip(self) -> Text:
        """Without white space at the end."""
        runs = list(self.runs)
        while runs and runs[-1].kind != Kind.TIME:
            last = replace(runs[-1], text=runs[-1].text.rstrip())
            if last.text:
                runs[-1] = last
                break
            runs.pop()
        return Text(tuple(runs))

    def format(self, **values: Any) -> Text:
        """The text as a template: `{field}`s in its runs filled as `str.format` fills them; a value that is a
        `Text` goes in as its own runs (in the weight, emphasis and chat-only-ness of the run that held the field)."""
        runs: list[Run] = []
        for run in self.runs:
            if run.kind in _UNWORDED or "{" not in run.text:
                runs.append(run)
                continue
            for literal, field, spec, conversion in _FORMATTER.parse(run.text):
                if literal:
                    runs.append(replace(run, text=literal))
                if field is None:
                    continue
                value, _ = _FORMATTER.get_field(field, (), values)
                if isinstance(value, Text):
                    runs.extend(
                        replace(
                            r,
                            chat=r.chat or run.chat,
                            strong=r.strong or run.strong,
                            emphasis=r.emphasis or run.emphasis,
                        )
                        for r in value.runs
                    )
                    continue
                value = _FORMATTER.convert_field(value, conversion)
                runs.append(replace(run, text=_FORMATTER.format_field(value, spec or "")))
        return Text(tuple(runs))


_FORMATTER: Final = string.Formatter()
_UNWORDED: Final = frozenset({Kind.TIME, Kind.VERBATIM})
"""Runs whose text is not words to change (`Text.map`) or fill in (`Text.format`)."""

EMPTY: Final = Text()
NEWLINE: Final = Text((Run("\n"),))


def as_text(value: str | Text) -> Text:
    """A `str` as one plain run; a `Text` as it is."""
    if isinstance(value, Text):
        return value
    return Text((Run(value),)) if value else EMPTY


def lines(parts: Iterable[str | Text]) -> Text:
    """The parts one under the other (`"\\n".join`)."""
    return NEWLINE.join(parts)


def fill_in(template: str | Text, **values: Any) -> Text:
    """A template (`str.format`'s fields) filled: `Text` values go in as their runs."""
    return as_text(template).format(**values)


def strong(value: str | Text) -> Text:
    """Said with weight (a heading, a name that matters in the sentence)."""
    return Text(tuple(replace(run, strong=True) for run in as_text(value).runs))


def emphasis(value: str | Text) -> Text:
    """Said with emphasis."""
    return Text(tuple(replace(run, emphasis=True) for run in as_text(value).runs))


def code(value: str) -> Text:
    """Something to type (`here`, `/dm start`), or a move as typed."""
    return Text((Run(value, Kind.CODE),))


def name(value: str) -> Text:
    """Someone's own name, which must not act where it is shown."""
    return Text((Run(value, Kind.NAME),))


def verbatim(value: str) -> Text:
    """A piece a face made itself and gets back through the words (`<@123>`, a member's mention on Discord),
    shown exactly as it is; see `Kind.VERBATIM`."""
    return Text((Run(value, Kind.VERBATIM),))


def time(at: int | float | dt.datetime, style: TimeStyle | str = TimeStyle.SHORT, *, relative: bool = False) -> Text:
    """A moment (Unix seconds or an aware datetime), in `style` where the face shows each reader's zone;
    `relative`: followed by how far away it is, in brackets, where the face can say that."""
    seconds = int(at.timestamp()) if isinstance(at, dt.datetime) else int(at)
    return Text((Run("", Kind.TIME, at=seconds, style=TimeStyle(style), relative=relative),))


def chat_only(value: str | Text) -> Text:
    """Words true only where there are messages and buttons (`(or press Accept draw)`): the terminal omits them."""
    return Text(tuple(replace(run, chat=True) for run in as_text(value).runs))


_CARD_MARKS: Final = re.compile(r"\*{2}(.+?)\*{2}|`([^`\n]+)`", re.DOTALL)
"""What the Markdown of the seed cards (`seeds/rules/`) marks: strong words and code."""


def from_markdown(document: str) -> Text:
    """A card's Markdown (`seeds/rules/…`: strong words, code) as runs, for a face that does not show Markdown."""
    runs: list[Run] = []
    at = 0
    for found in _CARD_MARKS.finditer(document):
        if found.start() > at:
            runs.append(Run(document[at : found.start()]))
        if found.group(1) is not None:
            runs.append(Run(found.group(1), strong=True))
        else:
            runs.append(Run(found.group(2), Kind.CODE))
        at = found.end()
    if at < len(document):
        runs.append(Run(document[at:]))
    return Text(tuple(runs))


def utc(at: int) -> str:
    """A moment in UTC, as a face that cannot show each reader's zone writes it: `2026-12-05 20:00 UTC`."""
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def plain(value: str | Text) -> str:
    """The words as plain text (the terminal, the command lines, logs): no marks, code in backticks, moments in UTC
    (once, even where a chat adds how far away they are), without what only a chat has."""
    if isinstance(value, str):
        return value
    out = []
    for run in value.runs:
        if run.chat:
            continue
        if run.kind == Kind.TIME:
            out.append(utc(run.at or 0))
        elif run.kind == Kind.CODE:
            out.append(f"`{run.text}`")
        else:
            out.append(run.text)
    return "".join(out)


def render_runs(
    value: str | Text,
    piece: Callable[[Run], str],
    wrap: Mapping[str, Callable[[str], str]],
) -> str:
    """The frame every marked-up face shares: each run as `piece` says, consecutive runs in weight or emphasis
    wrapped once by `wrap["strong"]` / `wrap["emphasis"]` (so `strong(a) + strong(b)` is one bold stretch)."""
    runs = as_text(value).runs
    out: list[str] = []
    i = 0
    while i < len(runs):
        run = runs[i]
        if not (run.strong or run.emphasis):
            out.append(piece(run))
            i += 1
            continue
        j = i
        while j < len(runs) and (runs[j].strong, runs[j].emphasis) == (run.strong, run.emphasis):
            j += 1
        inner = "".join(piece(r) for r in runs[i:j])
        if run.emphasis:
            inner = wrap["emphasis"](inner)
        if run.strong:
            inner = wrap["strong"](inner)
        out.append(inner)
        i = j
    return "".join(out)
