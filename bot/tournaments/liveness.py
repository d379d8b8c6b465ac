"""Who claimed a game: a process's name that says where it runs (`tournaments:HOST:PID:TAG`), so a claim
left by a process that is gone — killed on this machine — is taken over at once instead of after the
stale time (a terminal command killed mid-`start` must not hold its games for minutes)."""

from __future__ import annotations

import os
import socket
import uuid


def process_name() -> str:
    """This process's name for claims (at most 64 characters)."""
    host = socket.gethostname()[:30].replace(":", "-")
    return f"tournaments:{host}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def gone(name: str | None) -> bool:
    """Whether the process that wrote `name` certainly no longer runs: on this machine, and its pid is free.
    Any other name (another machine, an older format) is never called gone: the stale time decides."""
    if not name:
        return False
    parts = name.split(":")
    if len(parts) != 4 or parts[0] != "tournaments":
        return False
    host, pid = parts[1], parts[2]
    if host != socket.gethostname()[:30].replace(":", "-") or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return False  # this very process (another service in it)
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
