"""A database of finished, analysed matches shared by the coaching tests of a module (built once)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.store.db import sqlite_url_for
from tests.bot.coaching.players import play
from tests.bot.conftest import _run_in_thread, make_service

BOXES = {"rows": 3, "cols": 3}
MATCHES = 6


async def _build(url: str) -> list[int]:
    service = await make_service(url)
    try:
        ids = []
        for seed in range(MATCHES):
            levels = ("easy", "medium") if seed % 2 == 0 else ("medium", "easy")
            players = [("local:al", "al", levels[0]), ("local:bo", "bo", levels[1])]
            ids.append(await play(service, "boxes", BOXES, players, seed))
        return ids
    finally:
        await service.close()
        await service.store.close()  # the WAL checkpointed: the file is copied alone


@pytest.fixture(scope="session")
def analysed_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[int]]:
    """A SQLite file with six finished, analysed 3×3 Boxes matches between al and bo (easy and medium)."""
    path = tmp_path_factory.mktemp("coaching") / "dmhost.db"
    ids = _run_in_thread(_build(sqlite_url_for(path)))
    return path, ids


@pytest.fixture
def analysed_db(tmp_path: Path, analysed_template: tuple[Path, list[int]]) -> tuple[str, list[int]]:
    """A copy of the analysed matches' database: (its URL, the match ids)."""
    path, ids = analysed_template
    copy = tmp_path / "dmhost.db"
    shutil.copy(path, copy)
    return sqlite_url_for(copy), ids
