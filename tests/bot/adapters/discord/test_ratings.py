"""Ratings in Discord: rated and casual matches, award, abort, practice;
`/dm ratings leaderboard`, `/dm ratings profile` (with its chart) and the rating changes in the result line;
each server keeps its own table."""

from __future__ import annotations

import io
from typing import Any

import pytest
import simcord
from PIL import Image

from bot.store.matches import NewEvent
from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_messages, resign, start


def table(w: World, guild: int | None = None) -> Any:
    return w.bot.ratings.table(guild if guild is not None else w.guild.id)  # type: ignore[attr-defined]


async def resigned(
    w: World, loser: simcord.MemberActor, *, by: simcord.MemberActor | None = None, **options: Any
) -> int:
    """A boxes match alice (player 1) and bob play until `loser` resigns; its id."""
    match_id, room = await start(w, by=by, **options)
    await resign(loser, room)
    assert match_id not in w.bot.service.live
    return match_id


async def test_a_rated_match_changes_both_ratings_and_the_result_line_says_by_how_much(world: World) -> None:
    w = world
    match_id = await resigned(w, w.alice)
    board = board_of(w, w.lobby, match_id)
    assert "**Result: bob wins by resignation.** alice 1258? (-242) · bob 1742? (+242)" in board.content
    rows = await table(w)
    assert [(s.name, round(s.rating, 1), s.games, s.wins, s.losses) for s in rows] == [
        ("bob", 1741.6, 1, 1, 0),
        ("alice", 1258.4, 1, 0, 1),
    ]


@pytest.mark.parametrize("how", [{"rated": False}, {"rules": "rated=off"}])
async def test_a_casual_match_is_not_rated(world: World, how: dict[str, Any]) -> None:
    w = world
    match_id = await resigned(w, w.alice, **how)
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.status == "finished" and stored.rated is False
    assert await table(w) == []
    board = board_of(w, w.lobby, match_id)
    assert "Result: bob wins" in board.content and "(+" not in board.content


async def test_a_bad_rated_rule_is_refused_privately(world: World) -> None:
    w = world
    r = answer(
        await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob, rules="rated=maybe")
    )
    assert r.ephemeral and "rated is on or off" in r.content
    assert w.bot.service.live == {}


async def test_an_award_is_a_result_a_drawn_award_a_draw_and_an_abort_nothing(world: World) -> None:
    w = world
    won, room = await start(w)
    await w.carol.slash(room, "dm host award", winner=w.bob)
    assert "bob 1742? (+242)" in board_of(w, room, won).content
    drawn, room = await start(w)
    await w.carol.slash(room, "dm host award")
    aborted, room = await start(w)
    await w.carol.slash(room, "dm host abort")
    assert await w.bot.ratings.of_match(aborted) is None  # type: ignore[attr-defined]
    draw = await w.bot.ratings.of_match(drawn)  # type: ignore[attr-defined]
    assert draw is not None and [c.name for c in draw.changes] == ["alice", "bob"]
    bob = {s.name: s for s in await table(w)}["bob"]
    assert (bob.games, bob.wins, bob.losses, bob.draws, bob.streak) == (2, 1, 0, 1, 0)
    assert "aborted by the host" in board_of(w, room, aborted).content


