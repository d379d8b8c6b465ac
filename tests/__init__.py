"""The test suite; it mirrors the source tree (`tests/games`, `tests/bot`, `tests/bot/discord`)."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
"""This folder."""
DATA = TESTS / "data"
"""Every data file the tests read (nothing outside the repository)."""
ROOT = TESTS.parent
"""The repository."""
