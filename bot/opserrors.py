"""Operator mistakes (a bad database URL, a setting that does not validate, no network) as one clear line each.

The CLI catches what escapes a command and asks `explain` for the sentence to print instead of a
traceback; anything `explain` does not recognise is a bug and keeps its traceback. An adapter words its
own service's refusals (the Discord adapter: a refused token, intents, Discord unreachable) and raises
them as `OperatorError`; nothing here knows any adapter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

SUPPORTED = {("sqlite", "aiosqlite"), ("postgresql", "asyncpg")}
"""(backend, driver) pairs dmhost runs on."""
DB_FIX = "give --db PATH (a file) or a URL, or set DMHOST_DATABASE_URL"


class OperatorError(Exception):
    """A mistake in how dmhost was started; its text is the line to print."""


MAX_ID = 2**63 - 1
"""The largest id any table holds (a signed 64-bit integer, SQLite's INTEGER and PostgreSQL's BIGINT)."""


def record_id(text: str, what: str = "an id") -> int:
    """A whole number an id column can hold (1 to 2**63-1); ValueError with the line to print otherwise, so a
    30-digit id is the operator's mistake, never the database's (an overflow in the driver)."""
    try:
        value = int(text.strip())
    except ValueError:
        raise ValueError(f"{what} takes a whole number, not {text!r}") from None
    if not 1 <= value <= MAX_ID:
        raise ValueError(f"{what} is a number from 1 to {MAX_ID}, not {text.strip()}")
    return value


def id_argument(what: str) -> Any:
    """An argparse `type=` for an id: its refusal is argparse's one usage line (exit 2)."""
    import argparse

    def parse(text: str) -> int:
        try:
            return record_id(text, what)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = "id"
    return parse


_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg"}


def normal_url(url: str) -> str:
    """A SQLAlchemy URL as dmhost's engine takes it: a URL without an async driver gets ours (`sqlite:///x.db`
    → `sqlite+aiosqlite:///x.db`, `postgresql://…` → `postgresql+asyncpg://…`); anything else as given."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() in _DRIVERS:
        return f"{_DRIVERS[scheme.lower()]}://{rest}"
    return url


def shown_url(url: str) -> str:
    """A database URL fit to print: the password hidden, a SQLite URL as its file path."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return url
    if parsed.get_backend_name() == "sqlite":
        return parsed.database or ":memory:"
    return parsed.render_as_string(hide_password=True)


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for other databases and for in-memory SQLite)."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return None
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database)


def check_database_url(url: str, *, must_exist: bool = False) -> None:
    """Refuse, before anything connects, a URL that cannot work; with `must_exist`, a SQLite file that is
    not there yet (so that reading commands never create an empty database)."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):  # ValueError: a URL whose port is not a number (`garbage://::`)
        raise OperatorError(f"`{url}` is neither a database file nor a database URL: {DB_FIX}.") from None
    try:
        supported = (parsed.get_backend_name(), parsed.get_driver_name()) in SUPPORTED
    except NoSuchModuleError:
        supported = False
    if not supported:
        raise OperatorError(
            f"unsupported database URL `{shown_url(url)}`: use sqlite+aiosqlite:///PATH or "
            "postgresql+asyncpg://USER:PASSWORD@HOST/DB."
        )
    path = sqlite_path(url)
    if path is None:
        if parsed.get_backend_name() == "sqlite":
            raise OperatorError(f"an in-memory SQLite database keeps nothing between runs: {DB_FIX}.")
        return
    if path.is_dir():
        raise OperatorError(
            f"{path} is a folder, not a database file: name a file in it (e.g. {path / 'dmhost.db'}), or {DB_FIX}."
        )
    if not path.parent.is_dir():
        hint = ""
        if not path.is_absolute() and ("/" / path).parent.is_dir():  # `sqlite:///tmp/x.db` meant /tmp/x.db?
            hint = f" (after `sqlite:///` a path is relative to the current folder: `sqlite:////{path}` is /{path})"
        raise OperatorError(
            f"the folder {path.parent} of the database {path} does not exist{hint}: create it, or {DB_FIX}."
        )
    if must_exist and not path.is_file():
        raise OperatorError(f"there is no database at {path} (nothing was created): {DB_FIX}.")


def explain(exc: BaseException, db_url: str | None = None) -> str | None:
    """The line to print for an operator's mistake, or None when `exc` is not one (a bug)."""
    if isinstance(exc, OperatorError):
        return str(exc)
    settings_line = _explain_settings(exc)
    if settings_line is not None:
        return settings_line
    where = f"the database {shown_url(db_url)}" if db_url else "the database"
    if isinstance(exc, DBAPIError):
        return _explain_dbapi(exc, where)
    if isinstance(exc, OSError):
        return _explain_os(exc, where)
    return None


def _explain_settings(exc: BaseException) -> str | None:
    """A setting from the environment or .env that does not validate (`bot.settings.Settings`)."""
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError) or exc.title != "Settings" or not exc.errors():
        return None
    first = exc.errors()[0]
    name = "DMHOST_" + "__".join(str(part) for part in first["loc"]).upper()
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"the setting {name} is not valid: {message}."


def _explain_dbapi(exc: DBAPIError, where: str) -> str:
    orig = exc.orig
    cause = getattr(orig, "__cause__", None) or orig
    text = str(cause or orig).strip().splitlines()[0] if str(cause or orig).strip() else type(cause).__name__
    name = type(cause).__name__
    if name == "InvalidCatalogNameError" or ("does not exist" in text and "database" in text):
        return f"{where} does not exist on its server: create it (createdb) or {DB_FIX}."
    if name in ("InvalidPasswordError", "InvalidAuthorizationSpecificationError") or "authentication" in text:
        return f"{where} refused the login ({text}): check the user and password in the URL."
    if "unable to open database file" in text:
        return f"{where} cannot be opened ({text}): check that its folder exists and is writable, or {DB_FIX}."
    if "not a database" in text or "malformed" in text:
        return f"{where} is not a dmhost database ({text}): {DB_FIX}."
    if "readonly" in text or "read-only" in text:
        return f"{where} is read-only ({text}): make the file and its folder writable."
    if isinstance(cause, OSError):
        line = _explain_os(cause, where)
        if line is not None:
            return line
    return f"{where} failed: {text} — check the URL and that the database server is running."


def _explain_os(exc: OSError, where: str) -> str | None:
    import socket

    if isinstance(exc, socket.gaierror):
        return f"{where} cannot be reached: its host name does not resolve ({exc.strerror}): check the URL."
    if isinstance(exc, ConnectionRefusedError) or "Connect call failed" in str(exc):
        return f"{where} cannot be reached: connection refused: start the server or fix the URL."
    if isinstance(exc, TimeoutError):
        return f"{where} did not answer in time: check the URL, the network and that the server is running."
    if exc.filename:  # a file the operator named (an output file, a folder)
        return f"{exc.filename}: {exc.strerror or exc}: check the path and that its folder exists and is writable."
    return None
