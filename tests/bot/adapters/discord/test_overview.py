"""What hosts and spectators look at, on a simulated Discord: `/dm live`, `/dm moves`, `/dm log` for
readers of the room, `/dm status`, `/dm board` with the picture, `/dm history`, and results posted
outside the room."""

from __future__ import annotations

import io
import re

import numpy as np
from discord import app_commands
from PIL import Image

from games.pictures import core
from tests.bot.adapters.discord.conftest import World, answer, bot_messages, now, resign, start

STAMP = re.compile(r"<t:\d+:R>")


async def _play_boxes_1x1(w: World, room: object) -> None:
    """alice, bob, alice, bob: bob closes the only box and wins 0–1."""
    for who, move in [(w.alice, "A1-B1"), (w.bob, "A2-B2"), (w.alice, "A1-A2"), (w.bob, "B1-B2")]:
        await who.send(room, move)  # type: ignore[arg-type]


async def test_live_lists_the_servers_matches_with_turn_deadline_and_link(world: World) -> None:
    w = world
    assert "No match" in answer(await w.carol.slash(w.lobby, "dm live")).content
    first, thread = await start(w, room="public")
    second, _lobby = await start(w, "dots", room="channel")
    await w.alice.send(thread, "A1-B1")
    other = w.env.create_guild(name="Elsewhere")  # another server's match is not listed here
    elsewhere = other.create_text_channel("games")
    host = other.add_member(w.env.create_user("erin"), roles=[other.create_role("Host")])
    players = [other.add_member(w.env.create_user(n)) for n in ("fred", "gina")]
    r = answer(
        await host.slash(elsewhere, "dm start", game="boxes", player1=players[0], player2=players[1], room="channel")
    )
    assert "has started" in r.content

    r = answer(await w.dave.slash(w.lobby, "dm live"))  # a spectator: both rooms are readable
    assert r.ephemeral
    embed = r.embeds[0]
    assert embed.title == "Live matches (2)"
    lines = (embed.description or "").splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"`#{first}` Dots-and-Boxes: alice vs bob · bob to move")
    assert STAMP.search(lines[0]) and f"<#{thread.id}>" in lines[0]
    assert f"https://discord.com/channels/{w.guild.id}/{thread.id}/" in lines[0]  # straight to the board
    assert lines[1].startswith(f"`#{second}` Dots (Kropki): alice vs bob · alice to move")
    assert f"<#{w.lobby.id}>" in lines[1]
    r = answer(await host.slash(elsewhere, "dm live"))
    assert (r.embeds[0].description or "").count("`#") == 1 and "fred vs gina" in (r.embeds[0].description or "")


async def test_live_hides_private_rooms_from_those_who_cannot_read_them(world: World) -> None:
    w = world
    match_id, _room = await start(w, room="private")
    assert "No match" in answer(await w.dave.slash(w.lobby, "dm live")).content
    r = answer(await w.carol.slash(w.lobby, "dm live"))  # the host sees it
    assert f"`#{match_id}`" in (r.embeds[0].description or "")


async def test_a_spectator_reads_the_moves_and_the_log(world: World) -> None:
    w = world
    match_id, thread = await start(w, room="public", options="rows=2 cols=2", rules="takeback=30")
    await w.alice.send(thread, "A1-B1")
    await w.alice.send(thread, "take back")  # taken back: not in the record
    await w.alice.send(thread, "A2-B2")
    await w.env.advance_time(31)
    await w.bob.send(thread, "A1-A2")
    await w.env.advance_time(31)
    r = answer(await w.dave.slash(w.lobby, "dm moves", match=match_id))
    assert r.ephemeral
    assert r.content.splitlines()[0] == f"**Match {match_id} · Dots-and-Boxes** · alice vs bob · 2 moves"
    body = r.content.split("```")[1]
    rows = [line.strip() for line in body.strip().splitlines()]
    assert [re.sub(r" \(.*\)$", "", row) for row in rows] == ["1. alice: A2-B2", "2. bob: A1-A2"]
    # In the room itself the match id may be left out.
    assert "1. alice: A2-B2" in answer(await w.dave.slash(thread, "dm moves")).content
    w.env.settle_timeout = 300.0  # the log's solver verdicts (the first call compiles the solver)
    await w.carol.slash(thread, "dm host abort")
    log = answer(await w.dave.slash(w.lobby, "dm log", match=match_id))
    assert log.embeds and log.embeds[0].title == f"Match {match_id}: Dots-and-Boxes"
    w.env.settle_timeout = 5.0


async def test_a_private_rooms_moves_and_log_stay_private(world: World) -> None:
    w = world
    match_id, room = await start(w, room="private")
    await w.alice.send(room, "A1-B1")
    r = answer(await w.dave.slash(w.lobby, "dm moves", match=match_id))
    assert "no match" in r.content.lower() and "A1-B1" not in r.content
    assert "Only a host" in answer(await w.dave.slash(w.lobby, "dm log", match=match_id)).content
    assert "1. alice: A1-B1" in answer(await w.bob.slash(w.lobby, "dm moves", match=match_id)).content


