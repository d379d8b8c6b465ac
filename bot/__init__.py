"""dmhost's host: match services, clocks, persistence, and the terminal and Discord adapters."""

import os as _os
import sys as _sys


def _quiet_interrupt(_signum: int, _frame: object) -> None:
    """Ctrl-C while a command line is still being imported: exit 130 without a traceback (`bot.ops.cli.main`
    puts Python's own handler back once it runs, and catches the interrupt itself from then on)."""
    raise SystemExit(130)


def _starting_a_command() -> bool:
    """Whether this import is the start of a `dmhost` command (the console script, `python -m bot…`), not a
    library use (tests, benchmarks), whose Ctrl-C stays Python's."""
    first = _sys.argv[0] if _sys.argv else ""
    return first == "-m" or _os.path.basename(first) in ("dmhost", "dmhost.exe")


if _starting_a_command():
    import signal as _signal

    _signal.signal(_signal.SIGINT, _quiet_interrupt)
