"""Notices owed durably on Discord (issue 47, 4): a reminder is stored with its action and marked told once the
room heard it; one a process stored but never posted (killed in between) is posted by the next start, once."""

from __future__ import annotations

from sqlalchemy import select, update

from bot.settings import Settings
from bot.store.outbox import NOTICES
from tests.bot.adapters.discord.conftest import World, bot_messages, start
from tests.bot.adapters.discord.test_catch_up import come_back, go_away
from tests.bot.adapters.discord.test_correspondence import DAY, pings


async def _notices(w: World, match_id: int) -> list[tuple[str, bool]]:
    async with w.bot.service.store.engine.connect() as conn:
        rows = await conn.execute(
            select(NOTICES.c.kind, NOTICES.c.told_at).where(NOTICES.c.match_id == match_id).order_by(NOTICES.c.id)
        )
        return [(str(r[0]), r[1] is not None) for r in rows]


async def test_a_reminder_stored_but_never_posted_is_posted_by_the_next_start_once(
    world: World, settings: Settings
) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", clock="kind=correspondence move=2d")
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(1.7 * DAY)  # 80 % of bob's two days: reminded
    assert len(pings(w, room)) == 1
    assert await _notices(w, match_id) == [("reminder", True)]  # told: owed no more
    async with w.bot.service.store.engine.begin() as conn:  # as a process killed before it posted it leaves it
        await conn.execute(update(NOTICES).where(NOTICES.c.match_id == match_id).values(told_at=None))
    await go_away(w)
    await w.env.advance_time(0.1 * DAY)
    await come_back(w, settings)
    late = pings(w, room)
    assert len(late) == 2 and late[-1].content.startswith(f"<@{w.bob.id}> your move against alice is waiting")
    assert await _notices(w, match_id) == [("reminder", True)]
    await go_away(w)
    await come_back(w, settings)  # told: a later start says nothing again
    assert len(pings(w, room)) == 2


async def test_a_result_stored_but_never_posted_is_posted_by_the_next_start(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", clock="kind=correspondence move=1d remind=0")
    await w.alice.send(room, "A1-B1")
    await w.env.advance_time(1.1 * DAY)  # bob's day runs out
    assert await _notices(w, match_id) == [("finished", True)]
    async with w.bot.service.store.engine.begin() as conn:
        await conn.execute(update(NOTICES).where(NOTICES.c.match_id == match_id).values(told_at=None))
    await go_away(w)
    before = bot_messages(w, room)
    await come_back(w, settings)
    new = [m for m in bot_messages(w, room) if m.id not in {b.id for b in before}]
    assert len(new) == 1 and "on time" in new[0].content and "<@" not in new[0].content  # said, nobody pinged
    assert await _notices(w, match_id) == [("finished", True)]
