"""Whether the compiled search is loaded in this process: one flag, safe to read from any thread at
any moment.

A leaf module (standard library only). `games.solver.api` imports it before any warm-up thread can
start, and `games.solver.kernel.load` sets the flag only once the compiled code has run, so a reader
never looks into a module another thread is still importing.
"""

from __future__ import annotations

import threading

KERNEL_LOADED = threading.Event()
"""Set once the compiled search has run in this process (loaded from disk, or compiled first)."""
