"""How many threads the compiled search runs on (`games.solver.kernel`: Lazy SMP over one table).

Unless set (`set_threads`; `python -m games solve --threads N`, `DMHOST_SOLVER_THREADS` for the bot
and every other process), a search uses every core this process may run on. One thread is the
plain sequential search. Nothing here imports numpy or numba.
"""

from __future__ import annotations

import os

ENV = "DMHOST_SOLVER_THREADS"

_threads: int | None = None


def available() -> int:
    """The cores this process may run on (its CPU affinity where the system says, else the count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def parse_threads(text: str) -> int:
    """A thread count from text (a whole number of at least 1); ValueError for anything else."""
    try:
        n = int(text.strip())
    except ValueError:
        raise ValueError(f"a thread count is a whole number like 1 or 2, not {text!r}") from None
    if n < 1:
        raise ValueError(f"a thread count must be at least 1, not {text!r}")
    return n


def set_threads(n: int | None) -> None:
    """Set the threads searches use in this process (None: the environment's, else every core)."""
    global _threads
    if n is not None and n < 1:
        raise ValueError("the thread count must be at least 1")
    _threads = n


def threads() -> int:
    """The thread count in force: the one set, else `DMHOST_SOLVER_THREADS`, else the cores available
    (a bad value in the environment counts as unset)."""
    if _threads is not None:
        return _threads
    env = os.environ.get(ENV, "").strip()
    if env:
        try:
            return parse_threads(env)
        except ValueError:
            pass
    return available()
