"""Per-guild settings in the database, on a SQLite file and on PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect

from bot.host.events import Refusal
from bot.store.db import current_revision, migrate
from bot.store.guilds import GuildSettings, GuildSettingsStore, SettingsError
from bot.store.matches import MatchStore
from bot.wording import refusal_text

GUILD = 1_189_000_000_000_000_001  # a real-sized snowflake: beyond 32 bits and beyond a double's 53
ROLE = 1_189_000_000_000_000_777
CHANNEL = 1_189_000_000_000_000_999


async def test_a_guild_without_settings_has_the_defaults(store: MatchStore) -> None:
    guilds = GuildSettingsStore(store.engine)
    await guilds.load()
    assert guilds.cached(GUILD) == GuildSettings(GUILD)
    got = await guilds.get(GUILD)
    assert (got.host_role_id, got.room_channel_id, got.room_mode, got.clock_for("boxes")) == (None, None, None, {})


async def test_settings_round_trip_through_the_database(store: MatchStore) -> None:
    writer = GuildSettingsStore(store.engine)
    await writer.update(GUILD, host_role_id=ROLE, room_channel_id=CHANNEL, room_mode="private")
    await writer.update(GUILD, clock=("Boxes", {"move": "90", "reserve": "600"}))
    await writer.update(GUILD, clock=("trax", {"move": "45"}))
    await writer.update(GUILD + 1, room_mode="channel")

    reader = GuildSettingsStore(store.engine)  # a fresh process: nothing in memory
    assert reader.cached(GUILD) == GuildSettings(GUILD)
    await reader.load()
    mine = reader.cached(GUILD)
    assert mine.host_role_id == ROLE and mine.room_channel_id == CHANNEL and mine.room_mode == "private"
    assert mine.clock_for("boxes") == {"move": "90", "reserve": "600"}
    assert mine.clock_for("trax") == {"move": "45"}
    assert mine.clock_for("dots") == {}
    assert reader.cached(GUILD + 1).room_mode == "channel"
    assert reader.cached(GUILD + 1).host_role_id is None
    assert await reader.get(GUILD) == mine


async def test_resetting_settings(store: MatchStore) -> None:
    guilds = GuildSettingsStore(store.engine)
    await guilds.update(GUILD, host_role_id=ROLE, room_mode="public", clock=("boxes", {"move": "90"}))
    await guilds.update(GUILD, clock=("trax", {"move": "30"}))
    after = await guilds.update(GUILD, host_role_id=None, clock=("boxes", None))
    assert after.host_role_id is None and after.room_mode == "public"
    assert after.clock_for("boxes") == {} and after.clock_for("trax") == {"move": "30"}
    assert await GuildSettingsStore(store.engine).get(GUILD) == after


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"room_mode": "thread"}, "public, private, channel"),
        ({"clock": ("boxes", {"move": "soon"})}, "number of seconds"),
        ({"clock": ("boxes", {"speed": "3"})}, "there is no clock setting"),
        ({"clock": ("boxes", {"move": "0"})}, "more than 0"),
        ({"clock": ("chess", {"move": "30"})}, "chess"),
    ],
)
async def test_bad_settings_are_refused_and_nothing_is_stored(
    store: MatchStore, kwargs: dict[str, object], words: str
) -> None:
    guilds = GuildSettingsStore(store.engine)
    await guilds.update(GUILD, room_mode="private", clock=("boxes", {"move": "90"}))
    with pytest.raises(SettingsError) as refused:
        await guilds.update(GUILD, **kwargs)  # type: ignore[arg-type]
    assert words in refusal_text(Refusal(refused.value.code, data=refused.value.data))
    stored = await GuildSettingsStore(store.engine).get(GUILD)
    assert stored.room_mode == "private" and stored.clock_for("boxes") == {"move": "90"}


async def test_migration_0002_goes_down_and_up(db_url: str, store: MatchStore) -> None:
    await GuildSettingsStore(store.engine).update(GUILD, room_mode="private")

    async def tables() -> set[str]:
        async with store.engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))

    assert "guild_settings" in await tables()
    await migrate(db_url, "downgrade", "0001")
    assert await current_revision(db_url) == "0001"
    assert "guild_settings" not in await tables()
    assert "matches" in await tables()
    await migrate(db_url, "upgrade", "head")
    assert await GuildSettingsStore(store.engine).get(GUILD) == GuildSettings(GUILD)


async def test_a_guild_name_is_upserted_alone_and_cleaned(store: MatchStore) -> None:
    guilds = GuildSettingsStore(store.engine)
    assert await guilds.set_name(GUILD, "Death Match Club") == "Death Match Club"  # no row yet: one is made
    assert await GuildSettingsStore(store.engine).get(GUILD) == GuildSettings(GUILD, name="Death Match Club")
    await guilds.update(GUILD, room_mode="private", clock=("boxes", {"move": "90"}))
    assert (await GuildSettingsStore(store.engine).get(GUILD)).name == "Death Match Club"  # settings keep it
    hostile = "Evil\u202e\nClub\t\x00<b>" + "x" * 200  # a bidi override, a newline, controls, far too long
    kept = await guilds.set_name(GUILD, hostile)
    assert kept is not None and kept.startswith("Evil Club <b>xx") and kept.endswith("…") and len(kept) == 100
    fresh = GuildSettingsStore(store.engine)
    await fresh.load()
    got = fresh.cached(GUILD)
    assert got.name == kept and got.room_mode == "private" and got.clock_for("boxes") == {"move": "90"}
    assert all(c.isprintable() for c in kept)
    assert await guilds.set_name(GUILD, " \n\u202e ") is None  # nothing printable: the stored name stays
    assert (await fresh.get(GUILD)).name == kept
    await guilds.set_name(GUILD + 1, "  Second   club ")
    assert (await fresh.get(GUILD + 1)).name == "Second club"
    assert (await fresh.get(GUILD + 1)).room_mode is None
