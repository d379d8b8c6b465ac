"""A real child process that prints JSON lines (`dmhost room … --events-json`), kept open by a test: a thread
reads every line as it comes, the test types lines in, waits for an event of some kind, and ends or kills it."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Line = dict[str, Any]


def by_event(line: Line) -> str:
    """A line's kind: its `event`."""
    return str(line["event"])


def by_kind(line: Line) -> str:
    """A line's kind: a scheduler event's `kind` (`waiting_room`, `checked_in`, …), else its `event`."""
    return str(line.get("kind", line["event"]))


class JsonLinesProcess:
    """One child process (`args`, run in `cwd`) and the JSON lines it printed so far, in order."""

    def __init__(
        self, args: Sequence[str], cwd: Path, *, kind: Callable[[Line], str] = by_event, timeout: float = 120.0
    ) -> None:
        self.proc = subprocess.Popen(
            list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
            bufsize=1,
        )  # fmt: skip
        self.lines: list[Line] = []
        self._kind = kind
        self._timeout = timeout
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cond:
                self.lines.append(json.loads(line))
                self._cond.notify_all()

    def wait_for(self, kind: str, timeout: float | None = None) -> Line:
        """The first line of that kind, once printed (fails after `timeout` seconds, the process's own by default)."""
        end = time.monotonic() + (self._timeout if timeout is None else timeout)
        with self._cond:
            while not (found := [e for e in self.lines if self._kind(e) == kind]):
                assert time.monotonic() < end, f"no {kind}: {self.lines}"
                self._cond.wait(0.05)
            return found[0]

    def type(self, *lines: str) -> None:
        """Type lines into its input."""
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def end(self, timeout: float = 120) -> tuple[int, str]:
        """Close its input, wait for it to exit: its exit code and everything it wrote on stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        code = self.proc.wait(timeout)
        return code, self.proc.stderr.read()

    def kill(self) -> None:
        """Kill it if it still runs (a test's `finally`) and reap it."""
        self.proc.kill()
        self.proc.wait(30)
