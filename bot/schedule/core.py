"""The scheduler: one task sleeps until the earliest due job, claims it in the database, and acts.

No Discord here. Adapters call `add`/`check_in`/`reschedule`/… and subscribe to `ScheduleEvent`s; the
sentences are in `bot.wording.schedule`. Every action that must happen once (a reminder, the start, a
no-show ruling) is claimed with a conditional UPDATE first (`… WHERE state = 'pending'` on the job,
`… WHERE status = 'scheduled'` on the DM): only the process whose update changed the row acts, so
several processes on one database never both fire.

Times are wall-clock instants (aware UTC) from `wall`; the task sleeps the difference with
`asyncio.sleep`, so a virtual clock that moves both (SimCord, looptime with a loop-anchored wall)
drives it in tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from bot.host.match import HostError, HostEvent, PlayerRef, new_live
from bot.host.service import MatchService
from bot.schedule.store import (
    DONE,
    Job,
    Schedule,
    ScheduleSettings,
    ScheduleStore,
)
from bot.store.db import utcnow
from bot.store.matches import AlsoWrite

log = logging.getLogger(__name__)

LATE_S: Final = 60.0
"""A reminder sent more than this after its time was missed while the bot was away (it says so)."""
CLAIMED: Final = ("starting", "forfeiting")
"""A DM one process is starting or ruling on right now (a claim that goes stale if that process stops)."""
STALE_S: Final = 300.0
"""A DM left half-started or half-ruled this long (its process stopped in the middle) is taken up again."""
RETURN_GRACE_S: Final = 120.0
"""A bot that was away at a DM's no-show deadline waits this long after its return before ruling."""
MAX_SLEEP_S: Final = 86400.0 * 30
OWED_RETRY_S: Final = 1.0
ACT_RETRY_S: Final = 5.0
"""A start or no-show ruling whose write failed (the database away for a moment) is tried again this soon."""
"""A match end that could not be recorded is tried again this often."""
MAX_PRIZE: Final = 100
MAX_NOTE: Final = 300


class ScheduleError(Exception):
    """A refused request; `code` names it for the wording, `data` the facts it needs."""

    def __init__(self, code: str, **data: Any) -> None:
        super().__init__(code)
        self.code = code
        self.data = data


@dataclass(frozen=True)
class ScheduleEvent:
    """Something about a scheduled DM that the players, the host or the room should hear."""

    kind: str
    schedule: Schedule
    data: dict[str, Any] = field(default_factory=dict)


Listener = Callable[[ScheduleEvent], Awaitable[None] | None]
Starter = Callable[[Schedule], Awaitable[int]]
"""Creates the match of a DM whose time has come; returns the match id."""
AdvantageResolver = Callable[[Schedule], Awaitable[int | None]]
"""Turns an advantage rule that is not a seat (such as `lower-rated`) into seat 1 or 2 (ratings seam)."""


def loop_wall() -> Callable[[], dt.datetime]:
    """A wall clock that moves with the running event loop's clock (virtual time in tests)."""
    loop = asyncio.get_running_loop()
    base_wall, base_loop = utcnow(), loop.time()
    return lambda: base_wall + dt.timedelta(seconds=loop.time() - base_loop)