async def test_a_long_move_record_comes_as_a_file(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=8 cols=8")
    live = w.bot.service.live[match_id]
    played = []
    for _ in range(100):
        seat = live.ruleset.to_move(live.state)
        assert seat is not None
        move = live.ruleset.format(live.state, live.ruleset.legal_moves(live.state)[0])
        result = await w.bot.service.submit(match_id, live.players[seat].id, move)
        assert result.status == "accepted", move
        played.append(move)
    r = answer(await w.dave.slash(room, "dm moves"))
    assert "The whole record (100 moves) is attached." in r.content
    (attachment,) = r.attachments
    assert attachment.filename == f"match-{match_id}-moves.txt"
    rows = (await attachment.read()).decode().splitlines()
    assert len(rows) == 100
    assert [row.split(": ", 1)[1].split(" (")[0] for row in rows] == played
    assert rows[0].strip().startswith("1. alice:")


async def test_status_shows_game_players_move_turn_clocks_deadline_and_room(world: World) -> None:
    w = world
    match_id, thread = await start(w, room="public")
    await w.alice.send(thread, "A1-B1")
    r = answer(await w.dave.slash(thread, "dm status"))
    lines = r.content.splitlines()
    assert r.ephemeral
    assert lines[0] == f"**Match {match_id} · Dots-and-Boxes** · alice vs bob"
    assert lines[1] == "Move 2 · bob to move"
    assert lines[2].startswith("clocks:") and "alice" in lines[2] and "bob" in lines[2]
    assert lines[3].startswith("bob: ") and STAMP.search(lines[3])
    deadline = int(re.findall(r"<t:(\d+):R>", lines[3])[0])
    assert deadline > 0
    assert lines[4].startswith(f"Room: <#{thread.id}>")
    assert now(w) >= 0


async def test_board_shows_the_picture_and_the_crop_of_a_large_field(world: World) -> None:
    w = world
    match_id, room = await start(w, "dots")
    await w.alice.send(room, "E7")
    r = answer(await w.dave.slash(room, "dm board"))
    assert r.ephemeral and r.content.startswith(f"**Match {match_id} · Dots (Kropki)** · alice vs bob · bob to move")
    assert "```" not in r.content  # the picture, not the text board
    names = [a.filename for a in r.attachments]
    assert names == ["board.png", "board-zoom.png"]
    whole = Image.open(io.BytesIO(await r.attachments[0].read()))
    crop = Image.open(io.BytesIO(await r.attachments[1].read()))
    assert whole.format == crop.format == "PNG" and crop.width < whole.width
    # The board message in the room carries the crop too while the game runs.
    board = next(m for m in bot_messages(w, room) if f"**Match {match_id} · " in m.content)
    assert [a.filename for a in board.attachments] == ["board.png", "board-zoom.png"]


async def test_history_has_date_game_players_result_in_words_score_and_link(world: World) -> None:
    w = world
    match_id, thread = await start(w, room="public", options="rows=1 cols=1")
    await _play_boxes_1x1(w, thread)
    resigned, room2 = await start(w, room="channel")
    await resign(w.alice, room2)
    r = answer(await w.dave.slash(w.lobby, "dm history", player=w.bob))
    lines = (r.embeds[0].description or "").splitlines()
    assert len(lines) == 2
    newest, oldest = lines
    assert re.match(
        rf"`#{resigned}` <t:\d+:d> · Dots-and-Boxes: alice vs bob — bob wins by resignation · <#{w.lobby.id}>", newest
    )
    assert re.match(
        rf"`#{match_id}` <t:\d+:d> · Dots-and-Boxes: alice vs bob — bob wins on score, 1–0 · <#{thread.id}>", oldest
    )


async def test_the_result_is_posted_in_the_rooms_parent_channel(world: World) -> None:
    w = world
    match_id, thread = await start(w, room="public", options="rows=1 cols=1")
    before = len(bot_messages(w, w.lobby))
    await _play_boxes_1x1(w, thread)
    posted = bot_messages(w, w.lobby)[before:]
    assert len(posted) == 1
    text = posted[0].content
    assert text.startswith(
        f"**Match {match_id} · Dots-and-Boxes** · alice vs bob: bob wins on score, 1–0 · <#{thread.id}>"
    )
    assert f"https://discord.com/channels/{w.guild.id}/{thread.id}/" in text  # the board's link
    assert not posted[0].mentions  # nobody is pinged
    # A match played in the channel itself posts nothing more there: the board says it.
    m2, lobby = await start(w, room="channel", options="rows=1 cols=1")
    before = len(bot_messages(w, w.lobby))
    await _play_boxes_1x1(w, lobby)
    assert not [
        m
        for m in bot_messages(w, w.lobby)[before:]
        if m.content.startswith(f"**Match {m2} · ") and "wins" in m.content and "<#" in m.content
    ]


async def test_the_results_channel_setting_takes_the_results(world: World) -> None:
    w = world
    results = w.guild.create_text_channel("results")
    r = answer(await w.carol.slash(w.lobby, "dm config", results_channel=results))
    assert "Saved." in r.content and f"Results channel: <#{results.id}>" in r.content
    assert "Only a host" in answer(await w.dave.slash(w.lobby, "dm config", results_channel=w.lobby)).content
    match_id, thread = await start(w, room="public", options="rows=1 cols=1")
    before = len(bot_messages(w, w.lobby))
    await _play_boxes_1x1(w, thread)
    assert len(bot_messages(w, w.lobby)) == before  # not in the parent any more
    (posted,) = bot_messages(w, results)
    assert posted.content.startswith(f"**Match {match_id} · Dots-and-Boxes** · alice vs bob: bob wins on score, 1–0")
    # A match in a private room posts its result only to the results channel; reset: back to the parent.
    private_id, room = await start(w, room="private", options="rows=1 cols=1")
    await _play_boxes_1x1(w, room)
    assert f"**Match {private_id} · " in bot_messages(w, results)[-1].content
    r = answer(await w.carol.slash(w.lobby, "dm config", reset="results_channel"))
    assert "Results channel: not set" in r.content
    third, thread3 = await start(w, room="public", options="rows=1 cols=1")
    await _play_boxes_1x1(w, thread3)
    assert bot_messages(w, w.lobby)[-1].content.startswith(f"**Match {third} · ")
    assert len(bot_messages(w, results)) == 2


async def test_a_practice_result_stays_in_its_room(world: World) -> None:
    w = world
    before_threads = {t.id for t in w.lobby.threads}
    r = answer(
        await w.alice.slash(
            w.lobby, "dm practice", game="boxes", level="random", options="rows=1 cols=1", room="public"
        )
    )
    match_id = int(r.content.split()[2])
    (thread,) = [t for t in w.lobby.threads if t.id not in before_threads]
    before = len(bot_messages(w, w.lobby))
    live = w.bot.service.live[match_id]
    for _ in range(10):
        if match_id not in w.bot.service.live:
            break
        move = live.ruleset.format(live.state, live.ruleset.legal_moves(live.state)[0])
        await w.alice.send(thread, move)
    assert match_id not in w.bot.service.live
    assert len(bot_messages(w, w.lobby)) == before


async def test_the_board_stars_the_winner_of_a_resignation(world: World) -> None:
    w = world
    match_id, room = await start(w)
    await resign(w.bob, room)
    board = next(m for m in bot_messages(w, room) if f"**Match {match_id} · " in m.content)
    image = Image.open(io.BytesIO(await board.attachments[0].read())).convert("L")
    assert _marker_ink(image, 1) > 10 and _marker_ink(image, 2) == 0  # alice's star; bob has none


async def test_live_and_moves_join_the_one_dm_group(world: World) -> None:
    group = world.bot.tree.get_command("dm")
    assert isinstance(group, app_commands.Group)
    names = [c.name for c in group.commands]
    assert {"live", "moves"} <= set(names) and len(names) == len(set(names)) <= 25
    for name in ("live", "moves"):
        command = group.get_command(name)
        assert isinstance(command, app_commands.Command) and command.parent is group
        assert command.description and all(p.description for p in command.parameters)


async def test_the_board_names_no_winner_while_a_mulligan_can_undo_the_result(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=1 cols=1", rules="mulligan=1")
    await _play_boxes_1x1(w, room)  # bob closes the box: alice may still take her mulligan
    assert w.bot.service.live[match_id].status == "held"

    async def board_ink() -> tuple[int, int]:
        board = next(m for m in bot_messages(w, room) if f"**Match {match_id} · " in m.content)
        image = Image.open(io.BytesIO(await board.attachments[0].read())).convert("L")
        return _marker_ink(image, 1), _marker_ink(image, 2)

    assert await board_ink() == (0, 0)  # no star for bob yet
    await w.alice.send(room, "decline")
    assert match_id not in w.bot.service.live
    alice, bob = await board_ink()
    assert alice == 0 and bob > 10  # now bob's star


def _marker_ink(image: Image.Image, seat: int) -> int:
    """Dark pixels where a legend line's marker (▶ or ★) is drawn."""
    top = core.MARGIN + core.TITLE_SIZE + core.LINE_GAP + (seat - 1) * (core.LINE_SIZE + core.LINE_GAP)
    box = image.crop((core.MARGIN, top, core.MARGIN + 14, top + core.LINE_SIZE + 2))
    return int((np.asarray(box) < 100).sum())
