"""Issue 28, hosts: the double-booking warning, time odds, best-of-N series and the rematch button (SimCord)."""

from __future__ import annotations

from typing import Any

import simcord
from sqlalchemy import select

from bot.host.service import PlayerRef
from bot.records.matchlog import build_log
from bot.series.core import SERIES
from bot.wording import log_text
from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_messages, bot_text, start

ONE_BOX = ["A1-B1", "A1-A2", "B1-B2", "A2-B2"]
"""A 1×1 Dots-and-Boxes game: whoever moves second takes the box with the fourth line and wins 1–0."""


async def play_one_box(w: World, room: simcord.ChannelHandle, first: simcord.MemberActor) -> None:
    second = w.bob if first is w.alice else w.alice
    for i, move in enumerate(ONE_BOX):
        await (first if i % 2 == 0 else second).send(room, move)
    await settle(w)


async def settle(w: World) -> None:
    cog: Any = w.bot.get_cog("Series")
    await cog.drain()
    await w.env.settle()


def offer_message(w: World, room: simcord.ChannelHandle) -> Any:
    (offer,) = [m for m in bot_messages(w, room) if "Rematch" in str(m.components)]
    return offer


# -- double booking ------------------------------------------------------------------------------
async def test_a_player_in_a_live_match_warns_the_host_and_a_second_click_starts(world: World) -> None:
    w = world
    first_id, _ = await start(w)
    warned = answer(
        await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.dave, room="channel")
    )
    assert warned.ephemeral and "alice is already playing a live match here (`#1`)" in warned.content
    assert "Start anyway" in str(warned.components)
    assert list(w.bot.service.live) == [first_id]  # nothing started yet
    started = answer(await w.carol.click(warned, label="Start anyway"))
    assert "has started" in started.content and not started.ephemeral
    assert len(w.bot.service.live) == 2
    assert "Start anyway" not in str(warned.components)  # the warning's button is gone once used


async def test_the_warning_lapses_after_a_minute(world: World) -> None:
    w = world
    await start(w)
    warned = answer(
        await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.dave, player2=w.bob, room="channel")
    )
    assert "bob is already playing" in warned.content
    await w.env.advance_time(61)
    assert "lapsed" in warned.content and warned.components == []
    assert len(w.bot.service.live) == 1


async def test_no_warning_for_players_who_are_free(world: World) -> None:
    w = world
    await start(w)
    result = await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.carol, player2=w.dave, room="channel")
    assert "has started" in answer(result).content
    assert len(w.bot.service.live) == 2


# -- time odds -----------------------------------------------------------------------------------
async def test_time_odds_are_shown_logged_and_enforced(world: World) -> None:
    w = world
    match_id, room = await start(w, clock="move=20 reserve=100 bob:reserve=10")
    live = w.bot.service.live[match_id]
    assert live.clocks.tc.for_seat(1).reserve == 100 and live.clocks.tc.for_seat(2).reserve == 10
    assert "Time odds: bob reserve 10s" in board_of(w, room, match_id).content
    status = answer(await w.dave.slash(room, "dm status"))
    assert "Time odds: bob reserve 10s" in status.content, status.content
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(20 + 10 + 1)  # bob's move time and his short reserve run out: alice would have 100 s more
    stored = await w.bot.service.record(match_id)
    assert stored is not None and stored.status == "finished" and stored.winner_seat == 1
    assert stored.result_reason == "time"
    text = log_text(build_log(stored))
    assert "Time odds: bob reserve 10s" in text and "odds" not in text.split("Time odds")[0]


async def test_time_odds_by_seat_follow_the_player_who_moves_second(world: World) -> None:
    w = world
    match_id, room = await start(w, first="2", clock="p1:move=45")  # alice is named first, bob moves first
    live = w.bot.service.live[match_id]
    assert live.players[2].id == str(w.alice.id)
    assert live.clocks.tc.for_seat(2).move == 45 and live.clocks.tc.for_seat(1).move != 45
    assert "Time odds: alice move 45s" in board_of(w, room, match_id).content


async def test_time_odds_for_nobody_are_refused_privately(world: World) -> None:
    w = world
    for clock, words in (
        ("zed:reserve=10", "neither player"),
        ("p3:reserve=10", "neither player"),
        ("bob:kind=grace", "p1:"),
    ):
        refused = answer(
            await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob, clock=clock)
        )
        assert refused.ephemeral and words in refused.content, refused.content
    assert w.bot.service.live == {}


