"""What every `dmhost` command module shares: the exit codes, the one usage line, and the database and
settings helpers, each importing its module only when a command calls it (this module imports only the
standard library, so that `dmhost --help` stays cheap)."""

from __future__ import annotations

import sys

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
    """Refuse a database URL that cannot work (bot.opserrors), imported when a command needs it."""
    from bot.opserrors import check_database_url as check

    check(url, must_exist=must_exist)


def explain(exc: BaseException, url: str | None = None) -> str | None:
    """An operator's line for a known error, else None (bot.opserrors)."""
    from bot.opserrors import explain as explain_error

    return explain_error(exc, url)


def shown_url(url: str) -> str:
    """A database URL as a person may read it (no password; bot.opserrors)."""
    from bot.opserrors import shown_url as shown

    return shown(url)


def analysis_enabled() -> bool:
    """Whether matches are analysed once they end (DMHOST_ANALYSIS; bot.settings)."""
    from bot.settings import analysis_enabled as enabled

    return enabled()


def kv(pairs: list[str] | None, what: str) -> dict[str, str]:
    """`--opt`/`--clock`/`--rule` values (several `K=V` may share one argument) as a dict; exit 2 on a bad one."""
    from games.clitools import UsageError, parse_kv

    try:
        return parse_kv([item for pair in pairs or [] for item in pair.split()], what)
    except UsageError as exc:
        raise SystemExit(usage(str(exc))) from None


def usage(message: str) -> int:
    """A usage error: one line on stderr; returns exit 2."""
    print(f"dmhost: {message}", file=sys.stderr)
    return EXIT_USAGE
