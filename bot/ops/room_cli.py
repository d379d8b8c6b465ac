"""`dmhost room`: one match hosted in the terminal (`bot.adapters.terminal.room`), or a scheduled DM
(`--scheduled ID`, `bot.adapters.terminal.scheduled`), read from standard input."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.ops.common import EXIT_OK, analysis_enabled, check_database_url, db_url, kv, usage


def cmd_room(args: argparse.Namespace) -> int:
    """Host one match in the terminal."""
    from bot.adapters.terminal.room import Room, RoomConfig
    from bot.ops.room_checks import png_problem

    if (png := png_problem(args.png)) is not None:
        return usage(png)
    if args.scheduled is not None:
        return cmd_room_scheduled(args)
    wanted = 1 if args.bot else 2
    if args.resume is None and (not args.game or len(args.player or []) != wanted):
        from bot.wording.ops import ROOM_NEEDS

        return usage(ROOM_NEEDS)
    from bot.ratings import RatedChoiceError, split_rated

    options, clock = kv(args.opt, "--opt"), kv(args.clock, "--clock")
    try:
        rated, rules = split_rated(kv(args.rule, "--rule"))
    except RatedChoiceError as exc:
        return usage(str(exc))
    if args.resume is None and "takeback" not in rules and "takeback" not in clock and not _typed(sys.stdin):
        rules["takeback"] = "0"  # moves on a pipe are final at once, unless a take-back window was asked for
    if args.resume is None:
        from bot.host.clocks import seat_odds
        from bot.playernames import name_problem

        args.player = [n.strip() for n in args.player or []]
        if (bad := name_problem(args.player, ["dmhost", f"dmhost ({args.bot})"] if args.bot else [])) is not None:
            return usage(bad)

        named = [[n] for n in args.player or []] + ([["dmhost", "bot"]] if args.bot else [])
        try:
            clock = seat_odds(clock, named)  # time odds by name: `--clock bob:reserve=120`
        except ValueError as exc:
            return usage(str(exc))
        problem = _match_problem(args.game, args.player or [], args.bot, options, clock, rules)
        if problem is not None:  # before any database is opened, so a typo leaves no file behind
            return usage(problem)
    url = db_url(args.db)
    check_database_url(url, must_exist=args.resume is not None)
    config = RoomConfig(
        db_url=url,
        game=args.game,
        players=args.player or [],
        options=options,
        clock=clock,
        rules=rules,
        rated=rated,
        events_json=args.events_json,
        resume=args.resume,
        png_dir=Path(args.png) if args.png else None,
        bot_level=args.bot,
        analyse=analysis_enabled(),  # stored before the room closes (`dmhost log --html` shows it); DMHOST_ANALYSIS
        lease=True,  # hosted under the match's lease (its tournament's or DM's): never by two processes at once
    )

    from bot.ops.runtime import tune_gc

    tune_gc()
    from bot.compose import build_host

    return _host_room(lambda: Room(config, build_host(config.db_url)))  # the room's host, built by the root


def _host_room(make: Callable[[], Any]) -> int:
    """Run a terminal room (plain or scheduled) on standard input; a host refusal is one usage line."""
    from bot.adapters.terminal.room import stdin_lines
    from bot.host.service import HostError

    async def main() -> int:
        room = make()
        lines = await stdin_lines()
        stop_on_sigterm(lines, getattr(room, "terminate", None))
        from bot.adapters.terminal.words import leave_on_sigint

        leave_on_sigint(lines)
        return int(await room.run(lines))

    try:
        return asyncio.run(main())
    except HostError as exc:
        from bot.wording import error_text

        return usage(error_text(exc))
    except KeyboardInterrupt:
        return EXIT_OK


def _typed(stream: Any) -> bool:
    """Whether input comes from a person at a terminal (not a pipe or a file)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def cmd_room_scheduled(args: argparse.Namespace) -> int:
    """`dmhost room --scheduled ID`: host a DM stored with `dmhost schedule add` when its time comes."""
    from bot.adapters.terminal.room import RoomConfig
    from bot.adapters.terminal.scheduled import ScheduledRoom

    if args.game or args.player or args.resume is not None or args.bot or args.opt or args.clock or args.rule:
        from bot.wording.ops import ROOM_SCHEDULED_NEEDS

        return usage(ROOM_SCHEDULED_NEEDS)
    url = db_url(args.db)
    check_database_url(url, must_exist=True)
    config = RoomConfig(
        db_url=url,
        events_json=args.events_json,
        png_dir=Path(args.png) if args.png else None,
        scheduled=args.scheduled,
        analyse=analysis_enabled(),  # as `dmhost room`
        lease=True,  # the DM's lease: a second room for it waits as a standby
    )
    from bot.compose import build_host

    return _host_room(lambda: ScheduledRoom(config, build_host(config.db_url)))


