"""`dmhost` console script: run the bot, host a terminal room, read logs, migrate.

Start-up stays cheap: this module imports only the standard library; a command's own modules (and its full
argument parser) are imported when that command runs (`COMMANDS`), so `dmhost --help` reads no database
library and no game. Ctrl-C at any moment, start-up included, ends the command without a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT), as shells report it; a terminal room left with Ctrl-C exits 0 (it is a way to leave)."""


def db_url(path: str | None) -> str:
    """The database of `--db PATH` (bot.ops.dburl), imported when a command needs it."""
    from bot.ops.dburl import db_url as url_of

    return url_of(path)


def check_database_url(url: str, *, must_exist: bool = False) -> None:
    from bot.opserrors import check_database_url as check

    check(url, must_exist=must_exist)


def explain(exc: BaseException, url: str | None = None) -> str | None:
    from bot.opserrors import explain as explain_error

    return explain_error(exc, url)


def shown_url(url: str) -> str:
    from bot.opserrors import shown_url as shown

    return shown(url)


def analysis_enabled() -> bool:
    from bot.settings import analysis_enabled as enabled

    return enabled()


def _kv(pairs: list[str] | None, what: str) -> dict[str, str]:
    """`--opt`/`--clock`/`--rule` values (several `K=V` may share one argument) as a dict; exit 2 on a bad one."""
    from games.clitools import UsageError, parse_kv

    try:
        return parse_kv([item for pair in pairs or [] for item in pair.split()], what)
    except UsageError as exc:
        raise SystemExit(_usage(str(exc))) from None


def _usage(message: str) -> int:
    print(f"dmhost: {message}", file=sys.stderr)
    return EXIT_USAGE


def cmd_room(args: argparse.Namespace) -> int:
    """Host one match in the terminal."""
    from bot.adapters.terminal.room import Room, RoomConfig
    from bot.ops.room_checks import png_problem

    if (png := png_problem(args.png)) is not None:
        return _usage(png)
    if args.scheduled is not None:
        return cmd_room_scheduled(args)
    wanted = 1 if args.bot else 2
    if args.resume is None and (not args.game or len(args.player or []) != wanted):
        return _usage("room needs GAME and two --player NAME, one --player with --bot, or --resume ID")
    from bot.ratings import RatedChoiceError, split_rated

    options, clock = _kv(args.opt, "--opt"), _kv(args.clock, "--clock")
    try:
        rated, rules = split_rated(_kv(args.rule, "--rule"))
    except RatedChoiceError as exc:
        return _usage(str(exc))
    if args.resume is None and "takeback" not in rules and "takeback" not in clock and not _typed(sys.stdin):
        rules["takeback"] = "0"  # moves on a pipe are final at once, unless a take-back window was asked for
    if args.resume is None:
        from bot.host.clocks import seat_odds
        from bot.playernames import name_problem

        args.player = [n.strip() for n in args.player or []]
        if (bad := name_problem(args.player, ["dmhost", f"dmhost ({args.bot})"] if args.bot else [])) is not None:
            return _usage(bad)

        named = [[n] for n in args.player or []] + ([["dmhost", "bot"]] if args.bot else [])
        try:
            clock = seat_odds(clock, named)  # time odds by name: `--clock bob:reserve=120`
        except ValueError as exc:
            return _usage(str(exc))
        problem = _match_problem(args.game, args.player or [], args.bot, options, clock, rules)
        if problem is not None:  # before any database is opened, so a typo leaves no file behind
            return _usage(problem)
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

        return _usage(error_text(exc))
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
        return _usage("room --scheduled ID takes the game, players and rules from the schedule: give only --db")
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


