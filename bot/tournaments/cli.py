"""`dmhost tournament …`: the subcommands, registered on dmhost's parser by `add_parser`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, NoReturn

from bot.tournaments.rounds import Format

EXIT_OK = 0
EXIT_USAGE = 2


def _one_line(parser: argparse.ArgumentParser, prog: str) -> None:
    """Make `parser` report a bad argument (unknown ones included) in one line and exit 2, no usage block."""

    def error(message: str) -> NoReturn:
        print(f"{prog}: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)

    parse_known = parser.parse_known_args

    def parse_known_args(args: Any = None, namespace: Any = None) -> Any:
        ns, extras = parse_known(args, namespace)
        if extras:
            error(f"unrecognized arguments: {' '.join(extras)}")
        return ns, []

    parser.error = error  # type: ignore[method-assign]
    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def _int(text: str, flag: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{flag} takes a whole number, not {text!r}") from None


def cmd_simulate(args: argparse.Namespace) -> int:
    """Run a whole tournament on random results and print the contract's JSON."""
    from bot.tournaments.simulate import simulate

    prog = "dmhost tournament simulate"
    try:
        if not args.json:
            raise ValueError("--json is required (the output is JSON)")
        if args.format is None or args.players is None:
            raise ValueError("--format and --players are required")
        try:
            fmt = Format(args.format)
        except ValueError:
            raise ValueError(
                f"--format must be one of {', '.join(f.value for f in Format)}, not {args.format!r}"
            ) from None
        players = _int(args.players, "--players")
        rounds = None if args.rounds is None else _int(args.rounds, "--rounds")
        seed = 0 if args.seed is None else _int(args.seed, "--seed")
        try:
            draws = 0.0 if args.draws is None else float(args.draws)
        except ValueError:
            raise ValueError(f"--draws takes a probability from 0 to 1, not {args.draws!r}") from None
        if draws != draws:  # NaN
            raise ValueError("--draws takes a probability from 0 to 1, not nan")
        result, note = simulate(fmt, players, rounds, seed, draws)
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if note:
        print(f"{prog}: {note}", file=sys.stderr)
    print(json.dumps(result))
    return EXIT_OK


def add_parser(sub: Any) -> None:
    """Register `tournament` and its subcommands on dmhost's subparsers."""
    tour = sub.add_parser("tournament", help="tournaments: simulate one, or create and run one in the terminal")
    _one_line(tour, "dmhost tournament")
    tsub = tour.add_subparsers(dest="tournament_command", required=True)
    sim = tsub.add_parser("simulate", help="a whole tournament on random results, as JSON")
    _one_line(sim, "dmhost tournament simulate")
    sim.add_argument("--format", metavar="|".join(f.value for f in Format))
    sim.add_argument("--players", metavar="N")
    sim.add_argument("--rounds", metavar="R")
    sim.add_argument("--seed", metavar="S")
    sim.add_argument("--draws", metavar="P")
    sim.add_argument("--json", action="store_true")
    sim.set_defaults(func=cmd_simulate)
