"""Slash commands and buttons on a simulated Discord: permissions, refusals, host tools, records."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from discord import app_commands

from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_text, now, resign, start


def test_command_tree_names_unique_and_described() -> None:
    from bot.adapters.discord.app import create_bot
    from bot.adapters.discord.commands import MatchCommands
    from bot.ops.apps import discord_app
    from bot.settings import Settings

    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    bot = create_bot(settings, discord_app(settings), sync_commands=False)
    cog = MatchCommands(bot)
    group = cog.app_command
    assert isinstance(group, app_commands.Group) and group.name == "dm" and group.description
    names = [c.name for c in group.commands]
    assert len(names) == len(set(names)) <= 25
    assert {"start", "rules", "board", "status", "resign", "mulligan", "ready", "log", "history", "help"} <= set(names)
    host = group.get_command("host")
    assert isinstance(host, app_commands.Group)
    assert {c.name for c in host.commands} == {"pause", "resume", "abort", "time", "award"}
    for cmd in group.walk_commands():
        assert cmd.description and len(cmd.description) <= 100, cmd.name
        if isinstance(cmd, app_commands.Group):
            continue
        for param in cmd.parameters:
            assert param.description and param.description != "…", (cmd.name, param.name)


async def test_the_loaded_tree_is_grouped_by_purpose_with_room_in_every_group(world: World) -> None:
    from bot.adapters.discord.commands._help import MAX_ENTRIES, walk_groups

    root = world.bot.tree.get_command("dm")
    assert isinstance(root, app_commands.Group)
    groups = {g.qualified_name: len(g.commands) for g in walk_groups(root)}
    assert {"dm", "dm host", "dm event", "dm tournament", "dm ratings"} <= set(groups)
    assert max(groups.values()) <= MAX_ENTRIES, groups
    # `/dm help` names every command, each under its group, from the tree as loaded
    card = answer(await world.carol.slash(world.lobby, "dm help"))
    assert card.ephemeral
    lines = card.content.splitlines()
    for group in walk_groups(root):
        line = next(line for line in lines if line.startswith(f"**/{group.qualified_name}**"))
        for command in group.commands:
            if not isinstance(command, app_commands.Group):
                assert f"`{command.name}`" in line, (group.qualified_name, command.name)
    assert len(card.content) <= 2000


async def test_start_with_options_and_clock(world: World) -> None:
    w = world
    result = await w.carol.slash(
        w.lobby,
        "dm start",
        game="boxes",
        player1=w.alice,
        player2=w.bob,
        first="2",
        options="rows=1 cols=2",
        clock="move=30 reserve=90",
        room="channel",
    )
    reply = answer(result)
    assert not reply.ephemeral and "has started" in reply.content
    assert {w.alice.mention, w.bob.mention} <= set(reply.content.split())
    (live,) = w.bot.service.matches_in_channel(w.lobby.id)
    assert live.raw_options == {"rows": 1, "cols": 2}
    assert live.players[1].id == str(w.bob.id)  # player 2 moves first
    assert live.clocks.tc.move == 30 and live.clocks.tc.reserve == 90
    assert live.guild_id == w.guild.id
    assert "bob to move" in board_of(w, w.lobby, live.id).content


async def test_start_opens_a_public_thread_by_default_with_players_and_host(world: World) -> None:
    w = world
    result = await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob)
    assert "has started in <#" in answer(result).content
    (thread,) = w.lobby.threads
    (live,) = w.bot.service.live.values()
    assert live.channel_id == thread.id
    cached = w.bot.get_channel(thread.id)
    assert cached is not None and cached.type.name == "public_thread"  # type: ignore[union-attr]
    members = set(w.env.backend.get_channel(thread.id).thread_members)  # type: ignore[attr-defined]
    assert {w.alice.id, w.bob.id, w.carol.id} <= members


async def test_permission_refusals(world: World) -> None:
    w = world
    refused = answer(await w.alice.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob))
    assert refused.ephemeral and "Only a host" in refused.content and "`Host` role" in refused.content
    assert w.bot.service.live == {} and w.lobby.threads == []
    match_id, _room = await start(w)
    for sub in ("pause", "resume", "abort"):
        r = answer(await w.bob.slash(w.lobby, f"dm host {sub}"))
        assert r.ephemeral and "Only a host" in r.content, sub
    r = answer(await w.bob.slash(w.lobby, "dm host time", player=w.alice, seconds=30))
    assert "Only a host" in r.content
    r = answer(await w.bob.slash(w.lobby, "dm host award", winner=w.bob))
    assert "Only a host" in r.content
    assert w.bot.service.live[match_id].status == "ongoing"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"game": "chess"}, "Unknown game"),
        ({"player2": "alice"}, "two different players"),
        ({"options": "rows"}, "key=value"),
        ({"options": "rows=99"}, "rows"),
        ({"clock": "move=abc"}, "move"),
        ({"clock": "bogus=3"}, "bogus"),
    ],
)
async def test_start_refuses_bad_input_privately_and_leaves_nothing(
    world: World, extra: dict[str, Any], expected: str
) -> None:
    w = world
    options: dict[str, Any] = {"game": "boxes", "player1": w.alice, "player2": w.bob}
    options.update({k: getattr(w, v) if k.startswith("player") else v for k, v in extra.items()})
    before = len(w.lobby.history())
    result = await w.carol.slash(w.lobby, "dm start", **options)
    r = answer(result)
    assert r.ephemeral and expected in r.content, r.content
    assert w.bot.service.live == {}
    assert w.lobby.threads == []
    assert len(w.lobby.history()) == before  # no thread-start message, no public answer


async def test_game_autocomplete(world: World) -> None:
    choices = await world.carol.autocomplete(world.lobby, "dm start", "game", "box")
    assert {"name": "Dots-and-Boxes (boxes)", "value": "boxes"} in choices


async def test_rules(world: World) -> None:
    w = world
    for game in ("boxes", "pathing", "trax", "dots", "dotdash"):
        r = answer(await w.alice.slash(w.lobby, "dm rules", game=game))
        card = r.embeds[0].description or ""
        assert r.ephemeral and r.embeds[0].title.startswith("Rules: ")  # type: ignore[union-attr]
        assert card.startswith("**How to write moves: ") and len(card) <= 1000 and "`resign`" in card
        assert [a.filename for a in r.attachments] == [f"{game}-rules.md"]
        full = (await r.attachments[0].read()).decode()
        assert full.startswith("# ") and len(full) > 4000 > len(card)
    designer = answer(await w.alice.slash(w.lobby, "dm rules", game="dotdash"))
    assert "Phil Leduc" in (await designer.attachments[0].read()).decode()  # the credit stays in the full card
    r = answer(await w.alice.slash(w.lobby, "dm rules", game="chess"))
    assert "Unknown game" in r.content


async def test_board_and_status(world: World) -> None:
    w = world
    r = answer(await w.alice.slash(w.lobby, "dm board"))
    assert "no running match" in r.content
    match_id, room = await start(w)
    await w.alice.send(room, "A1-B1")
    r = answer(await w.carol.slash(room, "dm board"))
    assert r.ephemeral and f"Match {match_id}" in r.content and "bob to move" in r.content
    r = answer(await w.carol.slash(room, "dm status", match=match_id))
    assert r.ephemeral and "clocks:" in r.content and "alice" in r.content and "ongoing" not in r.content


async def test_resign(world: World) -> None:
    w = world
    match_id, room = await start(w)
    r = answer(await w.carol.slash(room, "dm resign"))
    assert r.ephemeral and "Only a player" in r.content
    r = answer(await resign(w.bob, room))
    assert r.ephemeral and "Confirmed: bob resigns" in r.content
    assert "alice wins by resignation" in board_of(w, room, match_id).content
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.winner_seat == 1 and stored.result_reason == "resign"


async def test_pause_resume_abort(world: World) -> None:
    w = world
    match_id, room = await start(w)
    assert "paused" in answer(await w.carol.slash(room, "dm host pause")).content
    assert w.bot.service.live[match_id].status == "paused"
    assert "<t:" not in board_of(w, room, match_id).content  # no deadline runs while paused
    refused = answer(await w.carol.slash(room, "dm host pause")).content
    assert "paused" in refused and "_" not in refused
    assert "continues" in answer(await w.carol.slash(room, "dm host resume")).content
    assert w.bot.service.live[match_id].status == "ongoing"
    assert "aborted" in answer(await w.carol.slash(room, "dm host abort")).content
    assert match_id not in w.bot.service.live
    board = board_of(w, room, match_id)
    assert "aborted by the host" in board.content and "The match is over" in board.content


async def test_time_and_award(world: World) -> None:
    w = world
    match_id, room = await start(w)
    live = w.bot.service.live[match_id]
    before = live.clocks.remaining(2, now(w))["reserve"]
    assert "+30 s" in answer(await w.carol.slash(room, "dm host time", player=w.bob, seconds=30)).content
    assert live.clocks.remaining(2, now(w))["reserve"] > before
    assert "does not play" in answer(await w.carol.slash(room, "dm host time", player=w.carol, seconds=30)).content
    r = answer(await w.carol.slash(room, "dm host award", winner=w.bob))
    assert f"Match {match_id}: bob wins by carol's decision (host)" in r.content
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.winner_seat == 2 and stored.result_reason == "award"
    await w.env.settle()
    assert "bob wins by carol's decision (host)" in board_of(w, room, match_id).content  # the board names the host


async def test_a_host_who_plays_cannot_award_the_match_to_himself(world: World) -> None:
    w = world
    r = answer(await w.dave.slash(w.lobby, "dm start", game="boxes", player1=w.carol, player2=w.bob, room="channel"))
    assert "Only a host" in r.content
    started = answer(
        await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.carol, player2=w.bob, room="channel")
    )
    match_id = int(started.content.split()[1])
    refused = answer(await w.carol.slash(w.lobby, "dm host award", winner=w.carol))
    assert refused.ephemeral and "You play in this match, so you cannot decide it" in refused.content
    assert match_id in w.bot.service.live, "the match goes on"


async def test_award_without_winner_is_a_draw_and_says_so(world: World) -> None:
    w = world
    match_id, room = await start(w)
    r = answer(await w.carol.slash(room, "dm host award"))
    assert "draw" in r.content and "no winner" not in r.content
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.status == "finished" and stored.winner_seat is None
    assert "draw" in board_of(w, room, match_id).content


async def test_log(world: World) -> None:
    w = world
    match_id, room = await start(w)
    await w.alice.send(room, "A1-B1")
    await w.bob.send(room, "A1-Z9")
    await w.carol.slash(room, "dm host abort")
    w.env.settle_timeout = 300.0  # the solver's verdicts: its first call compiles it (no clock runs any more)
    spectator = answer(await w.dave.slash(w.lobby, "dm log", match=match_id))  # dave can read the room
    assert spectator.ephemeral and spectator.embeds[0].title == f"Match {match_id}: Dots-and-Boxes"
    r = answer(await w.alice.slash(w.lobby, "dm log", match=match_id))  # a player of the match may read it
    assert r.ephemeral
    embed = r.embeds[0]
    assert embed.title == f"Match {match_id}: Dots-and-Boxes"
    fields = {f.name: f.value for f in embed.fields}
    assert fields["Moves"] == "1" and fields["Status"] == "aborted" and fields["Illegal attempts"] == "1"
    names = [a.filename for a in r.attachments]
    assert names[:2] == [f"match-{match_id}.txt", f"match-{match_id}.json"]
    assert names[2] == f"match-{match_id}.html"  # no DMHOST_WEB_URL: the review page itself
    page = await r.attachments[2].read()
    assert b'id="board"' in page and b'data-ply="1"' in page
    text = await r.attachments[0].read()
    assert b"A1-B1" in text and b"aborted" in text
    data = json.loads(await r.attachments[1].read())
    assert [m["move"] for m in data["moves"]] == ["A1-B1"]
    assert "no match" in answer(await w.carol.slash(w.lobby, "dm log", match=999)).content
    w.env.settle_timeout = 5.0


async def test_history(world: World) -> None:
    w = world
    assert "no matches" in answer(await w.alice.slash(w.lobby, "dm history")).content
    match_id, room = await start(w)
    await resign(w.bob, room)
    r = answer(await w.carol.slash(w.lobby, "dm history", player=w.alice))
    description = r.embeds[0].description or ""
    assert r.ephemeral and f"#{match_id}" in description
    assert "alice wins by resignation" in description


async def test_mulligan_command_and_button(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules="mulligan=1")
    assert "This game has no" not in answer(await w.alice.slash(room, "dm mulligan")).content
    live = w.bot.service.live[match_id]
    await w.alice.send(room, "A1-B1")
    await w.bob.send(room, "C1-C2")
    # a button from an earlier process: rebuilt from its custom id, on any message that carries it
    from bot.adapters.discord.announce import buttons

    with w.env._bot_scope():
        old = await w.bot.get_channel(room.id).send("old buttons", view=buttons(match_id, 2, ["mull"]))  # type: ignore[union-attr]
    await w.env.settle()
    refused = answer(await w.bob.click(old, label="Use mulligan"))
    assert refused.ephemeral and "own turn" in refused.content
    await w.alice.click(old, label="Use mulligan")
    assert live.ply == 0 and live.ruleset.to_move(live.state) == 1
    assert room.history()[-1].components == [] or all(m.id != old.id or not m.components for m in room.history())
    assert "mulligan" in board_of(w, room, match_id).content
    again = answer(await w.alice.slash(room, "dm mulligan"))
    assert again.ephemeral and "already used" in again.content


async def test_grace_ready_and_presence_button(world: World) -> None:
    w = world
    match_id, room = await start(w, clock="kind=grace move=10 grace=600 presence=120")
    live = w.bot.service.live[match_id]
    await w.env.advance_time(11)  # alice overruns her 10 s: she is in grace
    assert live.clocks.in_grace
    assert "asked to confirm" in answer(await w.alice.slash(room, "dm ready")).content
    assert f"<@{w.bob.id}>" in bot_text(w, room)  # bob is pinged
    board = board_of(w, room, match_id)
    assert "I'm here" in str(board.components)
    assert "Nobody is waiting" in answer(await w.alice.click(board, label="I'm here")).content
    await w.bob.click(board, label="I'm here")
    assert "you may move now" in board_of(w, room, match_id).content
    assert board_of(w, room, match_id).components == []
    await w.alice.send(room, "A1-B1")
    assert live.ply == 1


async def test_advantage_choice_buttons(world: World) -> None:
    w = world
    match_id, room = await start(w, first="a2")
    live = w.bot.service.live[match_id]
    assert live.status == "held"
    board = board_of(w, room, match_id)
    assert "choosing" not in board.content.replace("chooses", "")
    assert "chooses who starts" in answer(await w.alice.click(board, label="I move first")).content
    await w.bob.click(board, label="I move first")
    assert live.status == "ongoing" and live.players[1].id == str(w.bob.id)
    assert board_of(w, room, match_id).components == []


async def test_unexpected_errors_are_logged_not_shown(world: World, caplog: pytest.LogCaptureFixture) -> None:
    w = world
    match_id, room = await start(w)

    async def broken(*_: Any, **__: Any) -> None:
        raise RuntimeError("database on fire")

    w.bot.service.pause = broken  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR):
        r = answer(await w.carol.slash(room, "dm host pause"))
    assert r.ephemeral and "Something went wrong" in r.content and f"match {match_id}" in r.content
    assert "database on fire" not in r.content
    assert any("unexpected error" in rec.message and str(match_id) in rec.message for rec in caplog.records)


async def test_dotdash_pie_choice_buttons(world: World) -> None:
    w = world
    match_id, room = await start(w, "dotdash", options="size=7")
    live = w.bot.service.live[match_id]
    await w.alice.send(room, "setup red D4 blue C3 E5")
    assert live.ruleset.extra(live.state)["phase"] == "choose"
    board = board_of(w, room, match_id)
    assert "Take red" in str(board.components) and "Take blue" in str(board.components)
    assert answer(await w.alice.click(board, label="Take red")).ephemeral  # the setter does not choose
    await w.bob.click(board, label="Take red")
    assert live.ruleset.extra(live.state)["phase"] == "move"


async def test_public_rooms_open_under_the_configured_game_room_channel(world: World) -> None:
    w = world
    games = w.guild.create_text_channel("games")
    answer(await w.carol.slash(w.lobby, "dm config", room_channel=games))
    result = await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob)
    assert "has started in <#" in answer(result).content
    assert w.lobby.threads == [] and len(games.threads) == 1
    (live,) = w.bot.service.live.values()
    assert live.channel_id == games.threads[0].id
    answer(await w.carol.slash(w.lobby, "dm config", room_mode="channel"))
    await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.carol, player2=w.dave)  # alice plays already
    assert any(lv.channel_id == w.lobby.id for lv in w.bot.service.live.values())


async def test_start_with_house_rules(world: World) -> None:
    w = world
    before = len(w.lobby.history())
    bad = answer(
        await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob, rules="threesame=1")
    )
    assert bad.ephemeral and "accepts takeback, mulligan, clock" in bad.content
    assert w.bot.service.live == {} and w.lobby.threads == [] and len(w.lobby.history()) == before
    match_id, room = await start(w, rules="takeback=30 clock=grace")
    live = w.bot.service.live[match_id]
    assert live.clocks.tc.kind == "grace"
    await w.alice.send(room, "A1-B1")
    assert w.bot.service.pending_move(match_id) is not None
    assert "Take back" in str(board_of(w, room, match_id).components)


def test_a_mention_in_a_clocks_time_odds_is_the_members_id() -> None:
    from bot.adapters.discord.commands._rooms import mentions_as_ids
    from bot.host.clocks import seat_odds

    clock = {"move": "60", "<@11>:move": "30", "<@!22>:reserve": "90", "@alice:grace": "5"}
    assert mentions_as_ids(clock) == {"move": "60", "11:move": "30", "22:reserve": "90", "@alice:grace": "5"}
    players = [["alice", "11"], ["bob", "22"]]
    assert seat_odds(mentions_as_ids(clock), players) == {
        "move": "60",
        "p1:move": "30",
        "p2:reserve": "90",
        "p1:grace": "5",
    }
