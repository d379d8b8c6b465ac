"""The house-rule part of each game's rule card (`seeds/rules/GAME.md`, "House rules for this match"),
made from the registry: the "Accepted here" and "Defaults" lines and one bullet per rule the game takes,
each rule's own words (`HouseRule.card`, `HouseRule.card_default`). The game's other bullets (its own
notes, who starts, the pause) stay as written.

`card(game)` is the card people read (`/dm rules`): the stored card with that part made afresh, so a rule
added as one module is on every card of the games that take it. `python -m bot.host.rules.cards --write`
writes the stored cards again; a test keeps them equal to what the registry says."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bot.host import rules
from bot.host.rules.base import HouseRule
from bot.text import Kind, Run, Text, render_runs, utc
from games import registry
from games.resources import rule_card, rules_folder

SECTION = "## House rules for this match"
_ACCEPTED = "- Accepted here:"
_DEFAULTS = "- Defaults (the Death Match's):"
_RULE_BULLET = re.compile(r"- `(\w+)=")


def rule_bullets(game: str) -> dict[str, str]:
    """Each rule the game takes that has card words → its bullet (lines continued with two spaces): the
    rules a host sets, then those every match has (who starts, with an advantage)."""
    by_key = {rule.key: rule for rule in rules.REGISTRY}
    always = [rule.key for rule in rules.REGISTRY if not rule.settable and rule.takes(game)]
    out = {}
    for key in [*rules.accepted(game), *always]:
        said = by_key[key].card
        if said:
            first, *rest = card_markdown(said).strip("\n").split("\n")
            out[key] = "\n".join([f"- {first}", *(f"  {line}" for line in rest)])
    return out


def card_markdown(said: str | Text) -> str:
    """A rule's card words as the card's Markdown (the cards are Markdown documents: `seeds/rules/`)."""
    return render_runs(said, _card_piece, _CARD_MARKS)


def _card_piece(run: Run) -> str:
    if run.kind == Kind.TIME:
        return utc(run.at or 0)
    return f"`{run.text}`" if run.kind == Kind.CODE else run.text


_CARD_MARKS = {"strong": lambda s: f"**{s}**", "emphasis": lambda s: f"*{s}*"}
"""CommonMark's marks, as the seed cards are written (documents, not chat messages)."""


def head_bullets(game: str) -> tuple[str, str]:
    """The "Accepted here" and "Defaults" bullets."""
    keys = rules.accepted(game)
    said = [d for rule in _settable(game) if (d := rule.card_default(game)) is not None]
    return (
        f"{_ACCEPTED} {', '.join(keys)}. Any other rule is refused, naming these.",
        f"{_DEFAULTS} {', '.join(said)}.",
    )


def _settable(game: str) -> list[type[HouseRule]]:
    return [rule for rule in rules.REGISTRY if rule.settable and rule.takes(game)]


def render(text: str, game: str) -> str:
    """`text` (a stored card) with its house-rule part made from the registry (unchanged without one)."""
    lines = text.split("\n")
    try:
        start = lines.index(SECTION) + 1
    except ValueError:
        return text
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    blocks: list[str] = []  # bullets with their continuation lines, and other lines one by one
    for line in lines[start:end]:
        if line.startswith("  ") and blocks and blocks[-1].startswith("- "):
            blocks[-1] += "\n" + line
        else:
            blocks.append(line)
    accepted_line, defaults_line = head_bullets(game)
    bullets = rule_bullets(game)
    out: list[str] = []
    for block in blocks:
        if block.startswith(_ACCEPTED):
            out.append(accepted_line)
        elif block.startswith(_DEFAULTS):
            out.append(defaults_line)
        elif (key := _rule_of(block, bullets)) is not None:
            if key in bullets:
                out.append(bullets[key])
        else:
            out.append(block)
    shown = {key for block in out if (key := _rule_of(block, bullets)) is not None}
    order = list(bullets)
    for key in order:  # a rule the card does not say yet goes after the one before it (or the defaults)
        if key in shown:
            continue
        before = [k for k in order[: order.index(key)] if k in shown]
        anchor = bullets[before[-1]] if before else defaults_line
        out.insert(out.index(anchor) + 1 if anchor in out else len(out), bullets[key])
        shown.add(key)
    return "\n".join([*lines[:start], *out, *lines[end:]])


def _rule_of(block: str, bullets: dict[str, str]) -> str | None:
    """The rule a bullet of the card is: `- `KEY=…` (a rule a host sets, registered or not), or the first
    line of a registered rule's bullet."""
    if (found := _RULE_BULLET.match(block)) is not None:
        return found[1]
    first = block.split("\n")[0]
    return next((key for key, said in bullets.items() if said.split("\n")[0] == first), None)


def card(game: str) -> str | None:
    """A game's full rule card as people read it (None: the seeds have none)."""
    text = rule_card(game)
    return None if text is None else render(text, game)


def main(argv: list[str] | None = None) -> int:
    """`--write`: rewrite the stored cards (in the source tree); else name the cards that differ (exit 1)."""
    write = "--write" in (argv if argv is not None else sys.argv[1:])
    stale = []
    for game in registry.ids():
        stored = rule_card(game)
        if stored is None or (made := render(stored, game)) == stored:
            continue
        stale.append(game)
        if write:
            (Path(str(rules_folder())) / f"{game}.md").write_text(made, encoding="utf-8")
    for game in stale:
        print(f"{'wrote' if write else 'stale'}: seeds/rules/{game}.md")
    return 1 if stale and not write else 0


if __name__ == "__main__":
    raise SystemExit(main())
