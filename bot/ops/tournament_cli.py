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
            from bot.wording.ops import unrecognized_arguments

            error(unrecognized_arguments(extras))
        return ns, []

    parser.error = error  # type: ignore[method-assign]
    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def _int(text: str, flag: str) -> int:
    from bot.wording.ops import not_a_whole_number, too_large

    try:
        value = int(text)
    except ValueError:
        raise ValueError(not_a_whole_number(flag, text)) from None
    if abs(value) > 2**31 - 1:  # beyond any field, round count or minutes, and beyond the database's columns
        raise ValueError(too_large(flag, text))
    return value


def cmd_simulate(args: argparse.Namespace) -> int:
    """Run a whole tournament on random results and print the contract's JSON."""
    from bot.tournaments.simulate import simulate
    from bot.wording import ops as words

    prog = "dmhost tournament simulate"
    try:
        if args.format is None or args.players is None:
            raise ValueError(words.SIMULATE_NEEDS)
        try:
            fmt = Format(args.format)
        except ValueError:
            raise ValueError(words.not_a_format([f.value for f in Format], args.format)) from None
        players = _int(args.players, "--players")
        rounds = None if args.rounds is None else _int(args.rounds, "--rounds")
        seed = 0 if args.seed is None else _int(args.seed, "--seed")
        try:
            draws = 0.0 if args.draws is None else float(args.draws)
        except ValueError:
            raise ValueError(words.not_a_probability(repr(args.draws))) from None
        if draws != draws:  # NaN
            raise ValueError(words.not_a_probability("nan"))
        result, note = simulate(fmt, players, rounds, seed, draws)
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if note:
        print(f"{prog}: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps(result))
    else:
        from bot.tournaments.simulate_table import simulate_table

        print(simulate_table(result))
    return EXIT_OK


def cmd_terminal(args: argparse.Namespace) -> int:
    """The commands that create and run a tournament on the database (see `bot.adapters.terminal.tournament`)."""
    from bot.adapters.terminal.tournament import run
    from bot.ops.dburl import db_url
    from bot.opserrors import check_database_url, record_id
    from games.cli import UsageError, parse_kv

    prog = f"dmhost tournament {args.tournament_command}"
    try:
        for flag in ("opt", "clock", "rule"):
            values = getattr(args, flag, None)
            parsed = parse_kv([item for pair in values or [] for item in pair.split()], f"--{flag}")
            setattr(args, {"opt": "options", "clock": "clock_spec", "rule": "rules"}[flag], parsed)
        if args.tournament_command == "create":
            rounds = None if args.rounds is None else _int(args.rounds, "--rounds")
            args.rounds = rounds
            args.max_players = None if args.max_players is None else _int(args.max_players, "--max-players")
            if args.bye_points not in ("1", "0.5", "½"):
                from bot.wording.ops import not_bye_points

                raise ValueError(not_bye_points(args.bye_points))
            args.bye_points = 1.0 if args.bye_points == "1" else 0.5
            for flag in ("checkin", "no_show", "round_every"):
                value = getattr(args, flag)
                flag_name = "--" + flag.replace("_", "-")
                setattr(args, flag, None if value is None else _int(value, flag_name) * 60)
            if args.start is not None:
                import datetime as dt

                from bot.schedule.when import parse_when

                args.start = parse_when(args.start, now=dt.datetime.now(dt.UTC))
        else:
            args.id = record_id(args.id, "ID")
        for flag in ("board", "round"):
            if getattr(args, flag, None) is not None:
                # rounds and boards count from 1: `--round 0` names no round (it is not "the current one")
                setattr(args, flag, record_id(getattr(args, flag), f"--{flag}" if flag == "round" else flag.upper()))
    except (ValueError, UsageError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    url = db_url(args.db)
    check_database_url(url, must_exist=args.tournament_command != "create")
    from bot.compose import build_host

    return run(args, url, lambda: build_host(url, heartbeat_seconds=5.0))  # the command's host, built by the root


def add_parser(sub: Any) -> None:
    """Register `tournament` and its subcommands on dmhost's subparsers."""
    tour = sub.add_parser("tournament", help="tournaments: simulate one, or create and run one in the terminal")
    _one_line(tour, "dmhost tournament")
    tsub = tour.add_subparsers(dest="tournament_command", required=True)
    sim = tsub.add_parser("simulate", help="a whole tournament on random results (a table; --json: the JSON)")
    _one_line(sim, "dmhost tournament simulate")
    sim.add_argument("--format", metavar="|".join(f.value for f in Format))
    sim.add_argument("--players", metavar="N")
    sim.add_argument("--rounds", metavar="R")
    sim.add_argument("--seed", metavar="S")
    sim.add_argument("--draws", metavar="P")
    sim.add_argument("--json", action="store_true")
    sim.set_defaults(func=cmd_simulate)

    def command(name: str, help_: str, *, with_id: bool = True) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = tsub.add_parser(name, help=help_)
        _one_line(p, f"dmhost tournament {name}")
        if with_id:
            p.add_argument("id", metavar="ID")
            p.add_argument("--json", action="store_true", help="print the state as JSON afterwards")
        p.add_argument("--db", metavar="PATH")
        p.set_defaults(func=cmd_terminal)
        return p

    create = command("create", "open a tournament for sign-up; prints its id", with_id=False)
    create.add_argument("--json", action="store_true", help="print the new tournament's state as JSON")
    create.add_argument("name")
    create.add_argument("--game", required=True)
    create.add_argument("--format", required=True, metavar="|".join(f.value for f in Format))
    create.add_argument("--rounds", metavar="R", help="Swiss only (default: log2 of the field)")
    create.add_argument("--opt", action="extend", nargs="+", metavar="K=V")
    create.add_argument("--clock", action="extend", nargs="+", metavar="K=V")
    create.add_argument("--rule", action="extend", nargs="+", metavar="K=V")
    create.add_argument("--prize")
    create.add_argument("--bye-points", default="1", metavar="1|0.5")
    create.add_argument("--max-players", metavar="N")
    create.add_argument("--rated", action="store_true")
    create.add_argument("--start", metavar="WHEN", help="it starts by itself then (as `dmhost schedule when` reads)")
    create.add_argument("--checkin", metavar="MIN", help="check-in window before the start; the absent are removed")
    create.add_argument("--no-show", metavar="MIN", help="each game: absent this long after its start loses")
    create.add_argument("--round-every", metavar="MIN", help="minutes between round starts")
    create.add_argument("--seeding", default="joined", choices=["joined", "rating"])
    create.add_argument(
        "--missed",
        default="play_on",
        choices=["play_on", "withdraw"],
        help="a player who misses a game (no-show): plays on, or is withdrawn unless they confirm with `stay`",
    )
    join = command("join", "enter players (by name)")
    join.add_argument("names", nargs="+", metavar="NAME")
    leave = command("leave", "take an entry back before the start, or withdraw after it")
    leave.add_argument("player_name", metavar="NAME")
    command("start", "pair round 1 and open its matches")
    here = command("here", "check a player in (for the tournament before its start, else for their game)")
    here.add_argument("player_name", metavar="NAME")
    stay = command("stay", "under --missed withdraw: a player who missed a game confirms they play on")
    stay.add_argument("player_name", metavar="NAME")
    status = command("status", "pairings, open matches and standings (records results that arrived)")
    from bot.ops.web_cli import add_url_options

    add_url_options(status, "tournament's")
    result = command("result", "adjudicate a running game or override a result")
    result.add_argument("board", metavar="BOARD")
    result.add_argument("result", metavar="1-0|0-1|1/2-1/2")
    result.add_argument("--round", metavar="N", help="default: the current round")
    command("pause", "pair no new round until resumed")
    command("resume", "pair again")
    command("cancel", "end without a winner; running matches are aborted")
    play = command("play", "practice bots play every open match until the tournament ends")
    play.add_argument("--bot", default="random", choices=["random", "easy", "medium", "hard"])
