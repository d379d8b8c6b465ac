"""`python -m games duel` and `python -m games move` as scripts use them (docs/cli.md)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from games import registry
from games.opponents import LEVELS, choose_move, pick
from games.opponents.cli import duel

GAMES = [sys.executable, "-m", "games"]


def run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GAMES, *args], input=stdin, capture_output=True, text=True, timeout=120)


def test_duel_prints_the_contract_object_and_is_deterministic() -> None:
    args = ["duel", "pathing", "easy", "random", "--games", "4", "--seed", "5"]
    first, second = run(args), run(args)
    assert first.returncode == 0, first.stderr
    got = json.loads(first.stdout)
    assert set(got) == {"game", "a", "b", "games", "a_wins", "b_wins", "draws", "seconds_per_move"}
    assert (got["game"], got["a"], got["b"], got["games"]) == ("pathing", "easy", "random", 4)
    assert got["a_wins"] + got["b_wins"] + got["draws"] == 4
    assert set(got["seconds_per_move"]) == {"a", "b"}
    again = json.loads(second.stdout)
    for key in ("a_wins", "b_wins", "draws"):
        assert got[key] == again[key]


def test_a_node_budget_gives_the_same_games_and_moves_every_run() -> None:
    # Searching levels bounded by work, not the clock: two runs agree whatever else the machine does.
    duel_args = ["duel", "trax", "hard", "medium", "--games", "2", "--seed", "3", "--nodes", "40", "--max-plies", "16"]
    first, second = run(duel_args), run(duel_args)
    assert first.returncode == 0, first.stderr
    scores = [{k: v for k, v in json.loads(p.stdout).items() if k != "seconds_per_move"} for p in (first, second)]
    assert scores[0] == scores[1]
    position = "@0+\nB1+\nA0\\\n"
    moves = [run(["move", "trax", "hard", "--nodes", "150", "--seed", "2", "-"], position) for _ in range(2)]
    assert moves[0].returncode == 0, moves[0].stderr
    assert json.loads(moves[0].stdout)["move"] == json.loads(moves[1].stdout)["move"]


def test_duel_move_cap_scores_a_draw() -> None:
    r = registry.get("dots")
    result = duel(r, r.parse_options({"width": 5, "height": 5}), "random", "random", 2, 1, 0.1, max_plies=3)
    assert result["draws"] == 2 and result["a_wins"] == result["b_wins"] == 0


@pytest.mark.parametrize(
    "args",
    [
        ["duel", "trax", "perfect", "easy"],
        ["duel", "chess", "easy", "easy"],
        ["duel", "dots", "easy", "easy", "--opt", "width=2"],
        ["duel", "dots", "easy", "easy", "--games", "0"],
        ["move", "trax", "expert"],
        ["move", "trax", "easy", "--nodes", "0"],
        ["move", "trax", "easy", "--nodes", "many"],
        ["duel", "trax", "easy", "easy", "--nodes", "-3"],
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str]) -> None:
    done = run(args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.strip()


def test_move_answers_in_notation_that_replay_accepts() -> None:
    done = run(["move", "trax", "medium", "--nodes", "200", "-"], "@0+\nB1+\n")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["seconds"] >= 0
    check = run(["replay", "trax", "-"], f"@0+\nB1+\n{answer['move']}\n")
    assert check.returncode == 0 and json.loads(check.stdout)["moves_applied"] == 3


def test_move_exit_2_when_the_game_is_over_and_3_on_a_rejected_line() -> None:
    over = run(["move", "boxes", "easy", "--opt", "rows=1", "cols=1"], "A1-B1\nA1-A2\nB1-B2\nA2-B2\n")
    assert over.returncode == 2 and json.loads(over.stdout) == {"move": None, "error": "the game is over"}
    rejected = run(["move", "trax", "easy"], "@0+\nZ9/\n")
    assert rejected.returncode == 3
    assert json.loads(rejected.stdout)["error"]["line"] == 2


@pytest.mark.parametrize("game", list(LEVELS))
def test_every_level_plays_a_legal_move_from_the_start(game: str) -> None:
    r = registry.get(game)
    state = r.new_game(r.parse_options({"width": 8, "height": 8} if game == "dots" else {}))
    for level in LEVELS[game]:
        text = choose_move(game, state, level, seed=1, nodes=50)
        r.parse(state, text)  # raises when the text is not a legal move here
    # Dot Dash: the colour choice is a move the opponent makes too.
    if game == "dotdash":
        after = r.apply(state, pick(r, state, "easy", random.Random(1)))[0]
        assert r.format(after, pick(r, after, "hard", random.Random(1), nodes=50)) in ("take red", "take blue")


def test_several_options_after_one_opt_as_the_contract_writes_them(tmp_path: Path) -> None:
    # docs/cli.md: `[--opt K=V ...]` for duel and move as for replay: listed after one flag, quoted together,
    # or repeated, with the move text from stdin ('-' or nothing) or a file after them.
    duels = [
        run(["duel", "boxes", "random", "easy", *opts, "--games", "2", "--seed", "4", "--nodes", "50"])
        for opts in (["--opt", "rows=1", "cols=2"], ["--opt", "rows=1", "--opt", "cols=2"], ["--opt", "rows=1 cols=2"])
    ]
    results = [{k: v for k, v in json.loads(d.stdout).items() if k != "seconds_per_move"} for d in duels]
    assert all(d.returncode == 0 for d in duels), [d.stderr for d in duels]
    assert results[0] == results[1] == results[2] and results[0]["games"] == 2
    game = tmp_path / "game.txt"
    game.write_text("A1-B1\n")
    for tail in (["-"], [], [str(game)]):
        done = run(["move", "boxes", "perfect", "--opt", "rows=1", "cols=2", *tail], "A1-B1\n")
        assert done.returncode == 0, (tail, done.stderr)
        answer = json.loads(done.stdout)["move"]
        check = run(["replay", "boxes", "--opt", "rows=1", "cols=2", "-"], f"A1-B1\n{answer}\n")
        assert check.returncode == 0 and json.loads(check.stdout)["moves_applied"] == 2
    bad = run(["duel", "boxes", "easy", "easy", "--opt", "rows=1", "nonsense"])
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
