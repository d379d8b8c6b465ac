"""The data files the engines and the bot read (rule cards, move cards, Pathing's preset layouts): the
top-level package `seeds`, found through `importlib.resources` from any working directory, in a wheel, a
zip or the source tree alike."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable


def data() -> Traversable:
    """The seed data's folder (the package `seeds`, top-level `seeds/` in the source tree)."""
    return files("seeds")


def rules_folder() -> Traversable:
    """The rule cards: `GAME.md` (the full card, designers credited) and `moves/GAME.md` (how to write moves)."""
    return data() / "rules"


def rule_card(game: str) -> str | None:
    """A game's full rule card, or None when the package has none for it."""
    return _text(rules_folder() / f"{game}.md")


def moves_card(game: str) -> str | None:
    """A game's short "how to write moves" card, or None."""
    return _text(rules_folder() / "moves" / f"{game}.md")


def move_example(game: str) -> str | None:
    """The first example move on a game's moves card (the first `` `…` `` after a dash: `A1-B1`, `T15`), or None."""
    card = moves_card(game)
    found = None if card is None else re.search(r"— `([^`]+)`", card)
    return None if found is None else found.group(1)


@cache
def pathing_layouts() -> dict[str, dict[str, str]]:
    """Pathing's preset layouts as stored (`name → {"layout": rows, ...}`)."""
    text = _text(data() / "pathing" / "layouts.json")
    return json.loads(text) if text else {}


def _text(item: Traversable) -> str | None:
    return item.read_text(encoding="utf-8") if item.is_file() else None
