"""A scheduled DM's claims under failed and ambiguous commits (issue 38, point 5), on SQLite and PostgreSQL:
the write that claims a DM for its start or for its no-show ruling fails, or commits and then reports an
error. The DM still starts at its time (seconds late, never minutes), a no-show is still ruled — also when
the process restarts right after — and there is one match for the DM."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from bot.schedule.core import RETURN_GRACE_S
from bot.store.db import Match
from tests.bot.schedule.test_lost_status import lose_the_write
from tests.bot.schedule.test_scheduler import ALICE, BOB, Rig, rig, schedule, until

pytestmark = pytest.mark.looptime
__all__ = ["rig"]  # the fixture, shared with the scheduler's tests


async def _matches(rig: Rig) -> int:
    async with rig.service.store.engine.connect() as conn:
        return int((await conn.execute(select(func.count()).select_from(Match))).scalar_one())


@pytest.mark.parametrize("fault", ["failed", "ambiguous"])
async def test_a_lost_start_claim_starts_the_dm_seconds_late_not_minutes(rig: Rig, fault: str) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at - dt.timedelta(minutes=10))
    await rig.scheduler.check_in(s.id, ALICE.id)
    await rig.scheduler.check_in(s.id, BOB.id)
    left = lose_the_write(rig.scheduler.store, "starting", fault)
    await until(rig, s.at + dt.timedelta(seconds=30))
    assert left == []
    ((at, started),) = rig.events.of("started")
    assert at - s.at <= dt.timedelta(seconds=10), at - s.at
    assert (await rig.scheduler.get(s.id)).public_status == "started"
    assert started.data["match"] in rig.service.live and await _matches(rig) == 1


@pytest.mark.parametrize("restart", [False, True])
@pytest.mark.parametrize("fault", ["failed", "ambiguous"])
async def test_a_lost_no_show_claim_is_ruled_all_the_same(rig: Rig, fault: str, restart: bool) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at - dt.timedelta(minutes=10))
    await rig.scheduler.check_in(s.id, ALICE.id)  # bob never comes
    left = lose_the_write(rig.scheduler.store, "forfeiting", fault)
    deadline = s.at + dt.timedelta(seconds=s.no_show_s)
    await until(rig, deadline + dt.timedelta(seconds=1))
    assert left == []
    wait = 60.0
    if restart:
        await rig.restart()
        wait += RETURN_GRACE_S  # a deadline passed when a process starts gives the absent that long again
    await until(rig, deadline + dt.timedelta(seconds=wait))
    done = await rig.scheduler.get(s.id)
    assert (done.public_status, done.winner_seat, done.result_reason) == ("forfeited", 1, "no_show"), done
    assert len(rig.events.of("forfeited")) == 1 and await _matches(rig) == 1


async def test_a_lost_fallback_job_gives_the_claim_back_and_the_dm_starts_seconds_late(rig: Rig) -> None:
    s = await schedule(rig, hours=1)
    await until(rig, s.at - dt.timedelta(minutes=10))
    await rig.scheduler.check_in(s.id, ALICE.id)
    await rig.scheduler.check_in(s.id, BOB.id)
    store = rig.scheduler.store
    real, left = store.add_job, [1]

    async def add_job(schedule: Any, kind: str, due: dt.datetime) -> None:
        if left and kind == "start" and due > s.at + dt.timedelta(minutes=1):  # the claim's fallback job
            left.pop()
            raise OperationalError("INSERT", {}, ConnectionError("injected: a failed commit"))
        await real(schedule, kind, due)

    store.add_job = add_job  # type: ignore[method-assign]
    await until(rig, s.at + dt.timedelta(seconds=30))
    assert left == []
    ((at, started),) = rig.events.of("started")
    assert at - s.at <= dt.timedelta(seconds=10), at - s.at
    assert started.data["match"] in rig.service.live and await _matches(rig) == 1
