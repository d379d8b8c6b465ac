"""`python -m games duel|move`: practice opponents against each other, or asked for one move."""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from typing import Any

from games.base import AnyRuleset, OptionsError
from games.clitools import (
    EXIT_OK,
    EXIT_REJECTED,
    EXIT_USAGE,
    OneLineParser,
    UsageError,
    load_game,
    parse_kv,
    read_input,
    replay_lines,
    spread_values,
)
from games.opponents import DEFAULT_BUDGET, NoMoveError, check_level, pick

MAX_PLIES = 1000
"""A duel game still going after this many actions is scored as a draw (RULES.md sets no such limit
for play between people; it only keeps duels between cautious levels finite)."""
NODES_HELP = "bound each move by N positions searched instead of --budget: the same moves on any machine"


def _seconds(value: float) -> bool:
    """A budget in seconds: finite and above 0 (`nan` and `inf` are no budget)."""
    return math.isfinite(value) and value > 0


def _options(ruleset: AnyRuleset, pairs: list[str] | None) -> Any:
    try:
        return ruleset.parse_options(parse_kv(pairs or [], "--opt"))
    except OptionsError as exc:
        raise UsageError(str(exc)) from None


def _level(ruleset: AnyRuleset, level: str) -> str:
    try:
        return check_level(ruleset.id, level)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def duel(
    ruleset: AnyRuleset,
    options: Any,
    level_a: str,
    level_b: str,
    games: int,
    seed: int,
    budget: float = DEFAULT_BUDGET,
    max_plies: int = MAX_PLIES,
    nodes: int | None = None,
) -> dict[str, Any]:
    """Play `games` games, A taking seat 1 in the even-numbered ones; the contract's result object.
    With `nodes` every move is bounded by that much work instead of `budget` seconds."""
    wins = {"a": 0, "b": 0}
    draws = 0
    spent = {"a": 0.0, "b": 0.0}
    moves = {"a": 0, "b": 0}
    for g in range(games):
        rng = random.Random(seed * 1_000_003 + g)
        sides = {1: "a", 2: "b"} if g % 2 == 0 else {1: "b", 2: "a"}
        levels = {"a": level_a, "b": level_b}
        state = ruleset.new_game(options)
        plies = 0
        while plies < max_plies:
            seat = ruleset.to_move(state)
            if seat is None:
                break
            side = sides[seat]
            t0 = time.perf_counter()
            move = pick(ruleset, state, levels[side], rng, budget, nodes=nodes)
            spent[side] += time.perf_counter() - t0
            moves[side] += 1
            state, _events = ruleset.apply(state, move)
            plies += 1
        outcome = ruleset.outcome(state)
        if outcome is None or outcome.winner is None:
            draws += 1
        else:
            wins[sides[outcome.winner]] += 1
    return {
        "game": ruleset.id,
        "a": level_a,
        "b": level_b,
        "games": games,
        "a_wins": wins["a"],
        "b_wins": wins["b"],
        "draws": draws,
        "seconds_per_move": {k: round(spent[k] / moves[k], 3) if moves[k] else 0.0 for k in ("a", "b")},
    }


def cmd_duel(argv: list[str]) -> int:
    """`duel GAME LEVEL_A LEVEL_B [--opt K=V ...] [--games N] [--seed S] [--budget SECONDS | --nodes N]`."""
    p = OneLineParser(prog="python -m games duel", description="play two practice levels against each other")
    p.add_argument("game")
    p.add_argument("level_a")
    p.add_argument("level_b")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="seconds per move for searching levels")
    p.add_argument("--max-plies", type=int, default=MAX_PLIES, help="a game this long is a draw")
    p.add_argument("--nodes", type=int, help=NODES_HELP)
    args = _parse(p, argv)
    ruleset = load_game(args.game)
    options = _options(ruleset, args.opt)
    a, b = _level(ruleset, args.level_a), _level(ruleset, args.level_b)
    if args.games < 1 or not _seconds(args.budget) or args.max_plies < 1 or (args.nodes is not None and args.nodes < 1):
        raise UsageError("--games, --budget, --max-plies and --nodes must be positive (--budget: a finite number)")
    result = duel(ruleset, options, a, b, args.games, args.seed, args.budget, args.max_plies, args.nodes)
    print(json.dumps(result))
    return EXIT_OK


def cmd_move(argv: list[str]) -> int:
    """`move GAME LEVEL [--opt K=V ...] [--seed S] [--budget SECONDS | --nodes N] [FILE | -]`."""
    p = OneLineParser(prog="python -m games move", description="the move a practice level plays here")
    p.add_argument("game")
    p.add_argument("level")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="seconds the search may take")
    p.add_argument("--nodes", type=int, help=NODES_HELP)
    p.add_argument("file", nargs="?", default="-")
    args = _parse(p, argv, intermixed=True)
    ruleset = load_game(args.game)
    options = _options(ruleset, args.opt)
    level = _level(ruleset, args.level)
    if not _seconds(args.budget) or (args.nodes is not None and args.nodes < 1):
        raise UsageError("--budget and --nodes must be positive (--budget: a finite number)")
    result, state = replay_lines(ruleset, options, read_input(args.file))
    if result["error"]:
        print(json.dumps({"move": None, "error": result["error"]}))
        return EXIT_REJECTED
    if result["status"] == "finished":
        print(json.dumps({"move": None, "error": "the game is over"}))
        return EXIT_USAGE
    t0 = time.perf_counter()
    try:
        move = pick(ruleset, state, level, random.Random(args.seed), args.budget, nodes=args.nodes)
    except NoMoveError as exc:
        print(json.dumps({"move": None, "error": str(exc)}))
        return EXIT_USAGE
    seconds = time.perf_counter() - t0
    print(json.dumps({"move": ruleset.format(state, move), "seconds": round(seconds, 3)}))
    return EXIT_OK


def _parse(p: argparse.ArgumentParser, argv: list[str], intermixed: bool = False) -> argparse.Namespace:
    argv = spread_values(argv, "--opt")  # `--opt K=V K=V` as the contract writes it, and repeated --opt
    try:
        return p.parse_intermixed_args(argv) if intermixed else p.parse_args(argv)
    except SystemExit as exc:
        raise _Exit(0 if exc.code == 0 else EXIT_USAGE) from None


class _Exit(Exception):
    """argparse asked to exit (help or a usage error it already printed)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def main(command: str, argv: list[str]) -> int:
    """Run `duel` or `move`; usage errors print one line and return 2."""
    try:
        return cmd_duel(argv) if command == "duel" else cmd_move(argv)
    except _Exit as exc:
        return exc.code
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
