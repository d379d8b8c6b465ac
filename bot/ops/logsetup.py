"""One logging setup for every long-running command (`dmhost run`, `dmhost web`, the shard host, the terminal rooms'
warnings): timestamps and levels on every line, `DMHOST_LOG_LEVEL`, and `DMHOST_LOG_FORMAT`:

- `text` (default): `2026-12-06 10:01:02,345 WARNING dmhost.outage: the database does not answer …`
- `json`: one JSON object a line with `time` (ISO 8601, UTC), `level`, `logger`, `message`, the context a line
  carries (`match`, `guild`, `job`, `shard`, `instance`: given as `extra={…}` by the code that logs) and `error`
  (the traceback as text) when there is one.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sys
from typing import Any, TextIO

CONTEXT = ("match", "guild", "job", "shard", "instance", "kind", "path", "status")
"""The context fields a log line may carry (`log.info(..., extra={"match": 7})`)."""
FORMATS = ("text", "json")


class JsonFormatter(logging.Formatter):
    """A log record as one JSON line."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in CONTEXT:
            value = record.__dict__.get(key)
            if value is not None:
                out[key] = value
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """`time LEVEL logger: message [match=7 job=corr:7]`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        ctx = [f"{key}={record.__dict__[key]}" for key in CONTEXT if record.__dict__.get(key) is not None]
        if not ctx:
            return line
        head, nl, rest = line.partition("\n")
        return f"{head} [{' '.join(ctx)}]{nl}{rest}"


def _no_voice_warnings(record: logging.LogRecord) -> bool:
    """discord.py warns at start that voice libraries are missing; the bot never uses voice."""
    return not (record.name == "discord.client" and "voice will NOT be supported" in record.getMessage())


def setup_logging(level: str = "INFO", fmt: str = "text", stream: TextIO | None = None) -> logging.Handler:
    """Log every logger of the process to `stream` (standard error) in `fmt`, from `level` up; returns the handler.
    Called once by each long-running command, before anything is logged (replaces any handler set before)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    handler.addFilter(_no_voice_warnings)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.getLevelName(level.upper()))
    # Libraries' own INFO chatter (Alembic's plugin and context lines at every start) only when debugging.
    quiet = logging.DEBUG if level.upper() == "DEBUG" else logging.WARNING
    for name in ("alembic",):
        logging.getLogger(name).setLevel(quiet)
    return handler


def sentry(settings: Any) -> None:
    """Report errors to Sentry when `DMHOST_SENTRY_DSN` is set (the `sentry-sdk` package is not one of dmhost's
    dependencies: install it beside dmhost). Its logging integration sends every ERROR line."""
    if settings.sentry_dsn is None:
        return
    from bot.opserrors import OperatorError

    try:
        import sentry_sdk  # type: ignore[import-not-found]
    except ImportError:
        from bot.wording.ops import NO_SENTRY_SDK

        raise OperatorError(NO_SENTRY_SDK) from None
    sentry_sdk.init(dsn=settings.sentry_dsn.get_secret_value(), traces_sample_rate=0.0)


def from_settings(serves: str, **context: Any) -> logging.Logger:
    """Set up logging from the settings (`DMHOST_LOG_LEVEL`, `DMHOST_LOG_FORMAT`, `DMHOST_SENTRY_DSN`) and log the
    process's start line: what it serves. Returns the `dmhost` logger."""
    from bot.settings import load_settings

    settings = load_settings()
    setup_logging(settings.log_level, settings.log_format)
    sentry(settings)
    log = logging.getLogger("dmhost")
    from bot.settings import dmhost_version

    log.info("dmhost %s starting: %s", dmhost_version(), serves, extra=context)
    return log
