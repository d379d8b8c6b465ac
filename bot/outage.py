"""One retry policy for every loop of a process that talks to the database (heartbeat, leases, jobs, ratings,
announcer): exponential back-off with jitter, capped, and an outage said once.

A loop keeps a `Retry` of its own (its back-off) and reports each attempt: `delay = retry.failed(exc)` after a
failure (sleep that long), `retry.ok()` after a success. What is *said* is the process's: the first failure of
any loop while the database answered is one warning ("the database does not answer …"); later failures of any
loop during that outage are debug lines; the first success after it is one line ("… answers again after 8.2 s").
A failure that is not the database's (a bug) keeps its traceback, once per outage.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable

from bot.metrics import DB_ERRORS

log = logging.getLogger("dmhost.outage")

FIRST_S = 0.5
"""The first wait after a failure."""
MOST_S = 30.0
"""The longest wait between two attempts."""


def _short(exc: BaseException) -> str:
    """An error as one short line (its type and the first line of its text)."""
    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


def _database_error(exc: BaseException) -> bool:
    """Whether `exc` is the database (or the network to it) failing, not a bug of ours."""
    if isinstance(exc, OSError | TimeoutError | ConnectionError):
        return True
    from sqlalchemy.exc import DBAPIError, DisconnectionError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    if isinstance(exc, DBAPIError | DisconnectionError | PoolTimeout):
        return True
    module = type(exc).__module__ or ""
    return module.startswith(("asyncpg", "aiosqlite", "sqlite3"))


class _Outage:
    """The process's one view of the database: answering, or down since when."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.since: float | None = None
        self.failures = 0
        self.bug_told = False
        self.database = False
        """Whether this outage was said as the database's (then its end is said too)."""

    def failed(self, what: str, exc: BaseException) -> None:
        DB_ERRORS.inc()
        self.failures += 1
        if self.since is None:
            self.since = self.clock()
            self.bug_told = False
            self.database = _database_error(exc)
            if self.database:
                log.warning(
                    "the database does not answer (%s: %s); retrying with back-off, said again when it answers",
                    what,
                    _short(exc),
                )
                return
        if _database_error(exc) and not self.database:  # a bug first, the database after: said too
            self.database = True
            log.warning("the database does not answer (%s: %s); retrying with back-off", what, _short(exc))
            return
        if not _database_error(exc) and not self.bug_told:
            self.bug_told = True  # a bug keeps its traceback, once per outage
            log.error("%s failed; retrying with back-off", what, exc_info=exc)
            return
        log.debug("%s failed again (%s)", what, _short(exc))

    def ok(self, what: str) -> None:
        if self.since is None:
            return
        took = self.clock() - self.since
        if self.database:
            log.warning(
                "the database answers again (%s) after %.1f s and %d failed attempt(s)", what, took, self.failures
            )
        else:
            log.info("%s works again after %.1f s and %d failed attempt(s)", what, took, self.failures)
        self.since, self.failures, self.database = None, 0, False

    @property
    def down(self) -> bool:
        return self.since is not None


OUTAGE = _Outage()
"""The process's outage state (shared by every `Retry`)."""


class Retry:
    """The back-off of one loop (see the module's text)."""

    def __init__(
        self,
        what: str,
        *,
        first: float = FIRST_S,
        most: float = MOST_S,
        rand: Callable[[], float] = random.random,
        outage: _Outage | None = None,
    ) -> None:
        self.what = what
        self.first, self.most = first, most
        self.rand = rand
        self.outage = outage if outage is not None else OUTAGE
        self.attempts = 0

    def failed(self, exc: BaseException) -> float:
        """Note a failure; the seconds to wait before the next attempt (doubling from `first` up to `most`, each
        drawn between half and all of it, so that processes that failed together do not retry together)."""
        self.attempts += 1
        self.outage.failed(self.what, exc)
        ceiling = min(self.most, self.first * 2 ** min(self.attempts - 1, 30))
        return float(ceiling * (0.5 + 0.5 * self.rand()))

    def ok(self) -> None:
        """Note a success: the back-off starts again from `first`; an outage, if any, is said to be over."""
        self.attempts = 0
        self.outage.ok(self.what)
