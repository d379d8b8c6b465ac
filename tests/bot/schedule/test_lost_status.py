"""A scheduled DM's end under failed and ambiguous commits (issue 38, point 5), on SQLite and PostgreSQL:
the match's end is recorded by the scheduler's timer soon after (never a DM left `started` until a
restart), once, for the one match of the DM."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from bot.schedule import ScheduleStore
from tests.bot.schedule.test_scheduler import ALICE, BOB, Rig, rig, schedule, until

pytestmark = pytest.mark.looptime
__all__ = ["rig"]  # the fixture, shared with the scheduler's tests


def lose_the_write(store: ScheduleStore, status: str, fault: str) -> list[int]:
    """The first write that moves a DM to `status` fails (`fault` "failed"), or commits and then reports an
    error ("ambiguous"). The list is emptied when the fault was injected."""
    real = store.change
    left = [1]

    async def change(schedule_id: int, values: dict[str, Any], *, only_if: dict[str, Any] | None = None) -> bool:
        if left and values.get("status") == status:
            left.pop()
            if fault == "ambiguous":
                await real(schedule_id, values, only_if=only_if)
            raise OperationalError("COMMIT", {}, ConnectionError(f"injected: a {fault} commit"))
        return await real(schedule_id, values, only_if=only_if)

    store.change = change  # type: ignore[method-assign]
    return left


@pytest.mark.parametrize("fault", ["failed", "ambiguous"])
async def test_a_lost_end_is_recorded_by_the_timer_once(rig: Rig, fault: str) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at - dt.timedelta(minutes=10))
    await rig.scheduler.check_in(s.id, ALICE.id)
    await rig.scheduler.check_in(s.id, BOB.id)
    await until(rig, s.at + dt.timedelta(seconds=1))
    ((_, started),) = rig.events.of("started")
    match_id = started.data["match"]
    left = lose_the_write(rig.scheduler.store, "finished", fault)
    await rig.service.resign(match_id, BOB.id)
    await until(rig, s.at + dt.timedelta(seconds=10))  # well before any restart
    assert left == []
    done = await rig.scheduler.get(s.id)
    assert done.public_status == "finished" and done.winner_seat == 1 and done.match_id == match_id
    assert len(rig.events.of("started")) == 1, "one match for the DM"
    if fault == "failed":
        assert len(rig.events.of("finished")) == 1
    await rig.restart()  # a restart finds nothing more to record
    await until(rig, s.at + dt.timedelta(seconds=20))
    assert (await rig.scheduler.get(s.id)) == done
    assert len(rig.events.of("finished")) <= 1