# -- series --------------------------------------------------------------------------------------
async def test_a_best_of_3_series_is_played_to_the_end_with_the_first_move_alternating(world: World) -> None:
    w = world
    reply = answer(
        await w.carol.slash(
            w.lobby,
            "dm start",
            game="boxes",
            player1=w.alice,
            player2=w.bob,
            options="rows=1 cols=1",
            series=3,
            room="channel",
        )
    )
    assert "game 1 of a best of 3" in reply.content
    movers = []
    for expected_score in ("0–0", "0–1", "1–1"):
        (live,) = w.bot.service.live.values()
        movers.append(live.players[1].name)
        board = board_of(w, w.lobby, live.id)
        assert f"Series: alice {expected_score} bob, best of 3" in board.content, board.content
        await play_one_box(w, w.lobby, w.alice if live.players[1].id == str(w.alice.id) else w.bob)
    assert movers == ["alice", "bob", "alice"]  # the first move alternates
    assert w.bot.service.live == {}  # decided 2–1 after three games: no fourth
    offer = offer_message(w, w.lobby)
    assert "**bob wins the series**, 2–1 (best of 3)." in offer.content
    async with w.bot.service.store.engine.connect() as conn:
        (row,) = (await conn.execute(select(SERIES))).mappings().all()
    assert row["status"] == "finished" and row["results"] == [2, 1, 2] and len(row["matches"]) == 3
    await w.alice.click(offer, label="Rematch")
    await w.bob.click(offer, label="Rematch")
    await settle(w)
    (live,) = w.bot.service.live.values()  # a new best of 3, bob moving first in its game 1
    assert live.players[1].id == str(w.bob.id)
    assert "Series: alice 0–0 bob, best of 3 · game 1" in board_of(w, w.lobby, live.id).content


async def test_a_series_continues_after_a_restart(world: World) -> None:
    w = world
    answer(
        await w.carol.slash(
            w.lobby,
            "dm start",
            game="boxes",
            player1=w.alice,
            player2=w.bob,
            options="rows=1 cols=1",
            series=3,
            room="channel",
        )
    )
    cog: Any = w.bot.get_cog("Series")
    service = cog.series
    (live,) = w.bot.service.live.values()
    service._by_match.clear()  # as if the bot had stopped just before game 1 ended: nobody took note of it
    await play_one_box(w, w.lobby, w.alice)
    assert w.bot.service.live == {}
    await service.start()  # what a restarted bot does once its matches are resumed
    await settle(w)
    (game2,) = w.bot.service.live.values()
    assert game2.id != live.id and game2.players[1].id == str(w.bob.id)
    assert "Series: alice 0–1 bob, best of 3 · game 2" in board_of(w, w.lobby, game2.id).content


async def test_an_aborted_series_says_so_with_the_link_to_the_board(world: World) -> None:
    w = world
    answer(
        await w.carol.slash(
            w.lobby,
            "dm start",
            game="boxes",
            player1=w.alice,
            player2=w.bob,
            options="rows=1 cols=1",
            series=3,
            room="channel",
        )
    )
    (live,) = w.bot.service.live.values()
    await w.carol.slash(w.lobby, "dm host abort", match=live.id)
    await settle(w)
    (line,) = [m for m in bot_messages(w, w.lobby) if "The series ends without a result" in m.content]
    assert line.content.endswith(f"[↑ board](<{board_of(w, w.lobby, live.id).jump_url}>)")
    assert w.bot.service.live == {}


async def test_even_series_and_advantage_series_are_refused(world: World) -> None:
    w = world
    even = answer(await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob, series=4))
    assert even.ephemeral and "odd number" in even.content
    adv = answer(
        await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob, series=3, first="a1")
    )
    assert adv.ephemeral and "alternates" in adv.content
    assert w.bot.service.live == {}


