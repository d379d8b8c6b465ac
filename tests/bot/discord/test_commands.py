"""Slash commands and buttons through discord.py's real interaction dispatch (see discord_harness)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands

from tests.bot.discord.harness import Harness, Reply

pytestmark = pytest.mark.looptime


@pytest.fixture
async def h(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    monkeypatch.chdir(tmp_path)
    harness = await Harness.start(db_url)
    harness.hosts.add(harness.carol.id)  # carol has Manage Server
    yield harness
    await harness.stop()


async def start(h: Harness, **options: Any) -> int:
    replies = await h.slash(h.carol, "start", game="boxes", player1=h.alice, player2=h.bob, room="channel", **options)
    assert replies[-1].kind == "followup", replies
    assert "has started" in replies[-1].content, replies[-1].content
    (live,) = h.bot.service.matches_in_channel(h.channel.id)
    h.messages()
    return live.id


def last(replies: list[Reply]) -> Reply:
    assert replies, "no answer"
    return replies[-1]


def test_command_tree_names_unique_and_described() -> None:
    from bot.app import create_bot
    from bot.discord.commands import MatchCommands
    from bot.settings import Settings

    bot = create_bot(Settings(_env_file=None), sync_commands=False)  # type: ignore[call-arg]
    cog = MatchCommands(bot)  # type: ignore[arg-type]
    group = cog.app_command
    assert isinstance(group, app_commands.Group) and group.name == "dm" and group.description
    names = [c.name for c in group.commands]
    assert len(names) == len(set(names)) <= 25
    expected = {"start", "rules", "board", "status", "resign", "mulligan", "ready", "pause", "resume", "abort"}
    assert expected | {"time", "award", "log", "history"} <= set(names)
    for cmd in group.walk_commands():
        assert cmd.description and len(cmd.description) <= 100, cmd.name
        assert isinstance(cmd, app_commands.Command)
        for param in cmd.parameters:
            assert param.description and param.description != "…", (cmd.name, param.name)


async def test_start_with_options_and_clock(h: Harness) -> None:
    replies = await h.slash(
        h.carol,
        "start",
        game="boxes",
        player1=h.alice,
        player2=h.bob,
        first="2",
        options="rows=1 cols=2",
        clock="move=30 reserve=90",
        room="channel",
    )
    assert last(replies).kind == "followup" and "has started" in last(replies).content
    assert {int(u) for u in last(replies).data["allowed_mentions"]["users"]} == {h.alice.id, h.bob.id}
    (live,) = h.bot.service.matches_in_channel(h.channel.id)
    assert live.raw_options == {"rows": 1, "cols": 2}
    assert live.players[1].id == str(h.bob.id)  # player 2 moves first
    assert live.clocks.tc.move == 30 and live.clocks.tc.reserve == 90
    assert live.guild_id == h.guild.id
    assert "started" in "\n".join(m.content for m in h.messages())


async def test_start_in_a_private_thread(h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    state = h.bot._connection
    created: dict[str, Any] = {}
    added: list[int] = []

    async def start_thread_without_message(channel_id: int, **kwargs: Any) -> Any:
        data = {
            "id": str(1_200_000_000_000_000_000),
            "guild_id": str(h.guild.id),
            "parent_id": str(channel_id),
            "owner_id": str(h.bot.user.id),
            "name": kwargs["name"],
            "type": kwargs["type"],
            "message_count": 0,
            "member_count": 0,
            "rate_limit_per_user": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": "2024-01-01T00:00:00+00:00",
                "locked": False,
                "invitable": False,
            },
        }
        created.update(kwargs)
        state.parse_thread_create(data)
        return data

    async def add_user_to_thread(channel_id: int, user_id: int) -> None:
        added.append(int(user_id))

    monkeypatch.setattr(h.bot.http, "start_thread_without_message", start_thread_without_message, raising=False)
    monkeypatch.setattr(h.bot.http, "add_user_to_thread", add_user_to_thread, raising=False)
    replies = await h.slash(h.carol, "start", game="boxes", player1=h.alice, player2=h.bob)
    assert "has started in <#" in last(replies).content
    assert created["type"] == discord.ChannelType.private_thread.value and created["invitable"] is False
    assert added == [h.alice.id, h.bob.id]
    (live,) = h.bot.service.live.values()
    assert live.channel_id == 1_200_000_000_000_000_000


async def test_permission_refusals(h: Harness) -> None:
    refused = last(await h.slash(h.alice, "start", game="boxes", player1=h.alice, player2=h.bob, room="channel"))
    assert refused.ephemeral and "Only a host" in refused.content and "`Host` role" in refused.content
    assert h.bot.service.live == {}
    allowed = await h.slash(
        h.alice, "start", as_role=True, game="boxes", player1=h.alice, player2=h.bob, room="channel"
    )
    assert "has started" in last(allowed).content
    for sub in ("pause", "resume", "abort"):
        r = last(await h.slash(h.bob, sub))
        assert r.ephemeral and "Only a host" in r.content, sub
    r = last(await h.slash(h.bob, "time", player=h.alice, seconds=30))
    assert "Only a host" in r.content
    r = last(await h.slash(h.bob, "award", winner=h.bob))
    assert "Only a host" in r.content
    (live,) = h.bot.service.live.values()
    assert live.status == "ongoing"


async def test_start_refuses_bad_input_politely(h: Harness) -> None:
    r = last(await h.slash(h.carol, "start", game="chess", player1=h.alice, player2=h.bob, room="channel"))
    assert r.ephemeral and "unknown game" in r.content
    r = last(await h.slash(h.carol, "start", game="boxes", player1=h.alice, player2=h.alice, room="channel"))
    assert "two different players" in r.content
    r = last(
        await h.slash(h.carol, "start", game="boxes", player1=h.alice, player2=h.bob, options="rows", room="channel")
    )
    assert "key=value" in r.content
    r = last(
        await h.slash(h.carol, "start", game="boxes", player1=h.alice, player2=h.bob, options="rows=99", room="channel")
    )
    assert r.ephemeral and "rows" in r.content
    r = last(
        await h.slash(h.carol, "start", game="boxes", player1=h.alice, player2=h.bob, clock="move=abc", room="channel")
    )
    assert r.ephemeral and "move" in r.content
    assert h.bot.service.live == {}


async def test_start_with_house_rules(h: Harness) -> None:
    bad = last(
        await h.slash(
            h.carol, "start", game="boxes", player1=h.alice, player2=h.bob, rules="threesame=1", room="channel"
        )
    )
    assert bad.ephemeral and "accepts takeback, mulligan, clock" in bad.content
    assert h.bot.service.live == {}
    match_id = await start(h, rules="takeback=5 clock=grace")
    live = h.bot.service.live[match_id]
    assert live.clocks.tc.kind == "grace"
    await h.say(h.alice, "A1-B1")
    assert h.bot.service.pending_move(match_id) is not None
    await h.settle()
    assert f"dm:{match_id}:1:take" in h.buttons()


async def test_game_autocomplete(h: Harness) -> None:
    r = last(await h.autocomplete(h.carol, "start", "game", "box"))
    assert r.type == 8
    assert {"name": "Dots-and-Boxes (boxes)", "value": "boxes"} in r.data["choices"]


async def test_rules(h: Harness) -> None:
    r = last(await h.slash(h.alice, "rules", game="boxes"))
    assert r.ephemeral and r.embeds[0]["title"] == "Rules: Dots-and-Boxes"
    assert "Dots-and-Boxes" in r.embeds[0]["description"]
    r = last(await h.slash(h.alice, "rules", game="chess"))
    assert "unknown game" in r.content


async def test_board_and_status(h: Harness) -> None:
    r = last(await h.slash(h.alice, "board"))
    assert "no running match" in r.content
    match_id = await start(h)
    await h.say(h.alice, "A1-B1")
    r = last(await h.slash(h.carol, "board"))
    assert r.ephemeral and f"Match {match_id}" in r.content and "bob to move" in r.content
    r = last(await h.slash(h.carol, "status", match=match_id))
    assert r.ephemeral and "clocks:" in r.content and "alice" in r.content


async def test_resign(h: Harness) -> None:
    match_id = await start(h)
    r = last(await h.slash(h.carol, "resign"))
    assert r.ephemeral and "only a player" in r.content
    r = last(await h.slash(h.bob, "resign"))
    assert r.ephemeral and "You resigned" in r.content
    assert "alice wins (resign)" in "\n".join(m.content for m in h.messages())
    stored = await h.bot.service.store.load(match_id)
    assert stored is not None and stored.winner_seat == 1 and stored.result_reason == "resign"


async def test_pause_resume_abort(h: Harness) -> None:
    match_id = await start(h)
    assert "paused" in last(await h.slash(h.carol, "pause")).content
    assert h.bot.service.live[match_id].status == "paused"
    assert "not running" in last(await h.slash(h.carol, "pause")).content
    assert "continues" in last(await h.slash(h.carol, "resume")).content
    assert h.bot.service.live[match_id].status == "ongoing"
    assert "aborted" in last(await h.slash(h.carol, "abort")).content
    assert match_id not in h.bot.service.live
    assert "aborted by the host" in "\n".join(m.content for m in h.messages())


async def test_time_and_award(h: Harness) -> None:
    match_id = await start(h)
    live = h.bot.service.live[match_id]
    before = live.clocks.remaining(2, h.bot.service.now())["reserve"]
    assert "+30 s" in last(await h.slash(h.carol, "time", player=h.bob, seconds=30)).content
    assert live.clocks.remaining(2, h.bot.service.now())["reserve"] > before
    assert "does not play" in last(await h.slash(h.carol, "time", player=h.carol, seconds=30)).content
    assert "awarded" in last(await h.slash(h.carol, "award", winner=h.bob)).content
    stored = await h.bot.service.store.load(match_id)
    assert stored is not None and stored.winner_seat == 2 and stored.result_reason == "award"


async def test_award_without_winner_is_a_draw(h: Harness) -> None:
    match_id = await start(h)
    await h.slash(h.carol, "award")
    stored = await h.bot.service.store.load(match_id)
    assert stored is not None and stored.status == "finished" and stored.winner_seat is None


async def test_log(h: Harness) -> None:
    match_id = await start(h)
    await h.say(h.alice, "A1-B1")
    await h.say(h.bob, "A1-Z9")
    await h.slash(h.carol, "abort")
    assert "Only a host" in last(await h.slash(h.carol.guild.me, "log", match=match_id)).content  # type: ignore[arg-type]
    r = last(await h.slash(h.alice, "log", match=match_id))  # a player of the match may read it
    assert r.ephemeral
    embed = r.embeds[0]
    assert embed["title"] == f"Match {match_id}: Dots-and-Boxes"
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["Moves"] == "1" and fields["Status"] == "aborted"
    names = [name for name, _ in r.files]
    assert names == [f"match-{match_id}.txt", f"match-{match_id}.json"]
    text = r.files[0][1].decode()
    assert "A1-B1" in text and "aborted" in text
    assert "no match" in last(await h.slash(h.carol, "log", match=999)).content


async def test_history(h: Harness) -> None:
    assert "no matches" in last(await h.slash(h.alice, "history")).content
    match_id = await start(h)
    await h.slash(h.bob, "resign")
    r = last(await h.slash(h.carol, "history", player=h.alice))
    assert r.ephemeral and f"#{match_id}" in r.embeds[0]["description"]
    assert "alice won (resign)" in r.embeds[0]["description"]


async def test_mulligan_command_and_button(h: Harness) -> None:
    match_id = await start(h, options="rows=2 cols=2", rules="mulligan=1")
    assert "This game has no" not in last(await h.slash(h.alice, "mulligan")).content
    live = h.bot.service.live[match_id]
    await h.say(h.alice, "A1-B1")
    await h.say(h.bob, "C1-C2")
    # a button from an earlier message (or an earlier process): rebuilt from its custom id
    refused = last(await h.click(h.bob, f"dm:{match_id}:2:mull"))
    assert refused.ephemeral and "own turn" in refused.content
    used = last(await h.click(h.alice, f"dm:{match_id}:2:mull"))
    assert used.type == 7  # the clicked message loses its buttons
    assert live.ply == 0 and live.ruleset.to_move(live.state) == 1
    assert "mulligan" in "\n".join(m.content for m in h.messages())
    again = last(await h.slash(h.alice, "mulligan"))
    assert again.ephemeral and "already used" in again.content


async def test_grace_ready_and_presence_button(h: Harness) -> None:
    match_id = await start(h, clock="kind=grace move=10 grace=600 presence=120")
    live = h.bot.service.live[match_id]
    await asyncio.sleep(11)  # alice overruns her 10 s: she is in grace
    await h.settle()
    assert live.clocks.in_grace
    assert "asked to confirm" in last(await h.slash(h.alice, "ready")).content
    sent = h.messages()
    presence = [m for m in sent if "confirm you are here" in m.content]
    assert presence and f"<@{h.bob.id}>" in presence[-1].content  # bob is pinged
    here = f"dm:{match_id}:0:here"
    assert here in h.buttons()
    assert "Nobody is waiting" in last(await h.click(h.alice, here)).content
    assert last(await h.click(h.bob, here)).type == 7
    assert "you may move now" in "\n".join(m.content for m in h.messages())
    await h.say(h.alice, "A1-B1")
    assert live.ply == 1


async def test_advantage_choice_buttons(h: Harness) -> None:
    match_id = await start(h, first="a2")
    live = h.bot.service.live[match_id]
    assert live.status == "choosing"
    assert f"dm:{match_id}:0:first" in h.buttons()
    assert "chooses who starts" in last(await h.click(h.alice, f"dm:{match_id}:0:first")).content
    assert last(await h.click(h.bob, f"dm:{match_id}:0:first")).type == 7
    assert live.status == "ongoing" and live.players[1].id == str(h.bob.id)


async def test_unexpected_errors_are_logged_not_shown(h: Harness, caplog: pytest.LogCaptureFixture) -> None:
    match_id = await start(h)

    async def broken(*_: Any, **__: Any) -> None:
        raise RuntimeError("database on fire")

    h.bot.service.pause = broken  # type: ignore[method-assign]
    r = last(await h.slash(h.carol, "pause"))
    assert r.ephemeral and "Something went wrong" in r.content and f"match {match_id}" in r.content
    assert "database on fire" not in r.content
    assert any("unexpected error" in rec.message and str(match_id) in rec.message for rec in caplog.records)


async def test_dotdash_pie_choice_buttons(h: Harness) -> None:
    replies = await h.slash(
        h.carol, "start", game="dotdash", player1=h.alice, player2=h.bob, options="size=7", room="channel"
    )
    assert "has started" in last(replies).content
    (live,) = h.bot.service.live.values()
    await h.say(h.alice, "setup red D4 blue C3 E5")
    await h.settle()
    assert live.ruleset.extra(live.state)["phase"] == "choose"
    red = f"dm:{live.id}:{live.ply}:red"
    assert red in h.buttons() and f"dm:{live.id}:{live.ply}:blue" in h.buttons()
    assert last(await h.click(h.alice, red)).ephemeral  # seat 1 does not choose
    assert last(await h.click(h.bob, red)).type == 7
    assert live.ruleset.extra(live.state)["phase"] == "move"