async def test_practice_is_never_rated(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    w = world
    monkeypatch.setenv("DMHOST_BOT_BUDGET", "0.05")
    text = answer(
        await w.alice.slash(
            w.lobby, "dm practice", game="boxes", level="random", options="rows=2 cols=2", room="channel"
        )
    ).content
    match_id = int(text.split()[2])
    await resign(w.alice, w.lobby, match=match_id)
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.status == "finished" and stored.rated is False
    assert await table(w) == []

    # a practice match stored before ratings existed (no flag) is made casual when the bot is ready
    store, me = w.bot.service.store, str(w.bot.user.id)  # type: ignore[union-attr]
    old = await store.create_match(
        game="boxes",
        options={},
        clock={},
        status="ongoing",
        players={1: (str(w.bob.id), "bob"), 2: (me, "dmhost (hard)")},
        guild_id=w.guild.id,
        channel_id=w.lobby.id,
        snapshot={},
        events=[NewEvent("created")],
    )
    await store.write_batch(old, 1, [NewEvent("finished", 2)], snapshot={}, status="finished", winner_seat=2)
    from sqlalchemy import update

    from bot.store.db import Match

    async with store.engine.begin() as conn:
        await conn.execute(update(Match).where(Match.id == old).values(rated=None))
    assert await w.bot.ratings.mark_casual(me) == 1  # type: ignore[attr-defined]
    assert await w.bot.ratings.catch_up() == 0  # type: ignore[attr-defined]
    assert await table(w) == []


async def _season(w: World) -> list[int]:
    """alice beats bob twice, dave beats bob, alice and dave draw (an award without a winner)."""
    ids = [await resigned(w, w.bob), await resigned(w, w.bob)]
    result = await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.dave, player2=w.bob, room="channel")
    third = int(answer(result).content.split()[1])
    await resign(w.bob, w.lobby, match=third)
    result = await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.dave, room="channel")
    fourth = int(answer(result).content.split()[1])
    await w.carol.slash(w.lobby, "dm host award", match=fourth)
    return [*ids, third, fourth]


async def test_leaderboard_top_with_deviation_and_question_mark_and_the_callers_place(world: World) -> None:
    w = world
    await _season(w)
    r = answer(await w.dave.slash(w.lobby, "dm ratings leaderboard", game="boxes"))
    embed = r.embeds[0]
    assert r.ephemeral and embed.title == "Leaderboard: Dots-and-Boxes"
    lines = (embed.description or "").splitlines()
    expected = await w.bot.ratings.leaderboard(w.guild.id, "boxes")  # type: ignore[attr-defined]
    assert [s.name for s in expected] == ["alice", "dave", "bob"]
    shown = [f"{s.rating:.0f}? ±{s.deviation:.0f}" for s in expected]  # provisional: marked, deviation shown
    assert lines == [
        f"1. alice {shown[0]} · 3 games, 2 won, 0 lost, 1 drawn",
        f"2. dave {shown[1]} · 2 games, 1 won, 0 lost, 1 drawn",
        f"3. bob {shown[2]} · 3 games, 0 won, 3 lost, 0 drawn",
    ]
    assert embed.footer.text == f"Your place: 2 of 3, {shown[1]}."
    r = answer(await w.carol.slash(w.lobby, "dm ratings leaderboard", game="boxes"))
    assert r.embeds[0].footer.text == "You have no rated match in this game here yet."
    r = answer(await w.carol.slash(w.lobby, "dm ratings leaderboard", game="trax"))
    assert r.embeds[0].description == "Nobody has played a rated Trax match in this server yet."
    r = answer(await w.carol.slash(w.lobby, "dm ratings leaderboard", game="chess"))
    assert r.ephemeral and r.content.startswith("Unknown game")


async def test_leaderboard_shows_twenty_and_a_settled_deviation(world: World) -> None:
    """Twenty-five rated players (stored directly): the top twenty are shown; a settled player's
    deviation is a number."""
    from bot.ratings.glicko import Rating
    from bot.ratings.models import PlayerRating
    from bot.store.db import utcnow

    w = world
    rows = [
        {
            "guild_key": w.guild.id, "game": "dots", "player_id": str(1000 + i), "name": f"p{i}",
            "rating": 1400.0 + i, "deviation": 60.0 if i == 24 else Rating.new().deviation, "volatility": 0.06,
            "games": 30 if i == 24 else 3, "wins": 10 if i == 24 else 1, "losses": 10 if i == 24 else 1,
            "draws": 10 if i == 24 else 1, "streak": 0, "last_at": utcnow(), "last_match": 1,
        }
        for i in range(25)
    ]  # fmt: skip
    from sqlalchemy import insert

    async with w.bot.service.store.engine.begin() as conn:
        await conn.execute(insert(PlayerRating), rows)
    lines = (
        answer(await w.dave.slash(w.lobby, "dm ratings leaderboard", game="dots")).embeds[0].description or ""
    ).splitlines()
    assert len(lines) == 20
    assert lines[0] == "1. p24 1424 ±60 · 30 games, 10 won, 10 lost, 10 drawn"
    assert lines[-1] == "20. p5 1405? ±500 · 3 games, 1 won, 1 lost, 1 drawn"


