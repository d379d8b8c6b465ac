"""A full match of every game through `dmhost room` (a real subprocess and database): the room must end
with the winner and reason the engine gives for the same moves."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games import registry

SETUPS: dict[str, dict[str, Any]] = {
    "boxes": {"opts": {"rows": 3, "cols": 3}, "seed": 1},
    "pathing": {"opts": {}, "seed": 2},
    "trax": {"opts": {}, "seed": 154},
    "dots": {"opts": {"width": 9, "height": 9}, "seed": 3},
    "dotdash": {"opts": {"size": 9, "stones": 20}, "seed": 4},
}
NAMES = {1: "ann", 2: "ben"}


def scripted_game(game: str) -> tuple[list[str], Any]:
    """Lines 'name: move' of a seeded random game to its end, with the host prompts answered."""
    ruleset = registry.get(game)
    spec = SETUPS[game]
    rng = random.Random(spec["seed"])
    state = ruleset.new_game(ruleset.parse_options(spec["opts"]))
    lines = []
    while ruleset.to_move(state) is not None and len(lines) < 2000:
        seat = ruleset.to_move(state)
        moves = [m for m in ruleset.legal_moves(state) if game != "dots" or ruleset.format(state, m) != "stop"]
        move = rng.choice(moves)
        lines.append(f"{NAMES[seat]}: {ruleset.format(state, move)}")
        if getattr(ruleset, "loses_by_shifting", None) and ruleset.loses_by_shifting(state, move):
            lines.append(f"{NAMES[seat]}: confirm")
        state, _ = ruleset.apply(state, move)
    outcome = ruleset.outcome(state)
    assert outcome is not None, f"{game} random game did not finish"
    if game == "trax" and outcome.winner is not None:
        lines.append(f"{NAMES[3 - outcome.winner]}: decline")
    return lines, outcome


@pytest.mark.parametrize("game", sorted(SETUPS))
def test_full_match_in_the_terminal_room(game: str, tmp_path: Path) -> None:
    lines, outcome = scripted_game(game)
    args = [
        sys.executable,
        "-m",
        "bot.ops.cli",
        "room",
        game,
        "--player",
        "ann",
        "--player",
        "ben",
        "--events-json",
        "--db",
        str(tmp_path / "room.db"),
        "--clock",
        "move=600",
        "reserve=600",
        "takeback=0",
    ]
    for k, v in SETUPS[game]["opts"].items():
        args += ["--opt", f"{k}={v}"]
    proc = subprocess.run(args, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    refused = [e for e in events if e["event"] in ("illegal", "rejected", "error")]
    assert [e.get("kind") for e in refused if e.get("kind") != "confirm"] == []
    last = events[-1]
    assert last["event"] == "finished"
    assert last["winner"] == (NAMES[outcome.winner] if outcome.winner else None)
    assert last["reason"] == outcome.reason
    moves = [e for e in events if e["event"] == "move"]
    assert len(moves) == len([ln for ln in lines if not ln.endswith((": confirm", ": decline"))])
