"""`dmhost` console script: run the bot, host a terminal room, read logs, migrate.

Start-up stays cheap: this module imports only the standard library (and `bot.ops.common`, which does too); a
command's own modules (and its full argument parser) are imported when that command runs (`COMMANDS`), so
`dmhost --help` reads no database library and no game. Ctrl-C at any moment, start-up included, ends the
command without a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from bot.ops.common import (
    EXIT_FAIL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    check_database_url,
    db_url,
    explain,
    shown_url,
    usage,
)


def cmd_db(args: argparse.Namespace) -> int:
    """Apply or revert migrations."""
    from bot.store.db import current_revision, known_revision, migrate, revisions
    from bot.wording import ops as words

    target = args.revision or ("head" if args.action == "upgrade" else "base")
    if args.action != "current" and not known_revision(target):
        example = "head" if args.action == "upgrade" else revisions()[0]
        return usage(words.no_migration(target, revisions(), args.action, example))
    url = db_url(args.db)
    check_database_url(url, must_exist=args.action != "upgrade")
    if args.action == "downgrade" and target == "base" and not args.yes:
        return usage(words.downgrade_to_base(shown_url(url)))

    async def main() -> int:
        if args.action in ("upgrade", "downgrade"):
            from alembic.util.exc import CommandError

            try:
                await migrate(url, args.action, target)
            except CommandError as exc:  # a relative step beyond the first or last migration (`downgrade -999`)
                now = await current_revision(url) or "empty"
                return usage(words.migration_failed(args.action, shown_url(url), target, str(exc), now))
        print(await current_revision(url) or "empty")
        print(f"database: {shown_url(url)}", file=sys.stderr)
        return EXIT_OK

    return asyncio.run(main())


def cmd_run(args: argparse.Namespace) -> int:
    """Run the Discord bot."""
    from bot.settings import load_settings

    settings = load_settings()
    if settings.token is None:
        from bot.wording.ops import NO_TOKEN

        print(NO_TOKEN, file=sys.stderr)
        return EXIT_USAGE
    try:
        from bot.adapters.discord.hosting import run_bot
    except ModuleNotFoundError:
        from bot.wording.ops import NO_DISCORD

        return usage(NO_DISCORD)
    url = settings.db_url
    check_database_url(url)
    from bot.store.db import current_revision

    try:
        asyncio.run(current_revision(url))  # the database answers before the bot connects to Discord
    except Exception as exc:
        line = explain(exc, url)
        if line is None:
            raise
        return usage(line)
    from bot.adapters.discord.startup import discord_unreachable

    unreachable = discord_unreachable()
    if unreachable is not None:  # one line, before discord.py logs anything
        return usage(unreachable)
    from bot.adapters.discord.hosting import shards_of
    from bot.ops.logsetup import from_settings

    ids, count = shards_of(settings)
    from bot.wording.ops import serving

    metrics = None if settings.metrics_port is None else (settings.metrics_host, settings.metrics_port)
    from_settings(serving(ids, count, shown_url(url), metrics))
    from bot.ops.runtime import tune_gc

    tune_gc()
    try:
        from bot.ops.apps import discord_app

        run_bot(settings, lambda: discord_app(settings))  # one application per session, built by the root
    except Exception as exc:
        line = explain(exc, url)
        if line is None:
            raise
        return usage(line)
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check the token, the privileged intents and every guild's permissions: exit 0 all good, 1 otherwise."""
    from bot.settings import load_settings

    settings = load_settings()
    try:
        from bot.adapters.discord.app import make_intents
        from bot.adapters.discord.doctor import Check, discord_connector, run_doctor
    except ModuleNotFoundError:
        from bot.wording.ops import NO_DISCORD

        return usage(NO_DISCORD)
    if settings.token is None:  # the first check failed: its line and fix, exit 1 (docs/cli.md)
        from bot.wording import ops as words

        print(Check("token", False, words.NO_TOKEN_CHECK, words.NO_TOKEN_FIX).line())
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

    from bot.wording import ops as words

    try:
        with urllib.request.urlopen(url, timeout=min(timeout, 10.0)) as res:
            body = res.read().decode("utf-8", "replace").strip()
            print(f"healthy: {body}")
            return EXIT_OK
    except urllib.error.HTTPError as exc:
        body = exc.read().decode("utf-8", "replace").strip()
        print(words.answered(url, exc.code, body), file=sys.stderr)
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        print(words.no_answer(url, reason), file=sys.stderr)
    return EXIT_FAIL


def _heartbeat_health(args: argparse.Namespace) -> int:
    from bot.store.db import utcnow
    from bot.store.health import newest_heartbeat
    from bot.wording import ops as words

    url = db_url(args.db)
    try:
        check_database_url(url, must_exist=True)
        newest = asyncio.run(newest_heartbeat(url))
    except Exception as exc:
        line = explain(exc, url)
        if line is None:
            raise
        print(words.unhealthy(line), file=sys.stderr)
        return EXIT_FAIL
    if newest is None:
        print(words.no_heartbeat(shown_url(url)), file=sys.stderr)
        return EXIT_FAIL
    age = (utcnow() - newest).total_seconds()
    if age > args.max_age:
        print(words.stale_heartbeat(age, args.max_age), file=sys.stderr)
        return EXIT_FAIL
    print(words.healthy(age))
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
        from bot.wording.ops import usage_error

        print(usage_error(self.prog, message), file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


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
    "room": ("host one match in the terminal", "bot.ops.room_cli:add_parser"),
    "log": ("print a match's log", "bot.ops.log_cli:add_parser"),
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
        from bot.wording.ops import NO_COMMAND

        return usage(NO_COMMAND)
    if (problem := _settings_problem()) is not None:
        return usage(problem)
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
        return usage(line)
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
