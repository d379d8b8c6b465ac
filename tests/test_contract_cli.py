"""docs/cli.md read as an outside acceptance suite reads it, for the points no other test pins: every game's
`replay` object (the `extra` keys and the value types), the input line an error names, and the terminal
room's first and last lines and rule refusals in every game. Real subprocesses, as scripts run them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.host import rules
from games import registry

GAMES = registry.ids()
EXTRA_KEYS = {
    "trax": {"tiles", "width", "height"},
    "pathing": {"round", "board", "phase"},
    "dots": {"ungrounded"},
    "dotdash": {"reserve", "phase"},
    "boxes": set(),
}
"""The keys docs/cli.md promises at least, per game."""


def run(args: list[str], stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_every_game_is_covered_here() -> None:
    assert set(GAMES) == set(EXTRA_KEYS)


@pytest.mark.parametrize("game", GAMES)
def test_replay_object_of_every_game(game: str) -> None:
    done = run(["-m", "games", "replay", game, "-"], "")
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    assert (result["game"], result["moves_applied"], result["status"]) == (game, 0, "ongoing")
    assert result["winner"] is None and result["reason"] is None and result["error"] is None
    assert result["to_move"] == 1
    assert set(result["scores"]) == {"1", "2"} and all(isinstance(v, int) for v in result["scores"].values())
    assert EXTRA_KEYS[game] <= set(result["extra"])
    extra = result["extra"]
    if game == "trax":
        assert all(isinstance(extra[k], int) for k in ("tiles", "width", "height"))
    elif game == "pathing":
        assert isinstance(extra["round"], int) and extra["phase"] in ("move", "penalty")
        assert [len(row) for row in extra["board"].split("/")] == [4, 4, 4, 4]
    elif game == "dots":
        assert set(extra["ungrounded"]) == {"1", "2"}
    elif game == "dotdash":
        assert set(extra["reserve"]) == {"1", "2"} and extra["phase"] in ("setup", "choose", "move")


def test_an_error_names_the_input_files_line_counting_skipped_ones(tmp_path: Path) -> None:
    game = tmp_path / "game.txt"
    game.write_text("# a comment\n\nA1-B1\n   \n# again\nA1-B1\n")
    done = run(["-m", "games", "replay", "boxes", str(game)])
    assert done.returncode == 3
    result = json.loads(done.stdout)
    assert result["moves_applied"] == 1
    assert {k: result["error"][k] for k in ("line", "kind")} == {"line": 6, "kind": "illegal"}
    assert isinstance(result["error"]["message"], str) and result["error"]["message"]


@pytest.mark.parametrize("game", GAMES)
def test_room_first_and_last_lines_in_every_game(game: str, tmp_path: Path) -> None:
    # A line without NAME: is spoken by the player to move: alice, who resigns; bob wins by `resign`.
    args = ["-m", "bot.ops.cli", "room", game, "--player", "alice", "--player", "bob", "--events-json"]
    done = run([*args, "--db", str(tmp_path / "room.db")], "resign\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["event"] == "started" and isinstance(events[0]["match"], int)
    last = events[-1]
    assert (last["event"], last["winner"], last["reason"]) == ("finished", "bob", "resign")


@pytest.mark.parametrize("game", GAMES)
def test_a_rule_the_game_cannot_take_is_one_line_naming_its_rules(game: str, tmp_path: Path) -> None:
    args = ["-m", "bot.ops.cli", "room", game, "--player", "a", "--player", "b", "--rule", "takeback=0", "nosuch=1"]
    rule_refusal_names_the_rules(run([*args, "--db", str(tmp_path / "rules.db")], cwd=tmp_path), game)


def rule_refusal_names_the_rules(done: subprocess.CompletedProcess[str], game: str) -> None:
    """An unknown rule is one line on stderr (exit 2) naming every rule the game takes, as the registry says
    (`rules.accepted`: a rule added as one module is named with the rest)."""
    assert done.returncode == 2 and done.stdout == "", done.stderr
    (line,) = done.stderr.strip().splitlines()
    named = set(line.rpartition("accepts")[2].replace(",", " ").split())
    assert "nosuch" in line and named == set(rules.accepted(game))


@pytest.mark.parametrize(
    "args",
    [
        ["-m", "games", "frobnicate"],
        ["-m", "games", "replay"],
        ["-m", "games", "replay", "boxes", "--nope"],
        ["-m", "games", "duel", "trax", "random"],
        ["-m", "games", "move", "trax"],
        ["-m", "games", "solve", "boxes", "--rows", "x"],
        ["-m", "bot.ops.cli", "nonsense"],
        ["-m", "bot.ops.cli", "room", "boxes", "--player", "a", "--player", "b", "--clock"],
        ["-m", "bot.ops.cli", "log", "x"],
        ["-m", "bot.ops.cli", "schedule", "when"],
        ["-m", "bot.ops.cli", "ratings", "--guild", "x"],
        ["-m", "bot.ops.cli", "tournament", "simulate", "--format", "swiss", "--players", "x", "--json"],
    ],
    ids=lambda a: " ".join(a[1:4]),
)
def test_a_usage_error_is_exit_2_with_one_line(args: list[str], tmp_path: Path) -> None:
    done = run(args, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "Traceback" not in line
