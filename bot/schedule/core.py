"""The scheduler: a DM's due actions are durable jobs (`bot.jobs`), run once across processes.

No Discord here. Adapters call `add`/`check_in`/`reschedule`/… and subscribe to `ScheduleEvent`s; the
sentences are in `bot.wording.schedule`. Each DM has its jobs (reminders, the check-in, the start, the
no-show ruling: kinds `schedule.<kind>`, keys `schedule:<id>:…`) added and cancelled in the transaction that
changes the DM; the jobs runner claims each once, and the handlers here act only while the DM's own status
allows it (`… WHERE status = 'scheduled'`), so several processes on one database never both act.

Times are wall-clock instants (aware UTC) from `wall`; the runner sleeps the difference with the event loop,
so a virtual clock that moves both (SimCord, looptime with a loop-anchored wall) drives it in tests.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from bot.host.match import PlayerRef, new_live
from bot.host.service import MatchService
from bot.jobs import Job, JobQueue
from bot.schedule.rulings import (
    OWED_RETRY_S,
    STALE_S,
    AdvantageResolver,
    Listener,
    Rulings,
    ScheduleError,
    ScheduleEvent,
    Starter,
)
from bot.schedule.status import CLAIMED, DONE, JobKind, ScheduleEventKind, ScheduleStatus
from bot.schedule.store import KINDS, Schedule, ScheduleSettings, ScheduleStore, job_prefix
from bot.store.db import utcnow

__all__ = [
    "ACT_RETRY_S",
    "LATE_S",
    "OWED_RETRY_S",
    "RETURN_GRACE_S",
    "STALE_S",
    "AdvantageResolver",
    "Listener",
    "ScheduleError",
    "ScheduleEvent",
    "Scheduler",
    "Starter",
    "loop_wall",
]

log = logging.getLogger(__name__)

LATE_S: Final = 60.0
"""A reminder sent more than this after its time was missed while the bot was away (it says so)."""
RETURN_GRACE_S: Final = 120.0
"""A bot that was away at a DM's no-show deadline waits this long after its return before ruling."""
ACT_RETRY_S: Final = 5.0
"""A start or no-show ruling whose write failed (the database away for a moment) is tried again this soon."""
MAX_PRIZE: Final = 100
MAX_NOTE: Final = 300


def loop_wall() -> Callable[[], dt.datetime]:
    """A wall clock that moves with the running event loop's clock (virtual time in tests)."""
    loop = asyncio.get_running_loop()
    base_wall, base_loop = utcnow(), loop.time()
    return lambda: base_wall + dt.timedelta(seconds=loop.time() - base_loop)


