"""`dmhost` console script: run the bot, host a terminal room, read logs, migrate."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from bot.db import sqlite_url_for

EXIT_OK = 0
EXIT_USAGE = 2


def _db_url(path: str | None) -> str:
    if path:
        return path if "://" in path else sqlite_url_for(path)
    from bot.settings import Settings

    return Settings().db_url


def _kv(pairs: list[str] | None, what: str) -> dict[str, str]:
    """`--opt`/`--clock` values (several `K=V` may share one argument) as a dict; exit 2 on a bad one."""
    from games.cli import UsageError, parse_kv

    try:
        return parse_kv([item for pair in pairs or [] for item in pair.split()], what)
    except UsageError as exc:
        raise SystemExit(_usage(str(exc))) from None


def _usage(message: str) -> int:
    print(f"dmhost: {message}", file=sys.stderr)
    return EXIT_USAGE


def cmd_room(args: argparse.Namespace) -> int:
    """Host one match in the terminal."""
    from bot.room import Room, RoomConfig, stdin_lines
    from bot.service import HostError

    wanted = 1 if args.bot else 2
    if args.resume is None and (not args.game or len(args.player or []) != wanted):
        return _usage("room needs GAME and two --player NAME, one --player with --bot, or --resume ID")
    config = RoomConfig(
        db_url=_db_url(args.db),
        game=args.game,
        players=args.player or [],
        options=_kv(args.opt, "--opt"),
        clock=_kv(args.clock, "--clock"),
        events_json=args.events_json,
        resume=args.resume,
        png_dir=Path(args.png) if args.png else None,
        bot_level=args.bot,
    )

    from bot.runtime import tune_gc

    tune_gc()

    async def main() -> int:
        room = Room(config)
        return await room.run(await stdin_lines())

    try:
        return asyncio.run(main())
    except HostError as exc:
        return _usage(str(exc))
    except KeyboardInterrupt:
        return EXIT_OK


def cmd_log(args: argparse.Namespace) -> int:
    """Print a match's log."""
    from bot.matchlog import build_log, format_log
    from bot.store import MatchStore

    async def main() -> int:
        store = MatchStore(_db_url(args.db))
        try:
            await store.open()
            stored = await store.load(args.match_id, with_events=True)
        finally:
            await store.close()
        if stored is None:
            return _usage(f"there is no match {args.match_id}")
        if args.gif:
            write_gif(stored, Path(args.gif))
        if args.sgf:
            if stored.game != "dots":
                return _usage("SGF export is for dots matches")
            write_sgf(stored, Path(args.sgf))
        data = build_log(stored)
        if args.analyse:
            try:
                from bot.analysis import analyse_match
            except ModuleNotFoundError:
                return _usage("move analysis needs the Dots-and-Boxes solver, which this build lacks")
            data["analysis"] = analyse_match(stored)
        text = format_log(data)
        if args.analyse and not args.json:
            from bot.analysis import format_analysis

            names = {seat: name for seat, (_pid, name) in stored.players.items()}
            text += "\n" + format_analysis(data["analysis"], names)
        print(json.dumps(data, indent=2) if args.json else text)
        return EXIT_OK

    return asyncio.run(main())


def write_gif(stored: Any, path: Path) -> None:
    """An animated replay: a frame per turn with both clocks."""
    from bot.replay import replay_match
    from games import pictures

    ruleset, frames = replay_match(stored)
    names = {seat: name for seat, (_pid, name) in stored.players.items()}
    captions = []
    for f in frames:
        clocks = "  ".join(f"{names.get(s, s)} {pictures.clock_text(v)}" for s, v in sorted(f.clocks.items()))
        captions.append(f"{f.caption}   {clocks}")
    path.write_bytes(pictures.render_replay_gif(ruleset, [f.state for f in frames], captions, names=names))


def write_sgf(stored: Any, path: Path) -> None:
    """A Dots match as an SGF record."""
    from bot.replay import replay_match

    ruleset, frames = replay_match(stored)
    path.write_text(ruleset.export_sgf(stored.options, [f.engine_move for f in frames[1:]]), encoding="utf-8")


def cmd_db(args: argparse.Namespace) -> int:
    """Apply or revert migrations."""
    from bot.db import current_revision, migrate

    url = _db_url(args.db)

    async def main() -> int:
        if args.action == "upgrade":
            await migrate(url, "upgrade", args.revision or "head")
        elif args.action == "downgrade":
            await migrate(url, "downgrade", args.revision or "base")
        print(await current_revision(url) or "empty")
        return EXIT_OK

    return asyncio.run(main())


def cmd_run(args: argparse.Namespace) -> int:
    """Run the Discord bot."""
    from bot.settings import Settings

    settings = Settings()
    if settings.token is None:
        print(
            "dmhost: no Discord token configured.\n"
            "  Set DMHOST_TOKEN (environment or a .env file) to the bot token from the Discord developer\n"
            "  portal, then run `dmhost run` again. See README.md, section 'Running on Discord'.\n"
            "  To play without Discord: dmhost room boxes --player alice --player bob",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        from bot.app import run_bot
    except ModuleNotFoundError:
        return _usage("the Discord adapter is not part of this build")
    run_bot(settings)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """Argument parser of `dmhost`."""
    parser = argparse.ArgumentParser(prog="dmhost", description="Death Match host")
    sub = parser.add_subparsers(dest="command", required=True)

    room = sub.add_parser("room", help="host one match in the terminal")
    room.add_argument("game", nargs="?")
    room.add_argument("--player", action="append", metavar="NAME")
    room.add_argument("--opt", action="extend", nargs="+", metavar="K=V")
    room.add_argument("--clock", action="extend", nargs="+", metavar="K=V")
    room.add_argument("--db", metavar="PATH")
    room.add_argument("--events-json", action="store_true")
    room.add_argument("--resume", type=int, metavar="MATCH_ID")
    room.add_argument("--png", metavar="DIR", help="write a board picture per move into DIR")
    room.add_argument(
        "--bot",
        nargs="?",
        const="hard",
        choices=["random", "easy", "medium", "hard", "perfect"],
        help="play against the practice opponent (default level: hard; perfect is boxes only)",
    )
    room.set_defaults(func=cmd_room)

    lg = sub.add_parser("log", help="print a match's log")
    lg.add_argument("match_id", type=int)
    lg.add_argument("--db", metavar="PATH")
    lg.add_argument("--json", action="store_true")
    lg.add_argument("--gif", metavar="FILE", help="write an animated replay")
    lg.add_argument("--sgf", metavar="FILE", help="export a dots match as SGF")
    lg.add_argument("--analyse", "--analyze", action="store_true", help="annotate boxes/pathing moves with the solver")
    lg.set_defaults(func=cmd_log)

    db = sub.add_parser("db", help="database migrations")
    db.add_argument("action", choices=["upgrade", "downgrade", "current"])
    db.add_argument("revision", nargs="?")
    db.add_argument("--db", metavar="PATH")
    db.set_defaults(func=cmd_db)

    run = sub.add_parser("run", help="run the Discord bot")
    run.set_defaults(func=cmd_run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_USAGE
    try:
        code: int = args.func(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return code


if __name__ == "__main__":
    sys.exit(main())
