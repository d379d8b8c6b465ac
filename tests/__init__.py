"""The test suite; it mirrors the source tree (`tests/games`, `tests/bot`, `tests/bot/adapters/discord`)."""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from subprocess import CompletedProcess

TESTS = Path(__file__).resolve().parent
"""This folder."""
DATA = TESTS / "data"
"""Every data file the tests read (nothing outside the repository)."""
ROOT = TESTS.parent
"""The repository."""

SEED_ENV = "DMHOST_TEST_SEED"
"""Set it to an integer to run every seeded test from that seed instead of its fixed default."""


def env_seed() -> int | None:
    """The seed DMHOST_TEST_SEED names, or None when it is not set."""
    text = os.environ.get(SEED_ENV, "").strip()
    return int(text) if text else None


def seeds(default: int, n: int = 1) -> list[int]:
    """The seeds of a randomised test: `n` consecutive ones from DMHOST_TEST_SEED when it is set, else from
    the test's fixed `default`. Rerunning with DMHOST_TEST_SEED=S starts from seed S."""
    base = env_seed()
    start = default if base is None else base
    return [start + i for i in range(n)]


@contextlib.contextmanager
def seed_note(seed: int) -> Iterator[None]:
    """Name the seed in a failure inside the block (pytest prints exception notes under the error)."""
    try:
        yield
    except BaseException as exc:
        exc.add_note(f"random seed {seed}; rerun it with {SEED_ENV}={seed}")
        raise


DMHOST = [sys.executable, "-m", "bot.ops.cli"]
"""The `dmhost` command line as a fresh process runs it (the console script is this module's `main`)."""


def dmhost(
    *args: str,
    stdin: str = "",
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    clean: bool = False,
    timeout: float = 300,
) -> CompletedProcess[str]:
    """`dmhost ARGS` in a fresh process, as a user runs it: the one command-line runner of the tests. `stdin` is
    its whole input (closed after it); it runs in `cwd` (default: the repository); `env` is added to this
    environment, from which `clean` first drops every DMHOST_* setting (and a `.env` is read only in `cwd`)."""
    base = {k: v for k, v in os.environ.items() if not (clean and k.startswith("DMHOST_"))}
    base.update(env or {})
    return subprocess.run(
        [*DMHOST, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT if cwd is None else cwd,
        env=base,
        timeout=timeout,
    )


@contextlib.contextmanager
def heard(name: str, level: int = logging.DEBUG) -> Iterator[list[logging.LogRecord]]:
    """Every record logger `name` emits while the block runs, heard on the logger itself (so no other test's
    logging set-up, a root handler replaced or propagation stopped, can hide one), at `level` and up."""
    records: list[logging.LogRecord] = []
    listener = logging.Handler(level)
    listener.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger(name)
    was = (logger.level, logger.disabled)
    logger.addHandler(listener)
    logger.setLevel(level)
    logger.disabled = False
    try:
        yield records
    finally:
        logger.removeHandler(listener)
        logger.level, logger.disabled = was


def run_python(args: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> CompletedProcess[str]:
    """`python ARGS` in a fresh process from the repository root, with `env` added to this environment."""
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
