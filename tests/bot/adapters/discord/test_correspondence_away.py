"""Correspondence vacation on a simulated Discord over simulated days (issue 41): `/dm event vacation days:N`
stops a player's clocks in every correspondence match of theirs, the opponents are told in their rooms, the
board and `/dm status` show it, and the clocks run again when it ends (or the player comes back early)."""

from __future__ import annotations

import simcord

from bot.settings import Settings
from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_messages, bot_text, start
from tests.bot.adapters.discord.test_catch_up import come_back, go_away

DAY = 86400
SLOW = "kind=correspondence move=2d"


async def second_match(w: World) -> tuple[int, simcord.ChannelHandle]:
    """dave (moving first) against alice, in a thread of its own."""
    return await start(w, players=(w.dave, w.alice), room="public", options="rows=2 cols=2", clock=SLOW)


def told(w: World, room: simcord.ChannelHandle, who: simcord.MemberActor) -> list[str]:
    """The messages that mention `who` and speak of alice's vacation."""
    mine = bot_messages(w, room)
    return [m.content for m in mine if m.content.startswith(f"<@{who.id}>") and "vacation" in m.content]


async def test_vacation_stops_both_clocks_then_they_run_again(world: World) -> None:
    w = world
    first, room1 = await start(w, room="public", options="rows=2 cols=2", clock=SLOW)  # alice moves first
    second, room2 = await second_match(w)  # dave moves first, then alice
    service = w.bot.service
    await w.env.advance_time(0.5 * DAY)
    reply = answer(await w.alice.slash(w.lobby, "dm event vacation", days=3)).content
    assert reply.startswith("Your vacation runs until <t:")
    assert f"#{first}" in reply and f"#{second}" in reply and "3 of this year's 14 vacation days used" in reply
    one, two = service.live[first], service.live[second]
    assert one.clocks.since is None and 1 in one.away  # alice's running clock stopped
    assert 2 in two.away and two.clocks.running == 1  # dave's runs on
    (note,) = told(w, room1, w.bob)
    assert "alice is on vacation until <t:" in note and "alice's clock stands still" in note
    assert told(w, room2, w.dave)
    assert "alice 1d 12h (on vacation until <t:" in board_of(w, room1, first).content
    status = answer(await w.bob.slash(room1, "dm status")).content
    assert "(on vacation until <t:" in status
    await w.env.advance_time(1 * DAY)
    await w.dave.send(room2, "A1-B1")  # the turn comes to alice while she is away: her clock starts stopped
    assert two.clocks.running == 2 and two.clocks.since is None
    await w.env.advance_time(1.9 * DAY)  # alice's two days in match 1 would be over by now
    assert one.status == "ongoing" and two.status == "ongoing"
    assert "waiting" not in bot_text(w, room1)  # no reminder while away
    await w.env.advance_time(0.2 * DAY)  # the vacation ends (3.5 d): both clocks run again
    for room in (room1, room2):
        assert "alice is back from vacation: alice's clock runs again." in bot_text(w, room)
    assert one.clocks.since is not None and not one.away
    assert two.clocks.since is not None and not two.away
    await w.env.advance_time(1.3 * DAY)  # 1.5 d were left in match 1 (half a day used before), 1.4 d gone
    assert one.status == "ongoing"
    await w.env.advance_time(0.2 * DAY)
    assert one.status == "finished" and one.result == (2, "time")
    assert two.status == "ongoing"  # alice's two days in match 2 began when the vacation ended
    await w.env.advance_time(0.5 * DAY)
    assert two.status == "finished" and two.result == (1, "time")


async def test_allowance_set_by_the_server_and_an_early_return(world: World) -> None:
    w = world
    first, room = await start(w, room="public", options="rows=2 cols=2", clock=SLOW)
    shown = answer(await w.dave.slash(w.lobby, "dm config")).content
    assert "**Correspondence**\nVacation allowance: 14 days a year per player" in shown
    saved = answer(await w.carol.slash(w.lobby, "dm config", vacation_days=5)).content
    assert "Vacation allowance: 5 days a year per player" in saved
    refused_config = answer(await w.dave.slash(w.lobby, "dm config", vacation_days=30)).content
    assert "Vacation allowance" not in refused_config  # hosts only
    refused = answer(await w.alice.slash(w.lobby, "dm event vacation", days=6)).content
    assert "6 days is more than you have left: 5 of this year's 5 vacation days" in refused
    none = answer(await w.dave.slash(w.lobby, "dm event vacation", days=1)).content
    assert "no correspondence match" in none
    assert "3 of this year's 5" in answer(await w.alice.slash(w.lobby, "dm event vacation", days=3)).content
    live = w.bot.service.live[first]
    await w.env.advance_time(0.5 * DAY)
    back = answer(await w.alice.slash(w.lobby, "dm event vacation", days=0)).content
    assert back.startswith(f"Welcome back: your clock runs again in #{first}")
    assert "2 days given back; 1 of this year's 5 vacation days used." in back
    assert live.clocks.since is not None and not live.away
    assert "alice is back from vacation" in bot_text(w, room)
    again = answer(await w.alice.slash(w.lobby, "dm event vacation", days=5)).content
    assert "5 days is more than you have left: 4 of this year's 5" in again
    await w.env.advance_time(2 * DAY)  # the half day away was not charged: 2 d from the return
    assert live.status == "finished" and live.result == (2, "time")


async def test_a_vacation_outlives_a_restart(world: World, settings: Settings) -> None:
    w = world
    first, _room = await start(w, room="public", options="rows=2 cols=2", clock=SLOW)
    answer(await w.alice.slash(w.lobby, "dm event vacation", days=2))
    await go_away(w)
    await w.env.advance_time(1 * DAY)
    await come_back(w, settings)
    live = w.bot.service.live[first]
    assert 1 in live.away and live.clocks.since is None
    await w.env.advance_time(1.1 * DAY)  # the vacation ended while this host ran: the clock runs from then
    assert not live.away and live.clocks.since is not None
    await w.env.advance_time(1.8 * DAY)
    assert live.status == "ongoing"
    await w.env.advance_time(0.2 * DAY)
    assert live.status == "finished" and live.result == (2, "time")