def stop_on_sigterm(lines: asyncio.Queue[str | None], terminate: Callable[[], None] | None = None) -> None:
    """SIGTERM ends the input: the room stops as at end of input (exit 0, the match stays resumable). A room
    that would wait on after the end of input (the scheduled room, for its appointment) is told to stop too."""
    import signal

    def on_term() -> None:
        if terminate is not None:
            terminate()
        lines.put_nowait(None)

    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGTERM, on_term)
    except (NotImplementedError, RuntimeError):  # no signal handlers on this platform or thread
        pass


def _match_problem(
    game: str,
    players: list[str],
    bot: str | None,
    options: dict[str, str],
    clock: dict[str, str],
    rules: dict[str, str],
) -> str | None:
    """What is wrong with a new terminal match (unknown game, bad option, rule or clock, a player twice), or None."""
    from bot.adapters.practice import BOT_ID
    from bot.host.match import new_live
    from bot.host.service import HostError, PlayerRef
    from games.opponents import check_level

    refs = [PlayerRef(f"local:{n}", n) for n in players]
    if bot:
        refs.append(PlayerRef(BOT_ID, f"dmhost ({bot})"))
    try:
        new_live(game, refs, options, clock, rules, 1, None)
        if bot:
            check_level(game, bot)
    except HostError as exc:
        from bot.wording import error_text

        return error_text(exc)
    except ValueError as exc:
        return str(exc)
    return None


def add_parser(sub: Any) -> None:
    """`dmhost room` on the `dmhost` parser."""
    from bot.opserrors import id_argument
    from games.cli import games_help

    room = sub.add_parser(
        "room",
        help="host one match in the terminal",
        epilog=games_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    room.add_argument("game", nargs="?")
    room.add_argument("--player", action="append", metavar="NAME")
    room.add_argument("--opt", action="extend", nargs="+", metavar="K=V")
    room.add_argument("--clock", action="extend", nargs="+", metavar="K=V")
    room.add_argument(
        "--rule",
        action="extend",
        nargs="+",
        metavar="K=V",
        help="house rules, e.g. draw=on clock=grace (see the rule cards); rated=off: a casual match",
    )
    room.add_argument(
        "--db",
        metavar="PATH",
        help="SQLite file or database URL (default: DMHOST_DATABASE_URL when set, else dmhost.db in the current "
        "folder, made if missing)",
    )
    room.add_argument("--events-json", action="store_true")
    room.add_argument("--resume", type=id_argument("--resume"), metavar="MATCH_ID")
    room.add_argument(
        "--scheduled",
        type=id_argument("--scheduled"),
        metavar="ID",
        help="host the DM of `dmhost schedule add`: wait for it, check in with NAME: here, play, record the result",
    )
    room.add_argument("--png", metavar="DIR", help="write a board picture per move into DIR")
    room.add_argument(
        "--bot",
        nargs="?",
        const="hard",
        choices=["random", "easy", "medium", "hard", "perfect"],
        help="play against the practice opponent (default level: hard; perfect is boxes only)",
    )
    room.set_defaults(func=cmd_room)