async def test_profile_per_game_with_recent_results_linked_head_to_head_and_a_chart(world: World) -> None:
    w = world
    ids = await _season(w)
    r = answer(await w.dave.slash(w.lobby, "dm ratings profile", member=w.alice, versus=w.bob))
    embed = r.embeds[0]
    assert embed.title == "Profile: alice"
    (field,) = embed.fields
    assert field.name == "Dots-and-Boxes"
    value = field.value or ""
    alice = (await w.bot.ratings.leaderboard(w.guild.id, "boxes"))[0]  # type: ignore[attr-defined]
    assert value.startswith(
        f"Rating {alice.rating:.0f}? ±{alice.deviation:.0f} (provisional), rank 1\n"
        "3 games: 2 won, 0 lost, 1 drawn; streak: none\n"
    )
    assert "Against bob: 2 won, 0 lost, 0 drawn" in value
    assert "Last 3:" in value
    link = f"https://discord.com/channels/{w.guild.id}/{w.lobby.id}"
    assert "drew against dave (" in value and f"[match {ids[3]}]({link})" in value
    assert value.index(f"match {ids[3]}]") < value.index(f"match {ids[0]}]")  # newest first
    assert [a.filename for a in r.attachments] == ["ratings.png"]
    assert embed.image.url == "attachment://ratings.png"
    chart = Image.open(io.BytesIO(await r.attachments[0].read()))
    assert chart.format == "PNG" and chart.size == (720, 360)
    r = answer(await w.dave.slash(w.lobby, "dm ratings profile", member=w.carol))
    assert r.content == "carol has no rated match in this server yet." and not r.attachments
    own = answer(await w.bob.slash(w.lobby, "dm ratings profile"))
    assert own.embeds[0].title == "Profile: bob" and "3 losses in a row" in (own.embeds[0].fields[0].value or "")


async def test_two_servers_tables_never_mix(world: World) -> None:
    w = world
    await resigned(w, w.bob)  # alice wins here
    other = w.env.create_guild(name="Elsewhere")
    lounge = other.create_text_channel("lounge")
    host = other.add_member(w.env.create_user("erin"), roles=[other.create_role("Host")])
    alice_there = other.add_member(w.alice.user)
    frank = other.add_member(w.env.create_user("frank"))
    result = await host.slash(lounge, "dm start", game="boxes", player1=alice_there, player2=frank, room="channel")
    match_id = int(answer(result).content.split()[1])
    await resign(alice_there, lounge, match=match_id)  # alice loses there

    here = [(s.name, s.wins) for s in await table(w)]
    there = [(s.name, s.wins) for s in await table(w, other.id)]
    assert here == [("alice", 1), ("bob", 0)] and there == [("frank", 1), ("alice", 0)]
    lines = answer(await frank.slash(lounge, "dm ratings leaderboard", game="boxes")).embeds[0].description or ""
    assert "bob" not in lines and lines.startswith("1. frank")
    profile = answer(await frank.slash(lounge, "dm ratings profile", member=alice_there)).embeds[0]
    assert "1 game: 0 won, 1 lost" in (profile.fields[0].value or "")
    assert "bob" not in (profile.fields[0].value or "")


