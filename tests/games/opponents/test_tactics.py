"""Tactics the `hard` opponent must never miss, on positions kept in tests/data/opponents/.

The positions were found by `regen_positions.py` with the engines alone; each test checks the
opponent's choice with the engines too (never against a stored answer).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import pytest

from games import registry
from games.base import AnyRuleset
from games.clitools import replay_lines
from games.opponents import pick
from tests import DATA
from tests.games.opponents.regen_positions import forces_win

POSITIONS = DATA / "opponents"
NODES = {"trax": 800, "dots": 400, "dotdash": 40, "pathing": 400}
"""The work each game's search may do (positions searched): about half a second on a quiet machine, and
the same moves on any machine, however busy."""


def load(name: str) -> tuple[AnyRuleset, dict[str, Any], list[list[str]]]:
    data = json.loads((POSITIONS / name).read_text())
    game = name.split("_")[0]
    return registry.get(game), data["options"], data["positions"]


def position(r: AnyRuleset, options: dict[str, Any], moves: list[str]) -> Any:
    result, state = replay_lines(r, r.parse_options(options), moves)
    assert result["error"] is None and result["status"] == "ongoing", result
    return state


def wins_now(r: AnyRuleset, state: Any, move: Any) -> bool:
    me = r.to_move(state)
    out = r.outcome(r.apply(state, move)[0])
    return out is not None and out.winner == me


def ids(positions: list[list[str]]) -> list[str]:
    return [f"after-{len(p)}-moves-{i}" for i, p in enumerate(positions)]


TRAX_WIN = load("trax_win.json")
TRAX_DEFEND = load("trax_defend.json")
TRAX_FORCE = load("trax_force.json")
DOTS = load("dots_capture.json")
DOTDASH = load("dotdash_lead.json")


@pytest.mark.parametrize("moves", TRAX_WIN[2], ids=ids(TRAX_WIN[2]))
def test_trax_hard_plays_a_winning_move(moves: list[str]) -> None:
    r, options, _ = TRAX_WIN
    state = position(r, options, moves)
    assert any(wins_now(r, state, m) for m in r.legal_moves(state))
    move = pick(r, state, "hard", random.Random(0), nodes=NODES[r.id])
    assert wins_now(r, state, move), r.format(state, move)


@pytest.mark.parametrize("moves", TRAX_DEFEND[2], ids=ids(TRAX_DEFEND[2]))
def test_trax_hard_never_allows_a_win_in_one_it_can_prevent(moves: list[str]) -> None:
    r, options, _ = TRAX_DEFEND
    state = position(r, options, moves)
    move = pick(r, state, "hard", random.Random(0), nodes=NODES[r.id])
    after = r.apply(state, move)[0]
    if r.outcome(after) is not None:
        assert r.outcome(after).winner == r.to_move(state)
        return
    losing = [x for x in r.legal_moves(after) if wins_now(r, after, x)]
    assert not losing, f"{r.format(state, move)} lets {r.format(after, losing[0])} win"


@pytest.mark.parametrize("moves", TRAX_FORCE[2], ids=ids(TRAX_FORCE[2]))
def test_trax_hard_plays_a_threat_no_reply_stops(moves: list[str]) -> None:
    # No move wins at once, but one does next turn whatever the reply (a double threat, or a threat
    # whose every defence is forced into the loop); `hard` must play such a move. Checked over every
    # legal reply by the engine.
    r, options, _ = TRAX_FORCE
    state = position(r, options, moves)
    assert not any(wins_now(r, state, m) for m in r.legal_moves(state))
    move = pick(r, state, "hard", random.Random(0), nodes=NODES[r.id])
    assert forces_win(r, state, move), r.format(state, move)


@pytest.mark.parametrize("level", ["medium", "hard"])
@pytest.mark.parametrize("moves", DOTS[2], ids=ids(DOTS[2]))
def test_dots_takes_a_safe_capture_of_three_or_more(moves: list[str], level: str) -> None:
    # Positions where some dot captures 3 or more and the reply can take nothing back. `medium`
    # searches only a few of its moves, but a capture always looks best enough to be among them.
    r, options, _ = DOTS
    state = position(r, options, moves)
    me = state.turn

    def gain(st: Any, move: Any, seat: int) -> int:
        return int(r.apply(st, move)[0].caps[seat - 1] - st.caps[seat - 1])

    safe = [
        m
        for m in r.legal_moves(state)
        if m[1] >= 0
        and gain(state, m, me) >= 3
        and not any(gain(r.apply(state, m)[0], x, 3 - me) for x in r.legal_moves(r.apply(state, m)[0]))
    ]
    assert safe
    move = pick(r, state, level, random.Random(0), nodes=NODES[r.id])
    assert gain(state, move, me) >= 3, r.format(state, move)


@pytest.mark.parametrize("moves", DOTDASH[2], ids=ids(DOTDASH[2]))
def test_dotdash_hard_completes_a_winning_five_row_lead(moves: list[str]) -> None:
    r, options, _ = DOTDASH
    state = position(r, options, moves)
    me = r.to_move(state)
    move = pick(r, state, "hard", random.Random(0), nodes=NODES[r.id])
    after = r.apply(state, move)[0]
    assert not r.loses_by_shifting(state, move)
    replies = r.legal_moves(after)
    outcomes = [r.outcome(r.apply(after, x)[0]) for x in replies] if r.outcome(after) is None else [r.outcome(after)]
    assert outcomes and all(o is not None and o.winner == me for o in outcomes), r.format(state, move)


def pathing_blocks() -> list[str]:
    return [b for b in (POSITIONS / "pathing_line.txt").read_text().split("\n\n") if b.strip()]


@pytest.mark.parametrize("block", pathing_blocks(), ids=lambda b: f"after-{b.count(chr(10)) + 1}-moves")
def test_pathing_hard_completes_four_in_a_row_via_the_move_command(block: str) -> None:
    r = registry.get("pathing")
    state = position(r, {}, block.splitlines())
    assert any(wins_now(r, state, m) for m in r.legal_moves(state))
    done = subprocess.run(
        [sys.executable, "-m", "games", "move", "pathing", "hard", "--nodes", str(NODES["pathing"]), "-"],
        input=block + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["seconds"] >= 0
    move = r.parse(state, answer["move"])
    assert wins_now(r, state, move), answer
