"""Correspondence vacation and the games a digest lists, through the real service and store on SQLite and
PostgreSQL, on the event loop's clock (looptime): the allowance, the clocks that stand still, the early
return that gives days back, and the games waiting for a player's move."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator

import pytest

from bot.host.digest import waiting_for
from bot.host.service import MatchService, PlayerRef
from bot.host.vacation import VacationRefused, take_vacation
from bot.store.correspondence import CorrespondenceStore
from tests.bot.conftest import Recorder, make_service

ALICE, BOB, DAVE = PlayerRef("a", "alice"), PlayerRef("b", "bob"), PlayerRef("d", "dave")
DAY = 86400
GUILD = 7
T0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
pytestmark = pytest.mark.looptime


@pytest.fixture
async def slow(migrated_db_url: str) -> AsyncIterator[tuple[MatchService, CorrespondenceStore, Recorder]]:
    """A service whose wall clock follows the loop's (so days pass for both)."""
    rec = Recorder()
    service = await make_service(
        migrated_db_url,
        rec,
        heartbeat_seconds=3600.0,
        wall=lambda: T0 + dt.timedelta(seconds=asyncio.get_running_loop().time()),
    )
    yield service, CorrespondenceStore(service.store.engine), rec
    await service.close()
    await service.store.close()


async def corr(service: MatchService, first: PlayerRef, second: PlayerRef, remind: float = 0.8) -> int:
    clock = {"kind": "correspondence", "move": "2d", "remind": str(remind)}
    return await service.create_match(
        "boxes", [first, second], options={"rows": 2, "cols": 2}, clock=clock, guild_id=GUILD
    )


async def test_vacation_within_the_allowance_and_an_early_return(
    slow: tuple[MatchService, CorrespondenceStore, Recorder],
) -> None:
    service, store, rec = slow
    t0 = service.wall()
    one = await corr(service, ALICE, BOB)
    two = await corr(service, DAVE, ALICE)
    await store.set_allowance(GUILD, 10)
    with pytest.raises(VacationRefused) as refused:
        await take_vacation(service, store, GUILD, ALICE.id, 11)
    assert refused.value.code == "vacation_allowance" and refused.value.data["left"] == 10
    with pytest.raises(VacationRefused) as none:
        await take_vacation(service, store, GUILD, "nobody", 1)
    assert none.value.code == "vacation_no_match"
    taken = await take_vacation(service, store, GUILD, ALICE.id, 4)
    assert sorted(taken.matches) == [one, two] and taken.used == 4 and taken.allowance == 10
    assert taken.until == t0 + dt.timedelta(days=4)
    told = [(e.match_id, e.seat, e.data["away"]) for _t, e in rec.of("vacation")]
    assert sorted(told) == [(one, 2, 1), (two, 1, 2)]  # addressed to each opponent
    with pytest.raises(VacationRefused) as again:
        await take_vacation(service, store, GUILD, ALICE.id, 1)
    assert again.value.code == "vacation_already"
    await asyncio.sleep(3 * DAY)  # alice would have lost match one by now
    assert service.get(one).status == "ongoing"
    back = await take_vacation(service, store, GUILD, ALICE.id, 0)
    assert back.refunded == 1 and back.used == 3  # one whole day not begun is given back
    assert back.matches == [one] and not service.get(one).away  # dave lost match two on time meanwhile
    assert [(e.match_id, e.data["away"]) for _t, e in rec.of("vacation_over")] == [(one, 1)]
    stored = await store.player(GUILD, ALICE.id)
    assert stored.used_in(2026) == 3 and stored.away_until is None
    with pytest.raises(VacationRefused) as not_away:
        await take_vacation(service, store, GUILD, ALICE.id, 0)
    assert not_away.value.code == "vacation_not_away"
    await asyncio.sleep(2 * DAY + 1)
    assert (await service.store.load(one)).result_reason == "time"  # type: ignore[union-attr]


async def test_the_games_waiting_for_a_player(slow: tuple[MatchService, CorrespondenceStore, Recorder]) -> None:
    """What a digest lists (`bot.host.digest.waiting_for`): every game on the player's move, reminded or not."""
    service, _store, _rec = slow
    t0 = service.wall()
    one = await corr(service, ALICE, BOB, remind=0.25)
    await asyncio.sleep(0.3 * DAY)
    two = await corr(service, ALICE, DAVE, remind=0.25)
    await asyncio.sleep(0.25 * DAY)  # one was reminded at half a day; two will be at 0.8 days
    waiting = waiting_for(service, GUILD, ALICE.id)
    assert [(g.match_id, g.reminded) for g in waiting] == [(one, True), (two, False)]
    game = waiting[1]
    assert game.opponent == "dave"
    assert game.left == pytest.approx(1.75 * DAY, abs=1)
    assert abs((game.deadline - (t0 + dt.timedelta(days=2.3))).total_seconds()) < 1
    assert not waiting_for(service, GUILD, BOB.id)  # not on move
