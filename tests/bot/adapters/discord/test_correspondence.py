"""Correspondence matches on a simulated Discord over simulated days (issue 41): the reminder mentions the
player on move in the room, the loss on time, and a deadline that passed while the bot was away is ruled
when it is back — after the room is read, so a move posted in time still counts."""

from __future__ import annotations

import discord
import simcord

from bot.settings import Settings
from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_messages, bot_text, start
from tests.bot.adapters.discord.test_catch_up import come_back, go_away

DAY = 86400


def pings(w: World, room: simcord.ChannelHandle) -> list[discord.Message]:
    """The reminders posted for a player (a mention), not the board's copy of the line."""
    return [m for m in bot_messages(w, room) if m.content.startswith("<@") and "your move against" in m.content]


async def test_reminder_mention_then_the_loss_on_time(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", clock="kind=correspondence move=2d")
    live = w.bot.service.live[match_id]
    assert live.clocks.tc.move == 2 * DAY
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(1.5 * DAY)
    assert "waiting" not in bot_text(w, room)
    await w.env.advance_time(0.2 * DAY)  # 80 % of bob's two days are used
    (reminder,) = pings(w, room)
    assert reminder.content.startswith(f"<@{w.bob.id}> your move against alice is waiting: 9h 36m left")
    assert "<t:" in reminder.content and ":R>" in reminder.content
    assert "clocks: alice 2d | ▶ bob 9h 36m" in board_of(w, room, match_id).content
    await w.env.advance_time(0.4 * DAY)
    assert live.status == "finished" and live.result == (1, "time")
    assert len(pings(w, room)) == 1  # once per move


async def test_a_deadline_that_passed_while_away_is_ruled_on_return(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", clock="kind=correspondence move=1d remind=0")
    await w.alice.send(room, "A1-B1")
    await go_away(w)
    await w.env.advance_time(0.9 * DAY)
    await w.bob.send(room, "A2-B2")  # in time, while the bot is away
    await w.env.advance_time(2 * DAY)  # alice's day runs out too, still away
    await come_back(w, settings)
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None and stored.status == "finished"
    assert stored.winner_seat == 2 and stored.result_reason == "time"  # bob's move counted; alice lost on time
    assert [e.kind for e in stored.events if e.kind == "move"] == ["move", "move"]


async def test_a_correspondence_swiss_round_two_days_per_move(world: World) -> None:
    w = world
    created = answer(
        await w.carol.slash(
            w.lobby,
            "dm tournament create",
            name="Slow Swiss",
            game="boxes",
            format="swiss",
            rounds=2,
            options="rows=2 cols=2",
            clock="kind=correspondence move=2d",
        )
    )
    assert created.content.startswith("**Tournament 1 · Slow Swiss**")
    (card,) = [m for m in bot_messages(w, w.lobby) if m.content.startswith("**Tournament ")]
    for player in (w.alice, w.bob, w.carol, w.dave):
        await player.click(card, label="Join")
    answer(await w.carol.slash(w.lobby, "dm tournament start", tournament=1))
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    first = [g.match_id for g in await service.games(1) if g.round == 1 and g.match_id]
    assert len(first) == 2
    for match_id in first:
        assert w.bot.service.live[match_id].clocks.tc.kind == "correspondence"
        assert w.bot.service.live[match_id].clocks.tc.move == 2 * DAY
    await w.env.advance_time(1.7 * DAY)
    rooms = {w.bot.service.live[m].channel_id for m in first}
    reminded = [t for t in w.lobby.threads if t.id in rooms and pings(w, t)]
    assert len(reminded) == 2  # each first mover is reminded once, in the game's own room
    await w.env.advance_time(0.4 * DAY)  # the first movers run out of time: round 1 is decided
    await w.env.settle()
    t = await service.get(1)
    assert t.round == 2
    for match_id in first:
        stored = await w.bot.service.store.load(match_id)
        assert stored is not None and stored.result_reason == "time"
    second = [g.match_id for g in await service.games(1) if g.round == 2 and g.match_id]
    assert second and all(w.bot.service.live[m].clocks.tc.kind == "correspondence" for m in second)


async def test_dm_live_lists_correspondence_matches_apart(world: World) -> None:
    w = world
    fast, _ = await start(w, options="rows=2 cols=2")
    slow, _ = await start(w, options="rows=2 cols=2", clock="kind=correspondence move=2d", by=w.carol)
    shown = answer(await w.dave.slash(w.lobby, "dm live"))
    text = "\n".join(e.description or "" for e in shown.embeds)
    head = text.index("**Correspondence**")
    assert text.index(f"#{fast}") < head < text.index(f"#{slow}")


async def test_history_and_board_show_the_time_left_in_days_and_hours(world: World) -> None:
    w = world
    slow, room = await start(w, options="rows=2 cols=2", clock="kind=correspondence move=3d")
    fast, _ = await start(w, options="rows=2 cols=2", by=w.carol)
    await w.env.advance_time(1.5 * DAY + 4 * 3600)  # alice has 1 day and 8 hours left
    shown = answer(await w.dave.slash(w.lobby, "dm history", player=w.alice))
    lines = (shown.embeds[0].description or "").splitlines()
    (slow_line,) = [line for line in lines if line.startswith(f"`#{slow}`")]
    assert "in play · alice to move, 1d 8h left" in slow_line
    (fast_line,) = [line for line in lines if line.startswith(f"`#{fast}`")]
    assert "left" not in fast_line  # a live match is over by now, on time
    status = answer(await w.dave.slash(room, "dm status", match=slow)).content
    assert "clocks: ▶ alice 1d 8h | bob 3d" in status  # the board's own line is as of its last event
    assert "clocks: ▶ alice 3d | bob 3d\nalice: time runs out <t:" in board_of(w, room, slow).content
