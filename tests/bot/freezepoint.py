"""Fault injection for real-process tests: `python -m tests.bot.freezepoint shardhost-args…` runs
`python -m bot.shardhost`, and the first time it is about to append a match's events after the file named by
DMHOST_TEST_FREEZE_FILE appears, it deletes the file and stops itself (SIGSTOP) — inside the write
transaction, after the lease fence, so it holds the lease row's lock (PostgreSQL) or the database's write lock
(SQLite) while it is frozen. Both write paths are covered: SQLAlchemy's statements (`before_cursor_execute`)
and the raw SQLite hot path (the driver connection's trace callback)."""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.util.concurrency import await_

TRIGGER = Path(os.environ.get("DMHOST_TEST_FREEZE_FILE", "/nonexistent/freeze"))
_once = threading.Lock()


def _maybe_freeze(sql: str) -> None:
    if not sql.lstrip().upper().startswith("INSERT INTO MATCH_EVENTS"):
        return
    with _once:
        if not TRIGGER.exists():
            return
        TRIGGER.unlink()
    os.kill(os.getpid(), signal.SIGSTOP)


def main() -> int:
    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        _maybe_freeze(statement)

    def on_connect(dbapi_conn: Any, _record: Any) -> None:
        driver = getattr(dbapi_conn, "_connection", None)
        if driver is not None and hasattr(driver, "set_trace_callback"):  # aiosqlite
            await_(driver.set_trace_callback(_maybe_freeze))

    event.listen(Engine, "before_cursor_execute", before)
    event.listen(Engine, "connect", on_connect)
    from bot.ops.shardhost import main as shardhost

    return shardhost(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