# -- rematch -------------------------------------------------------------------------------------
async def test_rematch_when_both_click_with_colours_swapped_in_a_new_thread(world: World) -> None:
    w = world
    match_id, room = await start(w, room="public", options="rows=1 cols=1", clock="move=40 reserve=200 bob:reserve=20")
    await play_one_box(w, room, w.alice)
    offer = offer_message(w, room)
    assert "alice and bob both click within 10 minutes" in offer.content
    link = f"[↑ board](<{board_of(w, room, match_id).jump_url}>)"
    assert offer.content.endswith(link), "the offer ends with the link up to the finished board"
    refused = answer(await w.dave.click(offer, label="Rematch"))
    assert refused.ephemeral and "Only the players" in refused.content
    await w.alice.click(offer, label="Rematch")
    assert "alice wants a rematch; waiting for bob" in offer_message(w, room).content
    assert offer_message(w, room).content.endswith(link), "still the link at the end after the waiting line"
    assert len(w.bot.service.live) == 0
    await w.bob.click(offer, label="Rematch")
    await settle(w)
    (live,) = w.bot.service.live.values()
    assert live.id != match_id
    assert live.players[1].id == str(w.bob.id) and live.players[2].id == str(w.alice.id)  # colours swapped
    assert live.raw_options == {"rows": 1, "cols": 1}
    assert live.clocks.tc.move == 40 and live.clocks.tc.for_seat(1).reserve == 20  # bob's odds go with bob
    assert live.clocks.tc.for_seat(2).reserve == 200
    new_room = [t for t in w.lobby.threads if t.id == live.channel_id]
    assert new_room and new_room[0].id != room.id  # a new public thread, as the original
    done = [m for m in bot_messages(w, room) if f"Rematch: match {live.id} has started in <#" in m.content]
    assert done and done[0].components == []


async def test_rematch_offer_lapses_after_ten_minutes(world: World) -> None:
    w = world
    _match_id, room = await start(w, options="rows=1 cols=1")
    await play_one_box(w, room, w.alice)
    offer = offer_message(w, room)
    await w.env.advance_time(601)
    (lapsed,) = [m for m in bot_messages(w, room) if m.id == offer.id]
    assert "lapsed" in lapsed.content and lapsed.components == []
    assert w.bot.service.live == {}


async def test_practice_rematch_needs_the_human_alone(world: World) -> None:
    w = world
    reply = answer(
        await w.alice.slash(
            w.lobby, "dm practice", game="boxes", level="random", options="rows=2 cols=2", room="channel"
        )
    )
    match_id = int(reply.content.split()[2])
    answer(await w.carol.slash(w.lobby, "dm host award", winner=w.alice, match=match_id))
    await settle(w)
    offer = offer_message(w, w.lobby)
    assert "alice click within" in offer.content
    await w.alice.click(offer, label="Rematch")
    await settle(w)
    (live,) = w.bot.service.live.values()
    assert live.practice and live.players[2].id == str(w.alice.id)  # the practice opponent moves first now
    cog: Any = w.bot.get_cog("MatchCommands")
    assert live.id in cog.practice_bot().seats


async def test_no_rematch_is_offered_under_a_tournament_game(world: World) -> None:
    w = world
    players = [PlayerRef(str(w.alice.id), "alice"), PlayerRef(str(w.bob.id), "bob")]
    match_id = await w.bot.service.create_match(
        "boxes", players, options={"rows": 1, "cols": 1}, guild_id=w.guild.id, channel_id=w.lobby.id, by="tournament:1"
    )
    await w.env.settle()
    await w.carol.slash(w.lobby, "dm host award", winner=w.alice, match=match_id)
    await settle(w)
    assert not [m for m in bot_messages(w, w.lobby) if "Rematch" in str(m.components)]


async def test_the_series_result_is_posted_where_game_results_go(world: World) -> None:
    """Issue 37: the channel got three game results and never the series'. Played in a public thread, each
    game's result goes to the channel under it, and so does the series' result."""
    w = world
    reply = answer(
        await w.carol.slash(
            w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob, options="rows=1 cols=1", series=3,
            room="public",
        )
    )  # fmt: skip
    assert "game 1 of a best of 3" in reply.content
    (room,) = w.lobby.threads
    for _game in range(3):
        (live,) = w.bot.service.live.values()
        await play_one_box(w, room, w.alice if live.players[1].id == str(w.alice.id) else w.bob)
    assert w.bot.service.live == {}
    said = "**bob wins the series**, 2–1 (best of 3)."
    told = [m for m in w.lobby.history(viewer=w.dave) if said in m.content]
    assert len(told) == 1, bot_text(w, w.lobby)
    games = [m for m in bot_messages(w, w.lobby) if "wins with" in m.content or "wins on" in m.content]
    assert len(games) == 3 and games[-1].id < told[0].id, "after the three game results"
