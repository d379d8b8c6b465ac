"""The words every area shares: names for seats, durations, quoted text, and the house rules' own templates."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, overload

from bot.text import Text, as_text

if TYPE_CHECKING:
    from bot.host.match import Live

Name = Callable[[int | None], str]


def namer(names: Mapping[int, str]) -> Name:
    """Seat → display name, for a match's players (`nobody` for no seat)."""

    def name(seat: int | None) -> str:
        return display(names[seat]) if seat is not None and seat in names else "nobody"

    return name


def seat_name(live: Live, seat: int | None) -> str:
    """A running match's player in `seat`, by display name."""
    return namer(live.names())(seat)


def seconds(value: float) -> str:
    """A duration as a clock shows it (`7.5s`, `42s`, `1:05`)."""
    s = max(0.0, value)
    if s >= 60:
        return f"{int(s // 60)}:{int(s % 60):02d}"
    return f"{s:.1f}s" if s < 10 else f"{int(s)}s"


def quote(text: str) -> str:
    """A player's text, quoted safely: one line, at most 40 characters, and it cannot close its backticks. (It is
    kept from mentioning anyone where the face could: the Discord renderer guards each `@` that would mention.)"""
    clean = "".join(ch if ch.isprintable() else " " for ch in text[:200])
    clean = clean.replace("`", "'")
    return f"`{clean[:40]}{'…' if len(clean) > 40 else ''}`"


def display(name: str) -> str:
    """A player's name as the host says it: one line of at most 40 characters. (That it never pings — `@everyone`,
    `@here`, `<@&role>`, `<@user>` — is the Discord renderer's guard, `bot/adapters/discord/render.py`.)"""
    clean = " ".join("".join(ch if ch.isprintable() else " " for ch in name[:200]).split())
    return (clean[:40] + "…" if len(clean) > 40 else clean) or "?"


@overload
def named(text: str, name: Name) -> str: ...
@overload
def named(text: Text, name: Name) -> Text: ...
@overload
def named(text: str | Text, name: Name) -> str | Text: ...
def named(text: str | Text, name: Name) -> str | Text:
    """Engine text speaks of seats ("seat 2 to move"); people read names."""
    if isinstance(text, Text):
        return text.map(lambda words: named(words, name))
    return _SEAT_WORDS.sub(lambda m: name(int(m.group(1))), text)


_SEAT_FIELDS = ("other", "chooser", "mover", "actor", "opponent", "offerer", "winner", "loser", "asker", "confirmer")
"""Data fields that hold a seat: said as the player's name."""


def rule_words() -> dict[str, str]:
    """The templates house rules declare for their own events and refusals (`HouseRule.words`) that are plain
    sentences (a template with runs, such as words only a chat has, is in `rule_texts` only)."""
    from bot.host.rules import REGISTRY

    return {code: text for rule in REGISTRY for code, text in rule.words.items() if isinstance(text, str)}


def rule_texts() -> dict[str, Text]:
    """Every template house rules declare (`HouseRule.words`), as text with runs: what an event of theirs says."""
    from bot.host.rules import REGISTRY

    return {code: as_text(text) for rule in REGISTRY for code, text in rule.words.items()}


_SEAT_WORDS = re.compile(r"\bseat ([12])\b", re.IGNORECASE)
"""An engine's "seat 2" in a sentence, replaced by the player's name."""


NOT_POSSIBLE = "That is not possible now."
"""The reply to a refusal no template words."""


def rule_keywords_line(game: str) -> str | None:
    """The words the house rules a game takes answer, from their declarations (`HouseRule.actions`):
    "- House rules' words (when a match has the rule): `offer draw`, `accept draw`; …"."""
    from bot.host.rules import REGISTRY

    said = []
    for rule in REGISTRY:
        if rule.takes(game):
            phrases = [f"`{a.keywords[0]}`" for a in rule.actions if a.keywords]
            if phrases:
                said.append(", ".join(phrases))
    return None if not said else "- House rules' words (when a match has the rule): " + "; ".join(said) + "."
