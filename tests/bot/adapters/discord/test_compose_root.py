"""The bot SimCord runs is the one the composition root builds: each feature holds the root's service (it
built none), and the host's events reach them in the root's order."""

from __future__ import annotations

from bot.adapters.discord._parts import parts
from bot.compose import Stage
from tests.bot.adapters.discord.conftest import World, board_of, resign, start


async def test_every_feature_holds_what_the_root_built(world: World) -> None:
    bot, app = world.bot, world.bot.app
    features = parts(bot)
    assert features.series is not None and features.series.series is app.series
    assert features.tournaments is not None and features.tournaments.tournaments is app.tournaments
    assert features.schedule is not None and features.schedule.scheduler is app.scheduler
    assert features.correspondence is not None and features.correspondence.store is app.correspondence
    assert features.correspondence.reminders is app.reminders  # the digest's core; the cog only delivers
    assert bot.service is app.service and bot.ratings is app.ratings and bot.guild_settings is app.guilds
    assert app.tournaments.open_room == features.tournaments.open_room  # the face's hooks, set at its load
    assert app.scheduler.starter == features.schedule._start_match

    owners = [(stage, getattr(listener, "__self__", None)) for stage, listener in app.bus.listeners()]
    assert owners[0] == (Stage.RECORD, app.ratings)
    tell = [owner for stage, owner in owners if stage == Stage.TELL]
    assert tell[0] is features.announcer
    assert {features.overview, features.series} <= set(tell)
    assert [owner for stage, owner in owners if stage == Stage.FOLLOW] == [
        app.series,
        app.tournaments.results,  # the tournament service's listener is its `Results` collaborator
        app.scheduler,
        app.reminders,
    ]


async def test_a_match_played_through_the_root_is_rated_and_told(world: World) -> None:
    w = world
    match_id, room = await start(w)
    await resign(w.bob, room)
    assert "alice wins by resignation" in board_of(w, room, match_id).content  # the announcer (TELL) told it
    table = await w.bot.app.ratings.table(w.guild.id, "boxes")  # the ratings (RECORD) stored it
    assert {s.player_id for s in table} == {str(w.alice.id), str(w.bob.id)}
