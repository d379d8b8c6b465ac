"""`python -m games replay|list|solve|duel|move`: the engines' scriptable face (see docs/cli.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from games import registry
from games.base import OptionsError
from games.clitools import (
    EXIT_OK,
    EXIT_REJECTED,
    EXIT_USAGE,
    OneLineParser,
    UsageError,
    load_game,
    parse_kv,
    raise_finished,
    read_input,
    replay_lines,
    summarise,
)

# The shared helpers live in `games.clitools` (so that this module and `games.opponents.cli` never import
# each other); they stay importable from here.
__all__ = [
    "EXIT_OK",
    "EXIT_REJECTED",
    "EXIT_USAGE",
    "UsageError",
    "build_parser",
    "build_replay_parser",
    "games_help",
    "load_game",
    "main",
    "parse_kv",
    "raise_finished",
    "read_input",
    "replay_lines",
    "summarise",
]


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay a move list and print the result JSON."""
    ruleset = load_game(args.game)
    raw_opts: dict[str, Any] = parse_kv([item for pair in args.opt or [] for item in pair.split()], "--opt")
    if args.sgf:
        if not ruleset.sgf_records:
            raise UsageError(f"{ruleset.id} has no SGF import (only {', '.join(_sgf_games())})")
        try:
            with open(args.sgf, encoding="utf-8") as fh:
                sgf_opts, lines = ruleset.import_sgf(fh.read())
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
        from games.pictures import save_png  # Pillow: only when a picture is asked for

        try:
            save_png(ruleset, state, args.png)
        except OSError as exc:  # a missing folder, a folder given as the file, no right to write
            raise UsageError(f"cannot write the picture {args.png}: {exc.strerror or exc}") from None
    print(json.dumps(result))
    return EXIT_REJECTED if result["error"] else EXIT_OK


def _sgf_games() -> list[str]:
    return [key for key in registry.ids() if registry.get(key).sgf_records]


def games_help() -> str:
    """Every game id, its title and its option keys (`--opt KEY=VALUE`), for `--help` texts."""
    lines = ["games and their options (--opt KEY=VALUE):"]
    for key, title in registry.TITLES.items():
        fields = registry.get(key).options_model.model_fields
        lines.append(f"  {key:<8} {title}: {', '.join(fields) or 'no options'}")
    return "\n".join(lines)


def _split_file_from_opts(args: argparse.Namespace) -> None:
    """`--opt rows=2 cols=2 -`: the trailing word that is not KEY=VALUE is the input file."""
    opts: list[str] = list(args.opt or [])
    if args.file is None and opts and "=" not in opts[-1]:
        tail = opts[-1]
        if tail == "-" or Path(tail).exists():
            args.file = opts.pop()
    args.opt = opts


def cmd_list(args: argparse.Namespace) -> int:
    """Print every game id with its title and `ready` (the engine loads)."""
    for key in registry.ids():
        registry.get(key)
        print(f"{key}\t{registry.TITLES[key]}\tready")
    return EXIT_OK


def cmd_solve(argv: list[str]) -> int:
    """Hand over to the solver's own CLI."""
    from games.solver.cli import main as solve_main

    return solve_main(argv)


def build_replay_parser() -> argparse.ArgumentParser:
    """Parser of `replay` (its own, so `--opt` may come before or after FILE)."""
    rp = OneLineParser(
        prog="python -m games replay",
        description="replay a game from move text",
        epilog=games_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rp.add_argument("game")
    rp.add_argument(
        "--opt", action="extend", nargs="+", metavar="KEY=VALUE", help="game options; repeat or list several"
    )
    rp.add_argument("--png", metavar="FILE", help="draw the final position")
    rp.add_argument("--sgf", metavar="FILE", help="read the game from an SGF record")
    rp.add_argument("file", nargs="?", default=None, help="move text, one per line ('-' or nothing: stdin)")
    rp.set_defaults(func=cmd_replay)
    return rp


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser (each command parses its own arguments)."""
    parser = OneLineParser(
        prog="python -m games",
        description="dmhost game engines",
        epilog=games_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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
                _split_file_from_opts(args)
            else:
                args = build_parser().parse_args(args_list)
        except SystemExit as exc:
            return EXIT_OK if exc.code == 0 else EXIT_USAGE
        code: int = args.func(args)
        return code
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
