"""The house-rule part of each game's rule card (`seeds/rules/GAME.md`, "House rules for this match"),
made from the registry: the "Accepted here" and "Defaults" lines and one bullet per rule the game takes,
each rule's own words (`HouseRule.card`, `HouseRule.card_default`). The game's other bullets (its own
notes, who starts, the pause) stay as written.

`card(game)` is the card people read (`/dm rules`): the stored card with that part made afresh, so a rule
added as one module is on every card of the games that take it. A stored card may be behind the registry by
whole rules it does not name yet (`behind`: a rule just added as a module); of every rule it names it says
what the registry says, which a test keeps. `python -m bot.host.rules.cards --write` writes the stored cards
again, the rules they are behind by included."""

from __future__ import annotations

import re
import sys
from collections.abc import Collection
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


def rule_bullets(game: str, leaving_out: Collection[str] = ()) -> dict[str, str]:
    """Each rule the game takes that has card words → its bullet (lines continued with two spaces): the
    rules a host sets, then those every match has (who starts, with an advantage); but the rules
    `leaving_out` names."""
    by_key = {rule.key: rule for rule in rules.REGISTRY}
    always = [rule.key for rule in rules.REGISTRY if not rule.settable and rule.takes(game)]
    out = {}
    for key in [*rules.accepted(game), *always]:
        if key in leaving_out:
            continue
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


def head_bullets(game: str, leaving_out: Collection[str] = ()) -> tuple[str, str]:
    """The "Accepted here" and "Defaults" bullets (of the rules but those `leaving_out` names)."""
    keys = [key for key in rules.accepted(game) if key not in leaving_out]
    settable = [rule for rule in _settable(game) if rule.key not in leaving_out]
    said = [d for rule in settable if (d := rule.card_default(game)) is not None]
    return (
        f"{_ACCEPTED} {', '.join(keys)}. Any other rule is refused, naming these.",
        f"{_DEFAULTS} {', '.join(said)}.",
    )


def _settable(game: str) -> list[type[HouseRule]]:
    return [rule for rule in rules.REGISTRY if rule.settable and rule.takes(game)]


def named(text: str, game: str) -> set[str]:
    """The rules a card names: in its "Accepted here" line, or by a bullet of their own."""
    section = _section(text)
    if section is None:
        return set()
    lines = text.split("\n")[section[0] : section[1]]
    accepted = next((line for line in lines if line.startswith(_ACCEPTED)), _ACCEPTED)
    keys = {key.strip(" .") for key in accepted.removeprefix(_ACCEPTED).split("Any other rule")[0].split(",")}
    bullets = rule_bullets(game)
    keys |= {key for line in lines if (key := _rule_of(line, bullets)) is not None}
    return {key for key in keys if key}


def behind(text: str, game: str) -> list[str]:
    """The rules the game takes that a stored card does not name yet (added as a module since it was
    written): the card people read says them already; `--write` puts them on the stored card."""
    said = named(text, game)
    always = [rule.key for rule in rules.REGISTRY if not rule.settable and rule.takes(game) and rule.card]
    return [key for key in [*rules.accepted(game), *always] if key not in said]


def _section(text: str) -> tuple[int, int] | None:
    """The lines of the house-rule part (after its heading, up to the next heading), if the card has one."""
    lines = text.split("\n")
    try:
        start = lines.index(SECTION) + 1
    except ValueError:
        return None
    return start, next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))


def render(text: str, game: str, leaving_out: Collection[str] = ()) -> str:
    """`text` (a stored card) with its house-rule part made from the registry (unchanged without one), as if
    the rules `leaving_out` names were not registered."""
    lines = text.split("\n")
    if (section := _section(text)) is None:
        return text
    start, end = section
    blocks: list[str] = []  # bullets with their continuation lines, and other lines one by one
    for line in lines[start:end]:
        if line.startswith("  ") and blocks and blocks[-1].startswith("- "):
            blocks[-1] += "\n" + line
        else:
            blocks.append(line)
    accepted_line, defaults_line = head_bullets(game, leaving_out)
    bullets = rule_bullets(game, leaving_out)
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


def stale(game: str) -> bool:
    """Whether the game's stored card says of a rule it names something the registry does not."""
    stored = rule_card(game)
    return stored is not None and render(stored, game, behind(stored, game)) != stored


def main(argv: list[str] | None = None) -> int:
    """`--write`: rewrite the stored cards (in the source tree), the rules they are behind by included; else
    name the cards that are stale (exit 1) and those only behind by a rule added since (exit 0)."""
    write = "--write" in (argv if argv is not None else sys.argv[1:])
    found = []
    for game in registry.ids():
        stored = rule_card(game)
        if stored is None or (made := render(stored, game)) == stored:
            continue
        how = "stale" if stale(game) else "behind (" + ", ".join(behind(stored, game)) + ")"
        found.append((game, how))
        if write:
            (Path(str(rules_folder())) / f"{game}.md").write_text(made, encoding="utf-8")
    for game, how in found:
        print(f"{'wrote' if write else how}: seeds/rules/{game}.md")
    return 1 if any(how == "stale" for _game, how in found) and not write else 0


if __name__ == "__main__":
    raise SystemExit(main())