class Scheduler:
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
    ) -> None:
        self.store = store
        self.service = service
        self.wall = wall or utcnow
        store.now = self.wall
        self.instance = instance or f"schedule-{uuid.uuid4().hex[:12]}"
        self.poll_seconds = poll_seconds
        """Also look at the database this often (jobs added by other processes); None: only when woken."""
        self.starter = starter
        self.advantage = advantage
        self._listeners: list[Listener] = []
        self._task: asyncio.Task[None] | None = None
        self._sleeping_until: dt.datetime | None = None
        self._owed: set[int] = set()
        """Matches whose end could not be recorded (a failed or ambiguous commit): the timer records them."""
        self._closed = False
        self._dirty = False

    # -- lifecycle -----------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        """Receive every schedule event."""
        self._listeners.append(listener)

    async def start(self) -> None:
        """Take up what a stopped process left, give waiting players back the time the bot was away, then
        start the timer task."""
        now = self.wall()
        for sched in await self.store.listing(statuses=CLAIMED):
            # Claimed by a process that stopped in the middle (or is still at it): a job to look again once
            # the claim is stale, when `run_due` takes it over.
            due = max(now, (sched.updated_at or now) + dt.timedelta(seconds=STALE_S))
            await self.store.add_job(sched, "noshow" if sched.status == "forfeiting" else "start", due)
        for sched in await self.store.listing(statuses=("scheduled",), until=now + dt.timedelta(microseconds=1)):
            if sched.at <= now:
                # The no-show deadline is the appointment's (start + wait, with the host's extensions, all
                # stored): a restart gives nobody the whole wait again. Only a deadline that passed (or
                # nearly) while the bot was away moves, to RETURN_GRACE_S after its return, so that a player
                # who could not check in meanwhile can do it now.
                grace = min(float(sched.no_show_s), RETURN_GRACE_S)
                await self.store.move_noshow(sched.id, now + dt.timedelta(seconds=grace), only_later=True)
        for sched in await self.store.listing(statuses=("started",)):
            if sched.match_id is not None:
                await self._match_over(sched.match_id)
        self._closed = False
        self._restart()

    async def close(self) -> None:
        """Stop the timer task (everything stays in the database)."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _restart(self) -> None:
        if self._closed:
            return
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = asyncio.create_task(self._run(), name="schedule-timer")

    def _wake(self, due: dt.datetime) -> None:
        """A job due at `due` was added: restart the sleeping task if it would wake later than that."""
        if self._task is None or self._closed:
            return
        self._dirty = True  # a look-up in flight may have missed it: look again before sleeping
        if self._sleeping_until is not None and due < self._sleeping_until:
            self._sleeping_until = None
            self._restart()

    async def _run(self) -> None:
        while not self._closed:
            self._dirty = False
            await self._settle_owed()
            try:
                nxt = await self.store.next_due()
            except Exception:
                log.exception("reading the next due job failed")
                nxt = None
            now = self.wall()
            if self._dirty:
                continue
            if nxt is None or nxt > now:
                wait = MAX_SLEEP_S if nxt is None else (nxt - now).total_seconds()
                if self.poll_seconds is not None:
                    wait = min(wait, self.poll_seconds)
                if self._owed:
                    wait = min(wait, OWED_RETRY_S)
                self._sleeping_until = now + dt.timedelta(seconds=wait)
                try:
                    await asyncio.sleep(wait)
                finally:
                    self._sleeping_until = None
                continue
            try:
                await self.run_due()
            except Exception:
                log.exception("scheduled jobs failed")
                await asyncio.sleep(5)

    async def run_due(self) -> int:
        """Act on every job due now; returns how many this process claimed."""
        now = self.wall()
        jobs = await self.store.due(now)
        claimed = 0
        reminders: dict[int, list[Job]] = {}
        for job in jobs:
            if job.kind == "remind":
                reminders.setdefault(job.schedule_id, []).append(job)
        for schedule_id, due in reminders.items():
            claimed += await self._remind(schedule_id, due, now)
        for job in jobs:
            if job.kind == "remind":
                continue
            sched = await self.store.get(job.schedule_id)
            if sched is not None and sched.status in CLAIMED:
                sched = await self._take_over(sched, now)
                if sched.status in CLAIMED:  # another process is at it: look again once its claim is stale
                    await self.store.postpone(job.id, (sched.updated_at or now) + dt.timedelta(seconds=STALE_S))
                    continue
            live = sched is not None and sched.status == "scheduled"
            if not await self.store.claim(job.id, "done" if live else "dropped", self.instance, now):
                continue
            claimed += 1
            if sched is None or not live:
                continue
            try:
                await self._act(job, sched)
            except Exception:
                log.exception("schedule %s: %s failed; trying again in %.0f s", sched.id, job.kind, ACT_RETRY_S)
                # The job is done, but what it was for is not: another one soon (a start is then seconds
                # late, not until some later job; a no-show is still ruled, across a restart too).
                try:
                    await self.store.add_job(sched, job.kind, self.wall() + dt.timedelta(seconds=ACT_RETRY_S))
                except Exception:
                    log.exception("schedule %s: the retry could not be stored; a restart takes it up", sched.id)
        return claimed

    async def _remind(self, schedule_id: int, due: list[Job], now: dt.datetime) -> int:
        """Reminders due for one DM: only the latest is sent (several missed while away make one), and
        only while the DM has not begun."""
        sched = await self.store.get(schedule_id)
        send = sched is not None and sched.status == "scheduled"
        latest = max(due, key=lambda j: (j.due_at, j.id))
        claimed = 0
        for job in due:
            to = "done" if send and job is latest else "dropped"
            if await self.store.claim(job.id, to, self.instance, now):
                claimed += 1
                if to == "done" and sched is not None:
                    late = (now - job.due_at).total_seconds() > LATE_S
                    await self._emit("reminder", sched, offset_s=job.offset_s, late=late)
        return claimed

    async def _take_over(self, sched: Schedule, now: dt.datetime) -> Schedule:
        """A DM claimed for its start or no-show ruling by a process that stopped in the middle (its claim
        is STALE_S old): back to `scheduled`, so that this process acts. The match of the old claim cannot
        be stored any more (its token no longer matches), so there is never a second one."""
        if sched.updated_at is None or sched.updated_at > now - dt.timedelta(seconds=STALE_S):
            return sched
        await self.store.change(
            sched.id, {"status": "scheduled"}, only_if={"status": sched.status, "start_token": sched.start_token}
        )
        return await self._fresh(sched.id)

    async def _act(self, job: Job, sched: Schedule) -> None:
        if job.kind == "checkin":
            await self._emit("checkin_open", sched)
        elif job.kind == "start":
            if all(sched.here):
                await self._begin(sched, None)
            else:
                missing = [seat for seat in (1, 2) if sched.here[seat - 1] is None]
                await self._emit("waiting", sched, missing=missing, until=sched.wait_until)
        elif job.kind == "noshow":
            await self._rule_no_show(sched)

    # -- events --------------------------------------------------------------------
    async def _emit(self, kind: str, sched: Schedule, **data: Any) -> None:
        ev = ScheduleEvent(kind, sched, data)
        for listener in list(self._listeners):
            try:
                result = listener(ev)
                if asyncio.iscoroutine(result):
                    await result
            except Exception:
                log.exception("schedule listener failed for %s of schedule %s", kind, sched.id)

    async def _fresh(self, schedule_id: int) -> Schedule:
        sched = await self.store.get(schedule_id)
        if sched is None:
            raise ScheduleError("unknown", schedule=schedule_id)
        return sched

    # -- asking --------------------------------------------------------------------
    async def get(self, schedule_id: int, guild_id: int | bool | None = False) -> Schedule:
        """A schedule (of this guild, unless `guild_id` is False); ScheduleError when there is none."""
        sched = await self.store.get(schedule_id)
        if sched is None or (guild_id is not False and sched.guild_id != guild_id):
            raise ScheduleError("unknown", schedule=schedule_id)
        return sched

    async def upcoming(self, guild_id: int | bool | None = False, limit: int | None = 25) -> list[Schedule]:
        """DMs not begun yet, soonest first."""
        return await self.store.listing(guild_id=guild_id, statuses=("scheduled", "starting"), limit=limit)

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
        return await self.store.listing(statuses=("scheduled",), room_id=room_id)

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
            "status": "scheduled",
            "wait_until": at + dt.timedelta(seconds=settings.no_show_s),
            "created_at": now,
            "updated_at": now,
        }
        sched = await self.store.insert(values, settings, now)
        await self._emit("scheduled", sched)
        self._wake(min(sched.checkin_opens, *(at - dt.timedelta(seconds=r) for r in settings.reminders)))
        return sched

    async def cancel(self, schedule_id: int, by: str | None, *, guild_id: int | bool | None = False) -> Schedule:
        """A host calls the DM off (before it begins)."""
        sched = await self.get(schedule_id, guild_id)
        if sched.status != "scheduled" or not await self.store.change(
            sched.id, {"status": "cancelled", "result_reason": "cancelled"}, only_if={"status": "scheduled"}
        ):
            raise ScheduleError("not_open", schedule=sched.id, status=(await self._fresh(sched.id)).public_status)
        await self.store.retire_jobs(sched.id, self.wall())
        sched = await self._fresh(sched.id)
        await self._emit("cancelled", sched, by=by, reason="cancelled")
        return sched

    async def reschedule(
        self, schedule_id: int, at: dt.datetime, by: str | None, *, guild_id: int | bool | None = False
    ) -> Schedule:
        """A new start time (by a host, or an accepted proposal): reminders move with it."""
        sched = await self.get(schedule_id, guild_id)
        now = self.wall()
        if at <= now:
            raise ScheduleError("past", at=at)
        if sched.status != "scheduled":
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        if not await self.store.move(sched, at, at + dt.timedelta(seconds=sched.no_show_s), now):
            raise ScheduleError("not_open", schedule=sched.id, status=(await self._fresh(sched.id)).public_status)
        before = sched.at
        sched = await self._fresh(sched.id)
        await self._emit("rescheduled", sched, by=by, before=before)
        self._wake(now)
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
            sched.id, {"proposed_at": at, "proposed_by": player_id}, only_if={"status": "scheduled"}
        ):
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        sched = await self._fresh(sched.id)
        await self._emit("proposed", sched, by=player_id, at=at)
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
        if sched.status != "scheduled":
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        now = self.wall()
        if now < sched.checkin_opens:
            raise ScheduleError("too_early", opens=sched.checkin_opens)
        column = f"here{seat}"
        if not await self.store.change(sched.id, {column: now}, only_if={"status": "scheduled", column: None}):
            raise ScheduleError("already_here", schedule=sched.id)
        sched = await self._fresh(sched.id)
        await self._emit("checked_in", sched, seat=seat)
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
        if sched.status != "scheduled":
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        until = max(sched.wait_until, self.wall()) + dt.timedelta(minutes=minutes)
        if not await self.store.move_noshow(sched.id, until, only_later=False):
            raise ScheduleError("not_open", schedule=sched.id, status=(await self._fresh(sched.id)).public_status)
        sched = await self._fresh(sched.id)
        await self._emit("extended", sched, by=by, until=until)
        self._wake(until)
        return sched

    async def start_now(self, schedule_id: int, by: str | None, *, guild_id: int | bool | None = False) -> Schedule:
        """The host starts the DM now, checked in or not."""
        sched = await self.get(schedule_id, guild_id)
        if sched.status != "scheduled":
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

    # -- beginning and ruling ------------------------------------------------------
    async def _claim(self, sched: Schedule, claim: dict[str, Any]) -> bool:
        """Move a DM from `scheduled` to a claim (`starting` or `forfeiting` with a fresh token): whether this
        process holds it now. A commit reported lost is read back: the claim stands if the DM carries its
        token (it committed after all); otherwise the error is raised (nothing claimed: tried again soon)."""
        try:
            return await self.store.change(sched.id, claim, only_if={"status": "scheduled"})
        except Exception:
            fresh = await self.store.get(sched.id)
            if fresh is not None and (fresh.status, fresh.start_token) == (claim["status"], claim["start_token"]):
                log.warning("schedule %s: the database reported an error, but the claim was stored", sched.id)
                return True
            raise

    async def _begin(self, sched: Schedule, by: str | None) -> bool:
        """Create the match (once: the DM moves from `scheduled` to `starting` by a conditional update)."""
        token = uuid.uuid4().hex
        claim = {"status": "starting", "start_token": token}
        if not await self._claim(sched, claim):
            return False
        sched = dataclasses.replace(sched, status="starting", start_token=token)
        await self._fallback(sched, "start", claim)
        try:
            match_id = await self._create_match(sched, by)
        except Exception as exc:
            log.exception("schedule %s: the match could not be started", sched.id)
            await self.store.change(sched.id, {"status": "scheduled"}, only_if=claim)
            await self._emit("start_failed", sched, reason=str(exc) if isinstance(exc, HostError) else None)
            return False
        # Recorded already in the match's own transaction (`recorder`), unless a starter created it otherwise.
        await self.store.change(sched.id, {"status": "started", "match_id": match_id}, only_if=claim)
        await self.store.retire_jobs(sched.id, self.wall())
        sched = await self._fresh(sched.id)
        await self._emit("started", sched, match=match_id, by=by)
        return True

    async def _create_match(self, sched: Schedule, by: str | None) -> int:
        if self.starter is not None:
            return await self.starter(sched)
        return await self.create_match(sched, by)

    async def create_match(self, sched: Schedule, by: str | None = None) -> int:
        """Start a DM's match through the host service (what a `starter` wraps)."""
        if self.service is None:
            raise HostError("no match service to start the DM in")
        return await self.service.create_match(
            sched.game,
            list(sched.players),
            options=sched.options,
            clock=sched.clock,
            rules=sched.rules,
            first=sched.first,
            advantage=await self.seat_advantage(sched),
            guild_id=sched.guild_id,
            channel_id=sched.room_id or sched.channel_id,
            by=by or sched.host_id,
            also=self._recorder(sched, {"status": "started"}),
        )

    async def _fallback(self, sched: Schedule, kind: str, claim: dict[str, Any]) -> None:
        """Should this process stop before its claim is carried out, any process takes the DM up again
        STALE_S later (the job is dropped with the others once the DM has begun or been ruled on). When that
        job cannot be stored, the claim is given back before the error goes on (the retry then finds the DM
        `scheduled`, not claimed and left until the claim is stale)."""
        try:
            await self.store.add_job(sched, kind, self.wall() + dt.timedelta(seconds=STALE_S))
        except Exception:
            with contextlib.suppress(Exception):
                await self.store.change(sched.id, {"status": "scheduled"}, only_if=claim)
            raise

    def _recorder(self, sched: Schedule, values: dict[str, Any]) -> AlsoWrite | None:
        """The write that records the match with the claim under way (None: no claim, as for a plain call)."""
        if sched.start_token is None or sched.status not in ("starting", "forfeiting"):
            return None
        return self.store.recorder(sched.id, sched.start_token, values)

    async def seat_advantage(self, sched: Schedule) -> int | None:
        """The seat with the advantage (a rule such as `lower-rated` goes through the resolver)."""
        if sched.advantage in ("1", "2"):
            return int(sched.advantage)
        if sched.advantage and self.advantage is not None:
            return await self.advantage(sched)
        return None

    async def _rule_no_show(self, sched: Schedule) -> None:
        here = [seat for seat in (1, 2) if sched.here[seat - 1] is not None]
        if len(here) == 2:
            await self._begin(sched, None)
            return
        if not here:
            if await self.store.change(
                sched.id, {"status": "cancelled", "result_reason": "no_show"}, only_if={"status": "scheduled"}
            ):
                await self.store.retire_jobs(sched.id, self.wall())
                await self._emit("cancelled", await self._fresh(sched.id), by=None, reason="no_show")
            return
        winner = here[0]
        token = uuid.uuid4().hex
        claim = {"status": "forfeiting", "start_token": token}
        if not await self._claim(sched, claim):
            return
        sched = dataclasses.replace(sched, status="forfeiting", start_token=token)
        await self._fallback(sched, "noshow", claim)
        match_id: int | None = None
        now = self.wall()
        result = {"status": "forfeited", "winner_seat": winner, "result_reason": "no_show", "finished_at": now}
        if self.service is not None:
            try:
                match_id = await self.service.record_forfeit(
                    sched.game,
                    list(sched.players),
                    winner,
                    "no_show",
                    options=sched.options,
                    clock=sched.clock,
                    rules=sched.rules,
                    guild_id=sched.guild_id,
                    channel_id=sched.room_id or sched.channel_id,
                    by="schedule",
                    also=self._recorder(sched, result),
                )
            except HostError:
                log.exception("schedule %s: the no-show could not be recorded as a match", sched.id)
        if match_id is None and not await self.store.change(sched.id, result, only_if=claim):
            return  # the claim went to another process meanwhile (else: no match stored, the ruling stands)
        await self.store.retire_jobs(sched.id, now)
        await self._emit("forfeited", await self._fresh(sched.id), winner=winner, match=match_id)

    # -- the matches' ends (a host-event subscriber) ----------------------------------
    async def on_host_event(self, event: HostEvent) -> None:
        """Subscribe this to the match service: a scheduled DM's match that ends records its result."""
        if event.kind in ("finished", "aborted"):
            try:
                await self._match_over(event.match_id)
            except Exception:
                log.exception("recording the end of match %s failed; the timer records it", event.match_id)
                self._owed.add(event.match_id)
                if self._sleeping_until is not None:
                    self._sleeping_until = None
                    self._restart()

    async def _settle_owed(self) -> None:
        """Record the ends that could not be recorded (idempotent: only a `started` DM changes)."""
        for match_id in sorted(self._owed):
            try:
                await self._match_over(match_id)
                self._owed.discard(match_id)
            except Exception:
                log.exception("recording the end of match %s failed again", match_id)

    async def _match_over(self, match_id: int) -> None:
        sched = await self.store.by_match(match_id)
        if sched is None or sched.status != "started" or self.service is None:
            return
        stored = await self.service.store.load(match_id)
        if stored is None or stored.status not in ("finished", "aborted"):
            return
        winner: int | None = None
        if stored.winner_seat in stored.players:
            winner = sched.seat_of(stored.players[stored.winner_seat][0])
        now = self.wall()
        if stored.status == "aborted":
            values: dict[str, Any] = {"status": "cancelled", "result_reason": "aborted", "finished_at": now}
        else:
            values = {
                "status": "finished",
                "winner_seat": winner,
                "result_reason": stored.result_reason,
                "finished_at": now,
            }
        if await self.store.change(sched.id, values, only_if={"status": "started"}):
            sched = await self._fresh(sched.id)
            kind = "cancelled" if stored.status == "aborted" else "finished"
            await self._emit(kind, sched, winner=winner, reason=sched.result_reason, match=match_id, by=None)
