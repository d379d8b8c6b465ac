"""Fault injection for real-process tests: `python -m tests.bot.killpoint N dmhost-args…` runs the dmhost
command line and SIGKILLs itself when the Nth database commit is about to happen (so after commit N-1:
N = 1, 2, … puts a kill between every two commits). N = 0 kills nothing and prints how many commits ran
(on stderr, `commits: K`)."""

from __future__ import annotations

import os
import signal
import sys

from sqlalchemy import event
from sqlalchemy.engine import Engine


def main() -> int:
    at = int(sys.argv[1])
    seen = 0

    def on_commit(_conn: object) -> None:
        nonlocal seen
        seen += 1
        if seen == at:
            os.kill(os.getpid(), signal.SIGKILL)

    event.listen(Engine, "commit", on_commit)
    from bot.ops.cli import main as dmhost

    try:
        return dmhost(sys.argv[2:])
    finally:
        print(f"commits: {seen}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
