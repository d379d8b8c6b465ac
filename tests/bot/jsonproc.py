"""A real child process that prints JSON lines (`dmhost room … --events-json`, `python -m bot.shardhost`), kept
open by a test: a thread reads every line as it comes, the test types lines (or JSON objects) in, waits for the
n-th event of some kind, and ends or kills it. The one reader of such processes in the suite."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

Line = dict[str, Any]


def by_event(line: Line) -> str:
    """A line's kind: its `event`."""
    return str(line["event"])


def by_kind(line: Line) -> str:
    """A line's kind: a scheduler event's `kind` (`waiting_room`, `checked_in`, …), else its `event`."""
    return str(line.get("kind", line["event"]))


class JsonLinesProcess:
    """One child process (`args`, run in `cwd` with `env`, this environment by default) and the JSON lines it
    printed so far, in order. What it writes on stderr goes to the file `stderr` when one is given (read at any
    time with `errors()`), else to a pipe read when it ends. `name` names it in a failure."""

    def __init__(
        self,
        args: Sequence[str],
        cwd: Path | None = None,
        *,
        kind: Callable[[Line], str] = by_event,
        timeout: float = 120.0,
        env: Mapping[str, str] | None = None,
        stderr: Path | None = None,
        name: str = "the process",
    ) -> None:
        self.name = name
        self.stderr_path = stderr
        self._err: TextIO | None = stderr.open("a") if stderr is not None else None
        self.proc = subprocess.Popen(
            list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err or subprocess.PIPE, text=True,
            cwd=cwd, env=None if env is None else dict(env), bufsize=1,
        )  # fmt: skip
        self.lines: list[Line] = []
        self.ended = False
        """Its output is closed: every line it printed is in `lines`."""
        self._kind = kind
        self._timeout = timeout
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def line(self, raw: str) -> Line:
        """One printed line as it is kept (a subclass may add what the test needs, e.g. when it was read)."""
        return dict(json.loads(raw))

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            with self._cond:
                self.lines.append(self.line(raw))
                self._cond.notify_all()
        with self._cond:
            self.ended = True
            self._cond.notify_all()

    def of(self, kind: str) -> list[Line]:
        """Its lines of that kind so far."""
        with self._cond:
            return [e for e in self.lines if self._kind(e) == kind]

    def wait_for(self, kind: str, n: int = 1, *, timeout: float | None = None) -> Line:
        """The `n`-th line of that kind, once printed (fails when the process ends without it, or after `timeout`
        seconds, the process's own by default)."""
        end = time.monotonic() + (self._timeout if timeout is None else timeout)
        with self._cond:
            while len(found := self.of(kind)) < n:
                assert not self.ended, f"{self.name} ended without {kind}: {self.lines}{self._said()}"
                assert time.monotonic() < end, f"{self.name}: no {kind}: {self.lines}"
                self._cond.wait(0.05)
            return found[n - 1]

    def type(self, *lines: str) -> None:
        """Type lines into its input."""
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def send(self, obj: Mapping[str, Any]) -> None:
        """Type one JSON object into its input, as a line."""
        self.type(json.dumps(obj))

    def errors(self) -> str:
        """Everything it wrote on stderr so far (its stderr is a file)."""
        assert self.stderr_path is not None, "its stderr is a pipe: `end()` reads it"
        return self.stderr_path.read_text()

    def _said(self) -> str:
        return f"\n{self.errors()}" if self.stderr_path is not None else ""

    def end(self, timeout: float = 120) -> tuple[int, str]:
        """Close its input, wait for it to exit: its exit code and everything it wrote on stderr."""
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        code = self.proc.wait(timeout)
        if self._err is not None:
            self._err.close()
            return code, self.errors()
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read()

    def kill(self) -> None:
        """Kill it (SIGKILL) if it still runs (a test's `finally`) and reap it."""
        self.proc.kill()
        self.proc.wait(30)
        if self._err is not None:
            self._err.close()
