"""`dmhost run` with ownership: a standby neither connects to Discord nor keeps clocks, and identifies are
spaced out so that a flapping process never burns Discord's daily session starts."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from bot.adapters.discord.hosting import IdentifyBackoff, host, shards_of
from bot.ops.apps import discord_app
from bot.settings import Settings
from bot.store.health import newest_heartbeat
from bot.store.leases import LeaseTable
from bot.store.matches import MatchStore


def test_identifies_are_spaced_out_and_a_stable_session_resets_the_spacing() -> None:
    now = [0.0]
    backoff = IdentifyBackoff(lambda: now[0], first=5, most=40, stable=600)
    waits = []
    for _ in range(6):  # a process that loses its session at once, again and again
        wait = backoff.next_delay()
        waits.append(wait)
        now[0] += wait
        backoff.identified()
        now[0] += 1
    assert waits == [0, 4, 9, 19, 39, 39]  # 5, 10, 20, 40, 40 s apart (1 s of each was the session)
    now[0] += 600  # then a session that lasted ten minutes
    assert backoff.next_delay() == 0
    backoff.identified()
    now[0] += 1
    assert backoff.next_delay() == 4


def test_the_shards_of_a_process() -> None:
    assert shards_of(Settings(_env_file=None)) == ([0], 1)  # type: ignore[call-arg]
    assert shards_of(Settings(_env_file=None, shard_count=3)) == ([0, 1, 2], 3)  # type: ignore[call-arg]
    assert shards_of(Settings(_env_file=None, shard_count=4, shard_ids=[1, 3])) == ([1, 3], 4)  # type: ignore[call-arg]


async def test_run_waits_as_a_standby_while_a_live_process_holds_the_shards(
    migrated_sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = MatchStore(migrated_sqlite_url)
    await store.open()
    other = LeaseTable(store.engine, "the-live-owner", [0], lease_seconds=60)
    assert await other.acquire() is not None
    settings = Settings(_env_file=None, database_url=migrated_sqlite_url, token="not-used", lease_seconds=5)  # type: ignore[call-arg]
    caplog.set_level(logging.INFO)
    running = asyncio.create_task(host(settings, "not-used", lambda: discord_app(settings)))
    try:
        for _ in range(100):
            await asyncio.sleep(0.05)
            if "standby" in caplog.text:
                break
        assert "standby: shard(s) [0] are hosted by another process" in caplog.text
        await asyncio.sleep(0.5)
        assert not running.done()
        assert await newest_heartbeat(migrated_sqlite_url) is None  # no host service runs: no clocks, no heartbeat
        assert "discord" not in " ".join(r.name for r in caplog.records)  # nothing reached the gateway
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        await store.close()