def cmd_log(args: argparse.Namespace) -> int:
    """Print a match's log."""
    from bot.compose import build_store
    from bot.records.matchlog import build_log, format_log

    url = db_url(args.db)
    check_database_url(url, must_exist=True)

    async def main() -> int:
        store = build_store(url)
        try:
            await store.open()
            stored = await store.load(args.match_id, with_events=True)
            context = []
            if stored is not None and args.html:
                from bot.compose import build_readers
                from bot.records.pagecontext import match_context

                readers = build_readers(store)
                context = await match_context(readers.tournaments, readers.series, stored)
            entries = None
            if stored is not None and args.analyse and not (args.sgf and stored.game != "dots"):
                from bot.records.analysis_store import analysed

                entries = await analysed(store, args.match_id)  # stored, or computed now and stored
            elif stored is not None and args.html:
                from bot.records.analysis_store import load_analysis

                entries = await load_analysis(store, args.match_id)  # the page says pending without one
        finally:
            await store.close()
        if stored is None:
            return _usage(f"there is no match {args.match_id} in the database {shown_url(url)}")
        from bot.records.agreement import disagreement

        problem = disagreement(stored)
        done = EXIT_OK
        if problem is not None:  # said first, on stderr, the log printed all the same, and exit 1 (a failed check)
            print(f"dmhost log: match {args.match_id}'s log and snapshot disagree: {problem}", file=sys.stderr)
            done = EXIT_FAIL
        if args.sgf and stored.game != "dots":
            return _usage("SGF export is for dots matches")
        written = []
        if args.html or args.url:
            from bot.ops.web_cli import page_outputs

            written += page_outputs(args, stored, context, entries)
        if args.gif:
            frames = write_gif(stored, Path(args.gif))
            written.append(f"Wrote the replay of match {args.match_id} ({frames} frames) to {Path(args.gif).resolve()}")
        if args.sgf:
            write_sgf(stored, Path(args.sgf))
            written.append(f"Wrote the SGF record of match {args.match_id} to {Path(args.sgf).resolve()}")
        if written and not args.json and not args.analyse:
            print("\n".join(written))  # the files were asked for, not the log
            return done
        for line in written:
            print(line, file=sys.stderr)
        data = build_log(stored)
        if args.analyse:
            data["analysis"] = entries or []
        text = format_log(data)
        if args.analyse and not args.json:
            from bot.records.analysis import format_analysis

            names = {seat: name for seat, (_pid, name) in stored.players.items()}
            text += "\n" + format_analysis(data["analysis"], names)
        print(json.dumps(data, indent=2) if args.json else text)
        return done

    return asyncio.run(main())


def write_gif(stored: Any, path: Path) -> int:
    """An animated replay: a frame per turn with names, the move highlighted and both clocks; it ends on the
    final position with the result (the same picture `/dm log` attaches). Returns the number of frames."""
    from bot.records.review import replay_gif

    data, frames = replay_gif(stored)
    path.write_bytes(data)
    return frames


def write_sgf(stored: Any, path: Path) -> None:
    """A Dots match as an SGF record."""
    from bot.records.replay import replay_match

    ruleset, frames = replay_match(stored)
    path.write_text(ruleset.export_sgf(stored.options, [f.engine_move for f in frames[1:]]), encoding="utf-8")


def cmd_db(args: argparse.Namespace) -> int:
    """Apply or revert migrations."""
    from bot.store.db import current_revision, known_revision, migrate, revisions

    target = args.revision or ("head" if args.action == "upgrade" else "base")
    if args.action != "current" and not known_revision(target):
        return _usage(
            f"there is no migration {target!r}: give one of {', '.join(revisions())}, head or base "
            f"(e.g. `dmhost db {args.action} {'head' if args.action == 'upgrade' else revisions()[0]}`)"
        )
    url = db_url(args.db)
    check_database_url(url, must_exist=args.action != "upgrade")
    if args.action == "downgrade" and target == "base" and not args.yes:
        return _usage(
            f"downgrading {shown_url(url)} to base drops every table and every match in it: "
            "add --yes to do it, or give the revision to go back to (e.g. `dmhost db downgrade 0001`)"
        )

    async def main() -> int:
        if args.action in ("upgrade", "downgrade"):
            from alembic.util.exc import CommandError

            try:
                await migrate(url, args.action, target)
            except CommandError as exc:  # a relative step beyond the first or last migration (`downgrade -999`)
                now = await current_revision(url) or "empty"
                return _usage(f"cannot {args.action} {shown_url(url)} to {target}: {exc} (it is at {now})")
        print(await current_revision(url) or "empty")
        print(f"database: {shown_url(url)}", file=sys.stderr)
        return EXIT_OK

    return asyncio.run(main())


