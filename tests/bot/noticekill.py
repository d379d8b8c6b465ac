"""Fault injection for the outbox's tests: `python -m tests.bot.noticekill KIND dmhost-args…` runs the dmhost
command line and SIGKILLs itself right after the commit that stored a notice of kind KIND (a reminder, a
result), before the room printed it: the notice is owed, stored, and untold."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any


def main() -> int:
    kind = sys.argv[1]
    from bot.host.notices import Owing
    from bot.store.matches import MatchStore

    write_batch = MatchStore.write_batch

    async def append_then_die(self: MatchStore, *args: Any, **kwargs: Any) -> None:
        await write_batch(self, *args, **kwargs)
        also = kwargs.get("also")
        if isinstance(also, Owing) and any(n.kind == kind for n in also.notices):
            os.kill(os.getpid(), signal.SIGKILL)

    MatchStore.write_batch = append_then_die  # type: ignore[method-assign]
    from bot.ops.cli import main as dmhost

    return dmhost(sys.argv[2:])


if __name__ == "__main__":
    raise SystemExit(main())
