"""`python -m games replay|list|solve|duel|move`: the engines' scriptable face (see shared/CONTRACT.md)."""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from games import registry
from games.base import AnyRuleset, MoveError, OptionsError, play_text

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_REJECTED = 3

_SEAT_PREFIX = re.compile(r"^\s*([12])\s*:\s*(.*)$", re.DOTALL)
_RESIGN = re.compile(r"^\s*resigns?\s*$", re.IGNORECASE)


class UsageError(Exception):
    """Bad command line: exit 2."""


def parse_kv(pairs: Iterable[str], what: str) -> dict[str, str]:
    """['rows=3', 'cols=4'] → {'rows': '3', 'cols': '4'}."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{what} must look like KEY=VALUE, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def replay_lines(ruleset: AnyRuleset, options: Any, lines: Sequence[str]) -> tuple[dict[str, Any], Any]:
    """Replay move lines; returns the contract's result object and the final state."""
    state = ruleset.new_game(options)
    applied = 0
    error: dict[str, Any] | None = None
    resigned: tuple[int, str] | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        seat: int | None = None
        m = _SEAT_PREFIX.match(line)
        if m:
            seat, line = int(m.group(1)), m.group(2)
        try:
            if resigned is not None:
                raise_finished(line)
            if _RESIGN.match(line):
                who = ruleset.to_move(state) if seat is None else seat
                if who is None:
                    raise_finished(line)
                assert who is not None
                resigned = (3 - who, "resign")
                applied += 1
                continue
            state, _move, _events = play_text(ruleset, state, line, seat)
            applied += 1
        except MoveError as exc:
            error = {"line": number, "kind": exc.kind, "message": str(exc)}
            break
    result = summarise(ruleset, state, applied, error, resigned)
    return result, state


def raise_finished(text: str) -> None:
    """Refuse a line after the game ended."""
    from games.base import GameFinishedError

    raise GameFinishedError(text, "the game is already over")


def summarise(
    ruleset: AnyRuleset,
    state: Any,
    applied: int,
    error: dict[str, Any] | None,
    resigned: tuple[int, str] | None = None,
) -> dict[str, Any]:
    """The contract's JSON object for a state."""
    outcome = ruleset.outcome(state)
    scores = ruleset.scores(state)
    winner: int | None
    reason: str | None
    if resigned is not None:
        finished, winner, reason = True, resigned[0], resigned[1]
    elif outcome is not None:
        finished, winner, reason = True, outcome.winner, outcome.reason
    else:
        finished, winner, reason = False, None, None
    return {
        "game": ruleset.id,
        "moves_applied": applied,
        "status": "finished" if finished else "ongoing",
        "winner": winner,
        "reason": reason,
        "to_move": None if finished else ruleset.to_move(state),
        "scores": {str(k): v for k, v in sorted(scores.items())},
        "error": error,
        "extra": ruleset.extra(state),
    }


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay a move list and print the result JSON."""
    ruleset = load_game(args.game)
    raw_opts: dict[str, Any] = parse_kv(args.opt or [], "--opt")
    if args.sgf:
        importer = getattr(ruleset, "import_sgf", None)
        if importer is None:
            raise UsageError(f"{ruleset.id} has no SGF import")
        try:
            with open(args.sgf, encoding="utf-8") as fh:
                sgf_opts, lines = importer(fh.read())
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read SGF {args.sgf}: {exc}") from None
        raw_opts = {**sgf_opts, **raw_opts}
    else:
        lines = read_input(args.file)
    try:
        options = ruleset.parse_options(raw_opts)
    except OptionsError as exc:
        raise UsageError(str(exc)) from None
    result, state = replay_lines(ruleset, options, lines)
    if args.png:
        try:
            pictures = importlib.import_module("games.pictures")
        except ModuleNotFoundError:
            raise UsageError("board pictures are not available in this build") from None
        pictures.save_png(ruleset, state, args.png)
    print(json.dumps(result))
    return EXIT_REJECTED if result["error"] else EXIT_OK


def read_input(path: str | None) -> list[str]:
    """Lines of FILE, or stdin for '-' or nothing."""
    if path in (None, "-"):
        return sys.stdin.read().splitlines()
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def load_game(game_id: str) -> AnyRuleset:
    """Ruleset or a usage error."""
    try:
        return registry.get(game_id)
    except (registry.UnknownGameError, registry.GameNotImplementedError) as exc:
        raise UsageError(str(exc.args[0])) from None


def cmd_list(args: argparse.Namespace) -> int:
    """Print every game id with its title and whether it is available."""
    ready = set(registry.implemented())
    for key, title in registry.TITLES.items():
        print(f"{key}\t{title}\t{'ready' if key in ready else 'not implemented'}")
    return EXIT_OK


def cmd_solve(argv: list[str]) -> int:
    """Hand over to the solver's own CLI."""
    try:
        solver_cli = importlib.import_module("games.solver.cli")
    except ModuleNotFoundError:
        raise UsageError("the solver is not implemented yet") from None
    code: int = solver_cli.main(argv)
    return code


def build_replay_parser() -> argparse.ArgumentParser:
    """Parser of `replay` (its own, so `--opt` may come before or after FILE)."""
    rp = argparse.ArgumentParser(prog="python -m games replay", description="replay a game from move text")
    rp.add_argument("game")
    rp.add_argument("--opt", action="append", metavar="KEY=VALUE")
    rp.add_argument("--png", metavar="FILE", help="draw the final position")
    rp.add_argument("--sgf", metavar="FILE", help="read the game from an SGF record")
    rp.add_argument("file", nargs="?", default="-")
    rp.set_defaults(func=cmd_replay)
    return rp


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser (each command parses its own arguments)."""
    parser = argparse.ArgumentParser(prog="python -m games", description="dmhost game engines")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("replay", help="replay a game from move text", add_help=False)
    ls = sub.add_parser("list", help="list the games")
    ls.set_defaults(func=cmd_list)
    sub.add_parser("solve", help="exact Dots-and-Boxes analysis", add_help=False)
    sub.add_parser("duel", help="play two practice-opponent levels against each other", add_help=False)
    sub.add_parser("move", help="the move a practice opponent plays in a position", add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] == "solve":
            return cmd_solve(args_list[1:])
        if args_list and args_list[0] in ("duel", "move"):
            from games.opponents import cli as opponents_cli

            return opponents_cli.main(args_list[0], args_list[1:])
        try:
            if args_list and args_list[0] == "replay":
                args = build_replay_parser().parse_intermixed_args(args_list[1:])
            else:
                args = build_parser().parse_args(args_list)
        except SystemExit as exc:
            return EXIT_OK if exc.code == 0 else EXIT_USAGE
        code: int = args.func(args)
        return code
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