def cmd_run(args: argparse.Namespace) -> int:
    """Run the Discord bot."""
    from bot.settings import load_settings

    settings = load_settings()
    if settings.token is None:
        print(
            "dmhost: no Discord token configured.\n"
            "  Set DMHOST_TOKEN (environment or a .env file) to the bot token from the Discord developer\n"
            "  portal, then run `dmhost run` again. See docs/discord.md, 'Running on Discord'.\n"
            "  To play without Discord: dmhost room boxes --player alice --player bob",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        from bot.adapters.discord.hosting import run_bot
    except ModuleNotFoundError:
        return _usage("the Discord adapter is not part of this build")
    url = settings.db_url
    check_database_url(url)
    from bot.store.db import current_revision

    try:
        asyncio.run(current_revision(url))  # the database answers before the bot connects to Discord
    except Exception as exc:
        line = explain(exc, url)
        if line is None:
            raise
        return _usage(line)
    from bot.adapters.discord.startup import discord_unreachable

    unreachable = discord_unreachable()
    if unreachable is not None:  # one line, before discord.py logs anything
        return _usage(unreachable)
    from bot.adapters.discord.hosting import shards_of
    from bot.ops.logsetup import from_settings

    ids, count = shards_of(settings)
    served = f"the Discord bot, shard(s) {ids} of {count}, database {shown_url(url)}"
    if settings.metrics_port is not None:
        served += f"; health and metrics on http://{settings.metrics_host}:{settings.metrics_port}"
    from_settings(served)
    from bot.ops.runtime import tune_gc

    tune_gc()
    try:
        from bot.ops.apps import discord_app

        run_bot(settings, lambda: discord_app(settings))  # one application per session, built by the root
    except Exception as exc:
        line = explain(exc, url)
        if line is None:
            raise
        return _usage(line)
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check the token, the privileged intents and every guild's permissions: exit 0 all good, 1 otherwise."""
    from bot.settings import load_settings

    settings = load_settings()
    try:
        from bot.adapters.discord.app import make_intents
        from bot.adapters.discord.doctor import Check, discord_connector, run_doctor
    except ModuleNotFoundError:
        return _usage("the Discord adapter is not part of this build")
    if settings.token is None:  # the first check failed: its line and fix, exit 1 (docs/cli.md)
        fix = "set DMHOST_TOKEN (environment or a .env file) to the bot token from the Discord developer portal"
        print(Check("token", False, "no Discord token is configured", f"{fix}, then run `dmhost doctor` again").line())
        return 1
    rooms = asyncio.run(configured_rooms(args.db))
    connector = discord_connector(settings.token.get_secret_value(), timeout=args.timeout)
    return asyncio.run(run_doctor(connector, make_intents(settings.message_content), rooms=rooms))


async def configured_rooms(db: str | None) -> dict[int, int]:
    """Guild id → game-room channel set with `/dm config`, read from the database (`--db`, else the
    configured one). A default SQLite database that does not exist yet has none (nothing is created);
    a `--db` that does not exist is an operator's mistake."""
    from bot.compose import build_guild_settings, build_store
    from bot.opserrors import sqlite_path

    url = db_url(db)
    path = sqlite_path(url)
    if db is None and path is not None and not path.is_file():
        return {}
    check_database_url(url, must_exist=True)
    store = build_store(url)
    try:
        await store.open()
        guilds = build_guild_settings(store)
        await guilds.load()
        return guilds.rooms()
    finally:
        await store.close()


def cmd_health(args: argparse.Namespace) -> int:
    """Exit 0 when this instance is healthy, else 1 (Docker's HEALTHCHECK): with `--url`, or when
    DMHOST_METRICS_PORT is set (and no `--db` is given), ask this instance's /healthz; otherwise judge by the
    newest heartbeat any host process wrote within `--max-age` seconds."""
    url = args.url
    if url is None and args.db is None:
        from bot.settings import load_settings

        settings = load_settings()
        if settings.metrics_port is not None:
            host = "127.0.0.1" if settings.metrics_host in ("0.0.0.0", "::", "") else settings.metrics_host
            url = f"http://{host}:{settings.metrics_port}/healthz"
    if url is not None:
        return _ask_health(url, args.max_age)
    return _heartbeat_health(args)


def _ask_health(url: str, timeout: float) -> int:
    """GET this instance's /healthz: 0 when it answers 200."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=min(timeout, 10.0)) as res:
            body = res.read().decode("utf-8", "replace").strip()
            print(f"healthy: {body}")
            return EXIT_OK
    except urllib.error.HTTPError as exc:
        body = exc.read().decode("utf-8", "replace").strip()
        print(f"unhealthy: {url} answered {exc.code}: {body}", file=sys.stderr)
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        print(f"unhealthy: {url} does not answer ({reason})", file=sys.stderr)
    return EXIT_FAIL


def _heartbeat_health(args: argparse.Namespace) -> int:
    from bot.store.db import utcnow
    from bot.store.health import newest_heartbeat

    url = db_url(args.db)
    try:
        check_database_url(url, must_exist=True)
        newest = asyncio.run(newest_heartbeat(url))
    except Exception as exc:
        line = explain(exc, url)
        if line is None:
            raise
        print(f"unhealthy: {line}", file=sys.stderr)
        return EXIT_FAIL
    if newest is None:
        print(f"unhealthy: no host has written a heartbeat to {shown_url(url)} yet", file=sys.stderr)
        return EXIT_FAIL
    age = (utcnow() - newest).total_seconds()
    if age > args.max_age:
        print(f"unhealthy: the newest heartbeat is {age:.0f} s old (limit {args.max_age:g} s)", file=sys.stderr)
        return EXIT_FAIL
    print(f"healthy: heartbeat {age:.1f} s ago")
    return EXIT_OK


def cmd_ratings(args: argparse.Namespace) -> int:
    """`dmhost ratings` (the table) and `dmhost ratings rebuild` (bot.ops.ratings_cli)."""
    from bot.ops.ratings_cli import run

    url = db_url(args.db)
    check_database_url(url, must_exist=True)
    return run(args, url)


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line on stderr (where to read the usage), exit 2; subcommands' parsers too."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def add_room(sub: Any) -> None:
    """`dmhost room`."""
    from bot.opserrors import id_argument
    from games.cli import games_help

    room = sub.add_parser(
        "room",
        help=COMMANDS["room"][0],
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


def add_log(sub: Any) -> None:
    """`dmhost log`."""
    from bot.ops.web_cli import add_log_options
    from bot.opserrors import id_argument

    lg = sub.add_parser("log", help=COMMANDS["log"][0])
    lg.add_argument("match_id", type=id_argument("MATCH_ID"))
    lg.add_argument("--db", metavar="PATH")
    lg.add_argument("--json", action="store_true")
    lg.add_argument("--gif", metavar="FILE", help="write an animated replay")
    lg.add_argument("--sgf", metavar="FILE", help="export a dots match as SGF")
    lg.add_argument(
        "--analyse",
        "--analyze",
        action="store_true",
        help="judge every move with the game's engine (stored, else computed now and stored)",
    )
    add_log_options(lg)
    lg.set_defaults(func=cmd_log)


def add_db(sub: Any) -> None:
    """`dmhost db`."""
    db = sub.add_parser("db", help=COMMANDS["db"][0])
    db.add_argument("action", choices=["upgrade", "downgrade", "current"])
    db.add_argument("revision", nargs="?")
    db.add_argument("--db", metavar="PATH")
    db.add_argument("--yes", action="store_true", help="confirm a downgrade to base (drops every table)")
    db.set_defaults(func=cmd_db)


def add_run(sub: Any) -> None:
    """`dmhost run`."""
    sub.add_parser("run", help=COMMANDS["run"][0]).set_defaults(func=cmd_run)


def add_doctor(sub: Any) -> None:
    """`dmhost doctor`."""
    doctor = sub.add_parser("doctor", help=COMMANDS["doctor"][0])
    doctor.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS", help="wait for Discord this long")
    doctor.add_argument("--db", help="database whose game-room channels (/dm config) to check (default: configured)")
    doctor.set_defaults(func=cmd_doctor)


def add_health(sub: Any) -> None:
    """`dmhost health`."""
    health = sub.add_parser("health", help=COMMANDS["health"][0])
    health.add_argument(
        "--db", metavar="PATH", help="judge by the newest heartbeat in this database instead of this instance"
    )
    health.add_argument("--max-age", type=float, default=60.0, metavar="SECONDS")
    health.add_argument(
        "--url",
        metavar="URL",
        help="the /healthz to ask (default: http://127.0.0.1:DMHOST_METRICS_PORT/healthz when that port is set)",
    )
    health.set_defaults(func=cmd_health)


def add_ratings(sub: Any) -> None:
    """`dmhost ratings`."""
    from bot.ops.ratings_cli import add_parser

    add_parser(sub).set_defaults(func=cmd_ratings)


COMMANDS: dict[str, tuple[str, str]] = {
    "room": ("host one match in the terminal", "bot.ops.cli:add_room"),
    "log": ("print a match's log", "bot.ops.cli:add_log"),
    "db": ("database migrations", "bot.ops.cli:add_db"),
    "run": ("run the Discord bot", "bot.ops.cli:add_run"),
    "doctor": ("check the token, privileged intents and guild permissions", "bot.ops.cli:add_doctor"),
    "health": (
        "exit 0 when this instance answers /healthz, or the host's heartbeat is fresh (Docker's HEALTHCHECK)",
        "bot.ops.cli:add_health",
    ),
    "tournament": (
        "tournaments: simulate one, or create and run one in the terminal",
        "bot.ops.tournament_cli:add_parser",
    ),
    "ratings": (
        "the rating table (terminal-room matches count under no guild); `rebuild` recomputes it from the logs",
        "bot.ops.cli:add_ratings",
    ),
    "schedule": ("scheduled Death Matches: add, list, cancel, read a time", "bot.ops.schedule_cli:add_parser"),
    "web": ("serve the match, tournament and server review pages over HTTP", "bot.ops.web_cli:add_parser"),
    "puzzles": ("certified puzzles from finished, analysed matches", "bot.ops.coaching_cli:add_puzzles"),
    "puzzle": ("solve a puzzle in the terminal (type your move)", "bot.ops.coaching_cli:add_puzzle"),
    "insights": (
        "a player's verdicts and losses, counted from the stored analyses",
        "bot.ops.coaching_cli:add_insights",
    ),
    "fairplay": ("for hosts: engine-move rates in rated matches, and flags", "bot.ops.coaching_cli:add_fairplay"),
}
"""Every subcommand: its one-line help and `module:function` that adds its parser (given the subparsers) with
`set_defaults(func=…)`. A new command is one entry here; its module is imported only when it is the command run."""


def _registrar(name: str) -> Callable[[Any], Any]:
    import importlib

    module, _, func = COMMANDS[name][1].partition(":")
    registrar: Callable[[Any], Any] = getattr(importlib.import_module(module), func)
    return registrar


def build_parser(command: str | None = "*") -> argparse.ArgumentParser:
    """Argument parser of `dmhost`: every subcommand's full parser (`command="*"`), or only `command`'s (the
    others listed by name and help alone: what `dmhost --help` needs)."""
    parser = _Parser(prog="dmhost", description="Death Match host")  # usage errors: one line, exit 2
    parser.add_argument("--version", action="store_true", help="print dmhost's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="{" + ",".join(COMMANDS) + "}")
    for name, (text, _where) in COMMANDS.items():
        if command in ("*", name):
            _registrar(name)(sub)
        else:
            sub.add_parser(name, help=text, add_help=False)
    return parser


def _command_of(argv: list[str]) -> str | None:
    """The subcommand named in `argv` (its first word that is not an option), if it is one."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code. Ctrl-C at any moment is a quiet exit 130."""
    try:
        import signal

        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)  # (`bot/__init__` quiets it during imports)
        return _main(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        _quiet_exit()
        return EXIT_INTERRUPTED


def _quiet_exit() -> None:
    """After Ctrl-C: nothing more on the screen, not even from a second Ctrl-C while the process winds down."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print(file=sys.stderr)


def _main(argv: list[str]) -> int:
    command = _command_of(argv)
    parser = build_parser(command)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_USAGE
    if args.version:
        from bot.settings import dmhost_version

        print(f"dmhost {dmhost_version()}")
        return EXIT_OK
    if args.command is None:
        parser.print_usage(sys.stderr)
        return _usage("give a command (see dmhost --help)")
    if (problem := _settings_problem()) is not None:
        return _usage(problem)
    try:
        code: int = args.func(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    except BrokenPipeError:  # the reader went away (`dmhost log … | head`): nothing left to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:
        line = explain(exc, _url_for_message(args))
        if line is None:
            raise
        return _usage(line)
    return code


def _settings_problem() -> str | None:
    """Every setting is checked when a command starts (`.env` included, its values exported to this process so
    that every part reads the same): the first wrong one as a line, else None."""
    from bot.settings import SettingsProblem, export_dotenv, load_settings

    export_dotenv()
    try:
        load_settings()
    except SettingsProblem as exc:
        return str(exc)
    return None


def _url_for_message(args: argparse.Namespace) -> str | None:
    """The database a command used, for an error line (None when even that cannot be worked out)."""
    try:
        return db_url(getattr(args, "db", None))
    except Exception:
        return None


if __name__ == "__main__":
    sys.exit(main())