class Scheduler(Rulings):
    """Scheduled Death Matches of one process (or of its shards' guilds)."""

    def __init__(
        self,
        store: ScheduleStore,
        service: MatchService | None = None,
        *,
        wall: Callable[[], dt.datetime] | None = None,
        instance: str | None = None,
        poll_seconds: float | None = 60.0,
        starter: Starter | None = None,
        advantage: AdvantageResolver | None = None,
        jobs: JobQueue | None = None,
    ) -> None:
        super().__init__(store, service, wall or utcnow, starter, advantage)
        self.instance = instance or f"schedule-{uuid.uuid4().hex[:12]}"
        self._own_jobs = jobs is None
        """Without a shared runner the scheduler has one of its own (the terminal, the command lines, tests)."""
        self.jobs = jobs or JobQueue(
            store.engine,
            clock=self.wall,
            instance=self.instance,
            scope=store.scope(),
            retry_s=ACT_RETRY_S,
            poll_s=poll_seconds,
        )
        if self._own_jobs:
            self._register()

    # -- lifecycle -----------------------------------------------------------------
    def _register(self) -> None:
        for kind in KINDS:
            self.jobs.register(f"schedule.{kind}", self._remind if kind == JobKind.REMIND else self._act)

    async def start(self) -> None:
        """Take up what a stopped process left, give waiting players back the time the bot was away, then
        run the DMs' jobs."""
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
        for sched in await self.store.listing(statuses=(ScheduleStatus.STARTED,)):
            if sched.match_id is not None:
                await self._match_over(sched.match_id)
        if self._own_jobs:
            self.jobs.start()
        else:
            self._register()

    async def close(self) -> None:
        """Stop acting on jobs (everything stays in the database)."""
        if self._own_jobs:
            await self.jobs.close(finish_s=0)  # as a process that stops: a start under way is taken up again
        else:
            for kind in KINDS:
                self.jobs.unregister(f"schedule.{kind}")
        await self._stop_settling()

    async def run_due(self) -> int:
        """Act on every job due now; returns how many were claimed here (the terminal room, tests)."""
        return await self.jobs.run_due()

    # -- the jobs' handlers --------------------------------------------------------
    async def _remind(self, job: Job) -> None:
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
        await self._emit(ScheduleEventKind.REMINDER, sched, offset_s=job.payload.get("offset"), late=late)

    async def _act(self, job: Job) -> None:
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
            await self._emit(ScheduleEventKind.CHECKIN_OPEN, sched)
        elif kind == JobKind.START:
            if all(sched.here):
                await self._begin(sched, None)
            else:
                missing = [seat for seat in (1, 2) if sched.here[seat - 1] is None]
                await self._emit(ScheduleEventKind.WAITING, sched, missing=missing, until=sched.wait_until)
        elif kind == JobKind.NOSHOW:
            await self._rule_no_show(sched)

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
        return await self._fresh(sched.id)

    # -- asking --------------------------------------------------------------------
    async def get(self, schedule_id: int, guild_id: int | bool | None = False) -> Schedule:
        """A schedule (of this guild, unless `guild_id` is False); ScheduleError when there is none."""
        sched = await self.store.get(schedule_id)
        if sched is None or (guild_id is not False and sched.guild_id != guild_id):
            raise ScheduleError("unknown", schedule=schedule_id)
        return sched

    async def upcoming(self, guild_id: int | bool | None = False, limit: int | None = 25) -> list[Schedule]:
        """DMs not begun yet, soonest first."""
        return await self.store.listing(
            guild_id=guild_id, statuses=(ScheduleStatus.SCHEDULED, ScheduleStatus.STARTING), limit=limit
        )

    async def results(
        self,
        guild_id: int | bool | None,
        *,
        player_id: str | None = None,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        limit: int | None = None,
    ) -> list[Schedule]:
        """Finished DMs (played or forfeited), newest first."""
        return await self.store.listing(
            guild_id=guild_id,
            statuses=DONE,
            player_id=player_id,
            since=since,
            until=until,
            by_result=True,
            limit=limit,
        )

    async def waiting_in(self, room_id: int) -> list[Schedule]:
        """DMs whose room is this channel and which have not begun."""
        return await self.store.listing(statuses=(ScheduleStatus.SCHEDULED,), room_id=room_id)

    async def settings(self, guild_id: int | None) -> ScheduleSettings:
        """A guild's scheduling settings."""
        return await self.store.settings(guild_id)

    # -- changing ------------------------------------------------------------------
    async def add(
        self,
        game: str,
        players: Sequence[PlayerRef],
        at: dt.datetime,
        *,
        guild_id: int | None = None,
        channel_id: int | None = None,
        options: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        first: int | None = 1,
        advantage: str | None = None,
        room_mode: str | None = None,
        prize: str | None = None,
        note: str | None = None,
        host_id: str | None = None,
        checkin_s: int | None = None,
        no_show_s: int | None = None,
    ) -> Schedule:
        """Schedule a DM (checked as `/dm start` checks a match); ScheduleError / HostError when refused.
        `checkin_s`/`no_show_s` replace the guild's settings for this DM (`dmhost schedule add --checkin`)."""
        now = self.wall()
        if at.tzinfo is None:
            raise ValueError("at must be aware")
        if at <= now:
            raise ScheduleError("past", at=at)
        prize = " ".join((prize or "").split()) or None
        note = (note or "").strip() or None
        if prize is not None and len(prize) > MAX_PRIZE:
            raise ScheduleError("prize_long", limit=MAX_PRIZE)
        if note is not None and len(note) > MAX_NOTE:
            raise ScheduleError("note_long", limit=MAX_NOTE)
        seat_advantage = int(advantage) if advantage in ("1", "2") else None
        live = new_live(game, list(players), options, clock, rules, first, seat_advantage)  # HostError if unusable
        settings = await self.store.settings(guild_id)
        if checkin_s is not None or no_show_s is not None:
            settings = dataclasses.replace(
                settings,
                checkin_s=settings.checkin_s if checkin_s is None else checkin_s,
                no_show_s=settings.no_show_s if no_show_s is None else no_show_s,
            )
        p1, p2 = players[0], players[1]
        values = {
            "guild_id": guild_id,
            "channel_id": channel_id,
            "game": live.ruleset.id,
            "options": dict(options or {}),
            "clock": dict(clock or {}),
            "rules": dict(rules or {}),
            "first": first,
            "advantage": advantage,
            "room_mode": room_mode,
            "player1_id": p1.id,
            "player1_name": p1.name,
            "player2_id": p2.id,
            "player2_name": p2.name,
            "host_id": host_id,
            "at": at,
            "prize": prize,
            "note": note,
            "reminders": list(settings.reminders),
            "checkin_s": settings.checkin_s,
            "no_show_s": settings.no_show_s,
            "status": ScheduleStatus.SCHEDULED,
            "wait_until": at + dt.timedelta(seconds=settings.no_show_s),
            "created_at": now,
            "updated_at": now,
        }
        sched = await self.store.insert(values, settings, now)
        await self._emit(ScheduleEventKind.SCHEDULED, sched)
        self.jobs.wake()
        return sched

    async def cancel(self, schedule_id: int, by: str | None, *, guild_id: int | bool | None = False) -> Schedule:
        """A host calls the DM off (before it begins)."""
        sched = await self.get(schedule_id, guild_id)
        if sched.status != ScheduleStatus.SCHEDULED or not await self.store.change(
            sched.id,
            {"status": ScheduleStatus.CANCELLED, "result_reason": "cancelled"},
            only_if={"status": ScheduleStatus.SCHEDULED},
        ):
            raise ScheduleError("not_open", schedule=sched.id, status=(await self._fresh(sched.id)).public_status)
        await self.store.retire_jobs(sched.id, self.wall())
        sched = await self._fresh(sched.id)
        await self._emit(ScheduleEventKind.CANCELLED, sched, by=by, reason="cancelled")
        return sched

    async def reschedule(
        self, schedule_id: int, at: dt.datetime, by: str | None, *, guild_id: int | bool | None = False
    ) -> Schedule:
        """A new start time (by a host, or an accepted proposal): reminders move with it."""
        sched = await self.get(schedule_id, guild_id)
        now = self.wall()
        if at <= now:
            raise ScheduleError("past", at=at)
        if sched.status != ScheduleStatus.SCHEDULED:
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        if not await self.store.move(sched, at, at + dt.timedelta(seconds=sched.no_show_s), now):
            raise ScheduleError("not_open", schedule=sched.id, status=(await self._fresh(sched.id)).public_status)
        before = sched.at
        sched = await self._fresh(sched.id)
        await self._emit(ScheduleEventKind.RESCHEDULED, sched, by=by, before=before)
        self.jobs.wake()
        return sched

    async def propose(
        self, schedule_id: int, player_id: str, at: dt.datetime, *, guild_id: int | bool | None = False
    ) -> Schedule:
        """A player proposes a new time; it takes effect when the other player (or a host) accepts."""
        sched = await self.get(schedule_id, guild_id)
        if sched.seat_of(player_id) is None:
            raise ScheduleError("not_player", schedule=sched.id)
        if at <= self.wall():
            raise ScheduleError("past", at=at)
        if not await self.store.change(
            sched.id, {"proposed_at": at, "proposed_by": player_id}, only_if={"status": ScheduleStatus.SCHEDULED}
        ):
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        sched = await self._fresh(sched.id)
        await self._emit(ScheduleEventKind.PROPOSED, sched, by=player_id, at=at)
        return sched

    async def accept(
        self, schedule_id: int, by: str, *, host: bool = False, guild_id: int | bool | None = False
    ) -> Schedule:
        """Accept the proposed time: the other player, or a host."""
        sched = await self.get(schedule_id, guild_id)
        if sched.proposed_at is None or sched.proposed_by is None:
            raise ScheduleError("no_proposal", schedule=sched.id)
        seat = sched.seat_of(by)
        if by == sched.proposed_by or (seat is None and not host):
            raise ScheduleError("not_other", schedule=sched.id)
        return await self.reschedule(sched.id, sched.proposed_at, by)

    async def check_in(self, schedule_id: int, player_id: str) -> Schedule:
        """A player says "I'm here"; the DM begins at once when both are here and its time has come."""
        sched = await self._fresh(schedule_id)
        seat = sched.seat_of(player_id)
        if seat is None:
            raise ScheduleError("not_player", schedule=sched.id)
        if sched.status != ScheduleStatus.SCHEDULED:
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        now = self.wall()
        if now < sched.checkin_opens:
            raise ScheduleError("too_early", opens=sched.checkin_opens)
        column = f"here{seat}"
        if not await self.store.change(
            sched.id, {column: now}, only_if={"status": ScheduleStatus.SCHEDULED, column: None}
        ):
            raise ScheduleError("already_here", schedule=sched.id)
        sched = await self._fresh(sched.id)
        await self._emit(ScheduleEventKind.CHECKED_IN, sched, seat=seat)
        if all(sched.here) and now >= sched.at:
            await self._begin(sched, None)
        return sched

    async def extend(
        self, schedule_id: int, minutes: float, by: str | None, *, guild_id: int | bool | None = False
    ) -> Schedule:
        """The host gives absent players more time (the no-show ruling moves `minutes` later)."""
        sched = await self.get(schedule_id, guild_id)
        if minutes <= 0 or minutes > 24 * 60:
            raise ScheduleError("bad_minutes")
        if sched.status != ScheduleStatus.SCHEDULED:
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        until = max(sched.wait_until, self.wall()) + dt.timedelta(minutes=minutes)
        if not await self.store.move_noshow(sched.id, until, only_later=False):
            raise ScheduleError("not_open", schedule=sched.id, status=(await self._fresh(sched.id)).public_status)
        sched = await self._fresh(sched.id)
        await self._emit(ScheduleEventKind.EXTENDED, sched, by=by, until=until)
        self.jobs.wake()
        return sched

    async def start_now(self, schedule_id: int, by: str | None, *, guild_id: int | bool | None = False) -> Schedule:
        """The host starts the DM now, checked in or not."""
        sched = await self.get(schedule_id, guild_id)
        if sched.status != ScheduleStatus.SCHEDULED:
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        if not await self._begin(sched, by):
            raise ScheduleError("not_open", schedule=sched.id, status=(await self._fresh(sched.id)).public_status)
        return await self._fresh(sched.id)

    async def set_room(self, schedule_id: int, room_id: int) -> None:
        """Where the DM's room is (opened by the adapter at check-in)."""
        await self.store.change(schedule_id, {"room_id": room_id})

    async def set_discord(self, schedule_id: int, *, event_id: int | None = None, card_id: int | None = None) -> None:
        """The Discord Guild Scheduled Event and event card of a DM (adapter bookkeeping)."""
        values: dict[str, Any] = {}
        if event_id is not None:
            values["event_id"] = event_id
        if card_id is not None:
            values["card_id"] = card_id
        if values:
            await self.store.change(schedule_id, values)

    async def save_settings(self, guild_id: int, **values: Any) -> ScheduleSettings:
        """Change a guild's scheduling settings (`timezone`, `reminders`, `checkin_s`, `no_show_s`)."""
        return await self.store.save_settings(guild_id, values)
