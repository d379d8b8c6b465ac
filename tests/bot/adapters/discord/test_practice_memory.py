"""`DMHOST_SOLVER_MEMORY`: the operator's limit on the memory the practice opponent's solver may use."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.adapters.discord.app import create_bot
from bot.ops.apps import discord_app
from bot.settings import Settings
from games.solver import memory, set_memory_limit
from tests.bot.ops.test_cli_errors import assert_one_line_error, dmhost

LIMIT = 1 << 20
"""1 MiB: below what any Python process uses, so no table of the solver ever fits."""


@pytest.fixture(autouse=True)
def _no_limit_left_behind() -> Iterator[None]:
    yield
    set_memory_limit(None)


async def test_the_bot_applies_the_limit_at_start(migrated_sqlite_url: str, solver_compiled: None) -> None:
    settings = Settings(_env_file=None, database_url=migrated_sqlite_url, solver_memory="1M")  # type: ignore[call-arg]
    bot = create_bot(settings, discord_app(settings), sync_commands=False)
    await bot._async_setup_hook()
    await bot.setup_hook()
    try:
        await bot.solver_loading
        assert memory.limit() == LIMIT
    finally:
        await bot.service.close()
        await bot.service.store.close()


def test_the_setting_reads_sizes() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DMHOST_")}
    assert Settings(_env_file=None, solver_memory="4G").solver_memory == 4 << 30  # type: ignore[call-arg]
    assert Settings(_env_file=None, solver_memory=12345).solver_memory == 12345  # type: ignore[call-arg]
    assert Settings(_env_file=None).solver_memory is None or "DMHOST_SOLVER_MEMORY" in env  # type: ignore[call-arg]


def test_a_bad_setting_is_one_line(tmp_path: Path) -> None:
    proc = dmhost("run", cwd=tmp_path, env={"DMHOST_TOKEN": "not-a-token", "DMHOST_SOLVER_MEMORY": "lots"})
    assert_one_line_error(proc, "DMHOST_SOLVER_MEMORY", "512M")