async def test_advantage_can_go_to_the_lower_or_higher_rated_player(world: World) -> None:
    w = world
    await resigned(w, w.bob)  # alice is now the higher rated
    for mode, chooser in (("lower-rated", 2), ("higher-rated", 1)):
        match_id, room = await start(w, first=mode)
        stored = await w.bot.service.store.load(match_id, with_events=True)
        assert stored is not None and stored.events[0].data["advantage"] == chooser
        await w.carol.slash(room, "dm host abort")


async def test_the_result_posted_outside_the_room_shows_the_rating_changes(world: World) -> None:
    w = world
    match_id, room = await start(w, room="public")
    await resign(w.alice, room)
    posted = [m.content for m in bot_messages(w, w.lobby) if "alice 1258? (-242) · bob 1742? (+242)" in m.content]
    assert len(posted) == 1 and str(match_id) in posted[0]


async def test_after_ten_games_nobody_shows_a_question_mark_and_the_profile_shows_the_deviation(world: World) -> None:
    """Issue 37: two members who played each other 14 times both still showed `?`. A rating is provisional
    while its deviation is 110 or more (lichess) and its player has fewer than 10 rated games."""
    from bot.ratings.glicko import PARAMS

    w = world
    for n in range(1, PARAMS.settled_games + 1):
        match_id = await resigned(w, w.alice if n % 2 else w.bob)
        line = board_of(w, w.lobby, match_id).content
        settled = n >= PARAMS.settled_games
        assert ("?" not in line.split("**Result:")[1]) is settled, line
    alice, bob = sorted(await table(w), key=lambda s: s.name)
    assert alice.deviation >= PARAMS.provisional_from, "lichess's line alone would still say provisional"
    assert not alice.provisional and not bob.provisional
    profile = answer(await w.dave.slash(w.lobby, "dm ratings profile", member=w.alice)).embeds[0]
    value = profile.fields[0].value or ""
    assert value.startswith(f"Rating {alice.rating:.0f} ±{alice.deviation:.0f}, rank ")
    board = answer(await w.dave.slash(w.lobby, "dm ratings leaderboard", game="boxes")).embeds[0].description or ""
    assert "?" not in board and f"alice {alice.rating:.0f} ±{alice.deviation:.0f} · 10 games" in board


async def test_a_host_posts_the_leaderboard_and_a_profile_for_everyone(world: World) -> None:
    w = world
    await resigned(w, w.bob)
    before = len(bot_messages(w, w.lobby))
    refused = answer(await w.dave.slash(w.lobby, "dm ratings leaderboard", game="boxes", public=True))
    assert refused.ephemeral and "host" in refused.content.lower()
    assert len(bot_messages(w, w.lobby)) == before
    posted = answer(await w.carol.slash(w.lobby, "dm ratings leaderboard", game="boxes", public=True))
    assert not posted.ephemeral and posted.embeds[0].title == "Leaderboard: Dots-and-Boxes"
    title = "Leaderboard: Dots-and-Boxes"
    seen = [m for m in w.lobby.history(viewer=w.dave) if m.embeds and m.embeds[0].title == title]
    assert len(seen) == 1 and "1. alice" in (seen[0].embeds[0].description or "")
    assert not seen[0].embeds[0].footer.text, "the caller's own place is not posted"

    private = answer(await w.carol.slash(w.lobby, "dm ratings profile", member=w.alice))
    assert private.ephemeral and "Post in the channel" in str(private.components)
    await w.carol.click(private, label="Post in the channel")
    await w.env.settle()
    (shared,) = [m for m in w.lobby.history(viewer=w.bob) if m.embeds and m.embeds[0].title == "Profile: alice"]
    assert [a.filename for a in shared.attachments] == ["ratings.png"]
    assert "Rating " in (shared.embeds[0].fields[0].value or "")
    plain = answer(await w.dave.slash(w.lobby, "dm ratings profile", member=w.alice))
    assert plain.ephemeral and "Post in the channel" not in str(plain.components), "only a host gets the button"
