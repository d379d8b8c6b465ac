"""`dmhost tournament simulate` as the contract writes it: JSON on stdout; bad arguments one line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.ops.cli import main
from tests import DATA, run_python


def _simulate(*args: str) -> tuple[int, str, str]:
    done = run_python(["-m", "bot.ops.cli", "tournament", "simulate", *args], timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_swiss_json_shape_and_determinism() -> None:
    code, out, err = _simulate(
        "--format", "swiss", "--players", "9", "--rounds", "4", "--seed", "7", "--draws", "0.25", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"rounds", "standings"} and len(data["rounds"]) == 4
    for rnd in data["rounds"]:
        assert sum("bye" in p for p in rnd) == 1
        assert all(set(p) in ({"white", "black"}, {"bye"}) for p in rnd)
    assert sorted(s["player"] for s in data["standings"]) == list(range(1, 10))
    assert set(data["standings"][0]["tiebreaks"]) == {"buchholz", "sonneborn_berger", "head_to_head"}
    assert sum(s["points"] for s in data["standings"]) == 4 * 4 + 4  # 4 games and a bye a round
    assert (
        _simulate("--format", "swiss", "--players", "9", "--rounds", "4", "--seed", "7", "--draws", "0.25", "--json")[1]
        == out
    )


def test_elimination_lists_the_rematch() -> None:
    code, out, _ = _simulate("--format", "elimination", "--players", "2", "--draws", "0.9", "--seed", "3", "--json")
    assert code == 0
    (games,) = json.loads(out)["rounds"]
    assert len(games) >= 2 and games[1] == {"white": 2, "black": 1}


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--format", "swiss", "--players", "1", "--json"], "--players must be 2 to 1024"),
        (["--format", "swiss", "--players", "x", "--json"], "whole number"),
        (["--format", "ladder", "--players", "4", "--json"], "--format must be one of"),
        (["--format", "swiss", "--players", "5", "--rounds", "5", "--json"], "1 to 4 rounds"),
        (["--format", "roundrobin", "--players", "5", "--rounds", "2", "--json"], "--rounds is for swiss only"),
        (["--format", "swiss", "--players", "4", "--draws", "2", "--json"], "probability"),
        (["--format", "swiss", "--players", "4", "--json", "--bogus"], "unrecognized arguments: --bogus"),
        (["--players", "4", "--json"], "--format and --players are required"),
        (["--format", "swiss", "--players", "4", "--json", "--seed", "0x"], "--seed takes a whole number"),
    ],
)
def test_bad_arguments_are_one_line_exit_2(args: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tournament", "simulate", *args])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and says in err, err


def test_a_bad_argument_in_a_fresh_process_is_one_line() -> None:
    code, out, err = _simulate("--format", "swiss", "--players", "4", "--rounds", "-1", "--json")
    assert (code, out, err) == (2, "", "dmhost tournament simulate: a swiss of 4 players has 1 to 3 rounds, not -1\n")


def test_an_elimination_where_every_game_is_drawn_ends() -> None:
    """Each tie is replayed once with colours swapped, then the higher seed advances (seeds/rules/tournaments.md):
    both games of every pairing are listed and seed 1 wins (was: replayed for ever, so refused)."""
    proc = subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", "tournament", "simulate", "--format", "elimination",
         "--players", "4", "--draws", "1", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    expected = json.loads((DATA / "tournaments" / "elimination_every_game_drawn.json").read_text())
    assert json.loads(proc.stdout) == expected
    assert expected["standings"][0]["player"] == 1
