"""Playthroughs: fixed games written out move by move. `python -m tests.games.regen_playthroughs` rewrites them.

Each case in tests/data/playthroughs/cases.json names a game, its options and either the move lines or a
seed for random legal moves. Its file `<name>.txt` holds the starting board, then for every move the
mover, the move text, the events and the text board after it, and at the end the replay CLI's result
object. A change to an engine that moves any of it shows up as a readable diff; regenerate only after an
intended change and review the diff like any other change.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

from games import registry
from games.base import play_text
from games.clitools import summarise
from tests import DATA

PLAYTHROUGHS = DATA / "playthroughs"


def cases() -> list[dict[str, Any]]:
    """The cases listed in cases.json."""
    data: list[dict[str, Any]] = json.loads((PLAYTHROUGHS / "cases.json").read_text(encoding="utf-8"))["cases"]
    return data


def _random_lines(case: dict[str, Any]) -> list[str]:
    """Move texts of a seeded random game (at most `max_moves`)."""
    ruleset = registry.get(case["game"])
    rng = random.Random(case["seed"])
    state = ruleset.new_game(ruleset.parse_options(case.get("opts", {})))
    lines: list[str] = []
    while ruleset.to_move(state) is not None and len(lines) < case.get("max_moves", 60):
        moves = ruleset.legal_moves(state)
        if not moves:
            break
        move = rng.choice(moves)
        lines.append(ruleset.format(state, move))
        state, _ = ruleset.apply(state, move)
    return lines


def render(case: dict[str, Any]) -> str:
    """The playthrough text of one case (moves are played from their text, so notation is exercised too)."""
    ruleset = registry.get(case["game"])
    opts = case.get("opts", {})
    options = ruleset.parse_options(opts)
    state = ruleset.new_game(options)
    lines = case["lines"] if "lines" in case else _random_lines(case)
    out = [
        f"# playthrough {case['name']}: {ruleset.title} ({ruleset.id})",
        f"# options: {json.dumps(opts, sort_keys=True)}",
        f"# regenerate: python -m tests.games.regen_playthroughs {case['name']}",
        "",
        "== start",
        ruleset.render_text(state),
    ]
    for number, text in enumerate(lines, start=1):
        seat = ruleset.to_move(state)
        state, _move, events = play_text(ruleset, state, text)
        out += [
            "",
            f"== {number}. seat {seat}: {text}",
            "events: " + ", ".join(e.kind for e in events),
            ruleset.render_text(state),
        ]
    result = summarise(ruleset, state, len(lines), None)
    out += ["", "== result", json.dumps(result, sort_keys=True)]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Rewrite every playthrough file (or only the named cases)."""
    wanted = set(argv if argv is not None else sys.argv[1:])
    for case in cases():
        if wanted and case["name"] not in wanted:
            continue
        path = PLAYTHROUGHS / f"{case['name']}.txt"
        path.write_text(render(case), encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
