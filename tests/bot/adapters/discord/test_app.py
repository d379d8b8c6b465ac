"""The bot as a whole: restart resumes matches with running clocks, shard ownership, entry points."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.adapters.discord.app import DMHost, create_bot, make_intents, owns_guild, shard_of
from bot.ops.apps import discord_app
from bot.settings import Settings
from tests.bot.adapters.discord.conftest import World, bot_text, now, start
from tests.bot.conftest import make_service


async def test_restart_resumes_the_match_and_its_clocks(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, clock="reserve=30")
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(20)  # bob thinks for 20 s, then the process is stopped and replaced
    old = w.bot
    with w.env._bot_scope():
        await old.service.close()  # what `close()` does first on SIGTERM: timers stop, heartbeat written
        await old.service.store.close()
    await w.env.restart_bot(create_bot(settings, discord_app(settings), sync_commands=True))
    bot = w.bot
    assert bot.resumed == [match_id]
    live = bot.service.live[match_id]
    assert live.ply == 1 and live.players[2].id == str(w.bob.id)
    remaining = live.clocks.remaining(2, now(w))
    assert remaining["move"] == pytest.approx(40, abs=1)  # bob's 20 s are still spent
    assert "resumed" in bot_text(w, room)
    await w.bob.send(room, "A2-B2")  # the room still works
    assert live.ply == 2
    await w.env.advance_time(60 + 30 + 5)  # alice never moves: move time, then her reserve, run out
    assert "bob wins on time" in bot_text(w, room)


async def test_resume_only_the_matches_of_this_shard(
    migrated_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    from bot.host.service import PlayerRef

    service = await make_service(migrated_db_url)
    players = [PlayerRef("1", "a"), PlayerRef("2", "b")]
    on_shard_0 = 0 << 22
    on_shard_1 = (1 << 22) + 5
    await service.create_match("boxes", players, guild_id=on_shard_0, channel_id=1)
    await service.create_match("boxes", players, guild_id=on_shard_1, channel_id=2)
    await service.close()
    await service.store.close()

    settings = Settings(_env_file=None, database_url=migrated_db_url, shard_ids=[1], shard_count=2)  # type: ignore[call-arg]
    bot = create_bot(settings, discord_app(settings), sync_commands=False)
    assert isinstance(bot, DMHost) and bot.shard_count == 2
    await bot._async_setup_hook()
    await bot.setup_hook()
    try:
        assert list(bot.service.live) == [2]
    finally:
        await bot.service.close()
        await bot.service.store.close()


def test_shard_formula_and_intents() -> None:
    assert shard_of(None, 4) == 0
    assert shard_of(175928847299117063, 4) == (175928847299117063 >> 22) % 4
    settings = Settings(_env_file=None, shard_ids=[0], shard_count=2)  # type: ignore[call-arg]
    assert owns_guild(settings, 0) and not owns_guild(settings, 1 << 22)
    assert owns_guild(Settings(_env_file=None), 1 << 22)  # type: ignore[call-arg]
    intents = make_intents()
    assert intents.message_content and intents.members and intents.guilds and intents.guild_messages


def test_every_feature_loads_and_python_m_bot_runs_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    import runpy

    from bot.adapters.discord import app

    for name in app.EXTENSIONS:
        module = __import__(name, fromlist=["setup"])
        assert callable(module.setup), name
    calls: list[list[str]] = []
    monkeypatch.setattr("bot.ops.cli.main", lambda argv: calls.append(argv) or 0)
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("bot", run_name="__main__")
    assert exit_info.value.code == 0 and calls == [["run"]]
