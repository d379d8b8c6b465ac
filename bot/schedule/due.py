"""What a DM's durable jobs do when they fall due: a reminder, the check-in opening, the start, the no-show ruling.

`DueJobs` is an object the `Scheduler` (`bot.schedule.core`) holds, given the store, the jobs runner, the wall
clock, the `Herald` that says its events and the `Rulings` that begin or rule. Each handler acts only while the
DM's own status allows it, so a job claimed twice (a process that died mid-way) never acts twice.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Final

from bot.jobs import Job, JobQueue
from bot.schedule.rulings import STALE_S, Herald, Rulings, fresh
from bot.schedule.status import CLAIMED, JobKind, ScheduleEventKind, ScheduleStatus
from bot.schedule.store import KINDS, Schedule, ScheduleStore, job_prefix

LATE_S: Final = 60.0
"""A reminder sent more than this after its time was missed while the bot was away (it says so)."""
RETURN_GRACE_S: Final = 120.0
"""A bot that was away at a DM's no-show deadline waits this long after its return before ruling."""


class DueJobs:
    """The handlers of the `schedule.<kind>` jobs, and the catch-up of what a stopped process left."""

    def __init__(
        self,
        store: ScheduleStore,
        jobs: JobQueue,
        wall: Callable[[], dt.datetime],
        herald: Herald,
        rulings: Rulings,
    ) -> None:
        self.store = store
        self.jobs = jobs
        self.wall = wall
        self.herald = herald
        self.rulings = rulings

    def register(self) -> None:
        """Hand the runner a handler for each kind of DM job."""
        for kind in KINDS:
            self.jobs.register(f"schedule.{kind}", self.remind if kind == JobKind.REMIND else self.act)

    def unregister(self) -> None:
        """Take the handlers back from a runner the scheduler shares."""
        for kind in KINDS:
            self.jobs.unregister(f"schedule.{kind}")

    async def catch_up(self) -> None:
        """Take up what a stopped process left, and give waiting players back the time the bot was away."""
        now = self.wall()
        for sched in await self.store.listing(statuses=CLAIMED):
            # Claimed by a process that stopped in the middle (or is still at it): a job to look again once
            # the claim is stale, when the handler takes it over.
            due = max(now, (sched.updated_at or now) + dt.timedelta(seconds=STALE_S))
            kind = JobKind.NOSHOW if sched.status == ScheduleStatus.FORFEITING else JobKind.START
            await self.store.add_job(sched, kind, due)
        scheduled = await self.store.listing(
            statuses=(ScheduleStatus.SCHEDULED,), until=now + dt.timedelta(microseconds=1)
        )
        for sched in scheduled:
            if sched.at <= now:
                # The no-show deadline is the appointment's (start + wait, with the host's extensions, all
                # stored): a restart gives nobody the whole wait again. Only a deadline that passed (or
                # nearly) while the bot was away moves, to RETURN_GRACE_S after its return, so that a player
                # who could not check in meanwhile can do it now.
                grace = min(float(sched.no_show_s), RETURN_GRACE_S)
                await self.store.move_noshow(sched.id, now + dt.timedelta(seconds=grace), only_later=True)

    async def remind(self, job: Job) -> None:
        """A reminder: only while the DM has not begun, and of several missed while away only the latest."""
        schedule_id = int(job.payload["schedule"])
        sched = await self.store.get(schedule_id)
        if sched is None or sched.status != ScheduleStatus.SCHEDULED:
            return
        now = self.wall()
        later = [
            j
            for j in await self.jobs.listing(job_prefix(schedule_id) + "remind:", pending=True)
            if j.key != job.key and job.due <= j.due <= now
        ]
        if later:
            return  # a later reminder is due as well: it is the one sent
        late = (now - job.due).total_seconds() > LATE_S
        await self.herald.emit(ScheduleEventKind.REMINDER, sched, offset_s=job.payload.get("offset"), late=late)

    async def act(self, job: Job) -> None:
        """The check-in opening, the start or the no-show ruling (raising: tried again ACT_RETRY_S later)."""
        kind = job.kind.removeprefix("schedule.")
        sched = await self.store.get(int(job.payload["schedule"]))
        now = self.wall()
        if sched is not None and sched.status in CLAIMED:
            sched = await self._take_over(sched, now)
            if sched.status in CLAIMED:  # another process is at it: look again once its claim is stale
                await self.store.add_job(sched, kind, (sched.updated_at or now) + dt.timedelta(seconds=STALE_S))
                return
        if sched is None or sched.status != ScheduleStatus.SCHEDULED:
            return
        if kind == JobKind.CHECKIN:
            await self.herald.emit(ScheduleEventKind.CHECKIN_OPEN, sched)
        elif kind == JobKind.START:
            if all(sched.here):
                await self.rulings.begin(sched, None)
            else:
                missing = [seat for seat in (1, 2) if sched.here[seat - 1] is None]
                await self.herald.emit(ScheduleEventKind.WAITING, sched, missing=missing, until=sched.wait_until)
        elif kind == JobKind.NOSHOW:
            await self.rulings.rule_no_show(sched)

    async def _take_over(self, sched: Schedule, now: dt.datetime) -> Schedule:
        """A DM claimed for its start or no-show ruling by a process that stopped in the middle (its claim
        is STALE_S old): back to `scheduled`, so that this process acts. The match of the old claim cannot
        be stored any more (its token no longer matches), so there is never a second one."""
        if sched.updated_at is None or sched.updated_at > now - dt.timedelta(seconds=STALE_S):
            return sched
        await self.store.change(
            sched.id,
            {"status": ScheduleStatus.SCHEDULED},
            only_if={"status": sched.status, "start_token": sched.start_token},
        )
        return await fresh(self.store, sched.id)
