"""The scheduler: a DM's due actions are durable jobs (`bot.jobs`), run once across processes.

No Discord here. Adapters call `add`/`check_in`/`reschedule`/… and subscribe to `ScheduleEvent`s; the
sentences are in `bot.wording.schedule`. Each DM has its jobs (reminders, the check-in, the start, the
no-show ruling: kinds `schedule.<kind>`, keys `schedule:<id>:…`) added and cancelled in the transaction that
changes the DM; the jobs runner claims each once, and their handlers (`bot.schedule.due`) act only while
the DM's own status allows it (`… WHERE status = 'scheduled'`), so several processes on one database never both act.

Times are wall-clock instants (aware UTC) from `wall`; the runner sleeps the difference with the event loop,
so a virtual clock that moves both (SimCord, looptime with a loop-anchored wall) drives it in tests.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from bot.host.events import EventKind
from bot.host.match import HostEvent, PlayerRef, new_live
from bot.host.service import MatchService
from bot.host.subscribers import after_commit
from bot.jobs import JobQueue
from bot.schedule.due import LATE_S, RETURN_GRACE_S, DueJobs
from bot.schedule.ends import Ends
from bot.schedule.rulings import (
    OWED_RETRY_S,
    STALE_S,
    AdvantageResolver,
    Herald,
    Listener,
    Rulings,
    ScheduleError,
    ScheduleEvent,
    Starter,
    fresh,
)
from bot.schedule.status import DONE, JobKind, ScheduleEventKind, ScheduleStatus
from bot.schedule.store import Schedule, ScheduleSettings, ScheduleStore
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

ACT_RETRY_S: Final = 5.0
"""A start or no-show ruling whose write failed (the database away for a moment) is tried again this soon."""
MAX_PRIZE: Final = 100
MAX_NOTE: Final = 300


def loop_wall() -> Callable[[], dt.datetime]:
    """A wall clock that moves with the running event loop's clock (virtual time in tests)."""
    loop = asyncio.get_running_loop()
    base_wall, base_loop = utcnow(), loop.time()
    return lambda: base_wall + dt.timedelta(seconds=loop.time() - base_loop)


class Scheduler:
    """Scheduled Death Matches of one process (or of its shards' guilds): the public actions, each handed to
    the object that does it, every one given its dependencies here: the `Herald` says the events, the
    `Rulings` begin a DM or rule on a no-show, the `DueJobs` handlers act on the DMs' jobs, the `Ends` record the
    ends of their matches."""

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
        self.store = store
        self.service = service
        self.wall = wall or utcnow
        store.now = self.wall
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
        self._herald = Herald()
        self._rulings = Rulings(store, service, self.wall, self._herald, starter, advantage)
        self._due = DueJobs(store, self.jobs, self.wall, self._herald, self._rulings)
        self._ends = Ends(store, service, self.wall, self._herald)
        if self._own_jobs:
            self._due.register()

    # -- the hooks a face or the root sets -------------------------------------------
    @property
    def publish(self) -> Listener | None:
        """Where its events go: the composition root's bus (`Bus.tell`); None: nobody hears them."""
        return self._herald.publish

    @publish.setter
    def publish(self, listener: Listener | None) -> None:
        self._herald.publish = listener

    @property
    def starter(self) -> Starter | None:
        """Creates a DM's match instead of the host service (None: `create_match`)."""
        return self._rulings.starter

    @starter.setter
    def starter(self, starter: Starter | None) -> None:
        self._rulings.starter = starter

    @property
    def advantage(self) -> AdvantageResolver | None:
        """Turns an advantage rule that is not a seat (such as `lower-rated`) into a seat."""
        return self._rulings.advantage

    @advantage.setter
    def advantage(self, advantage: AdvantageResolver | None) -> None:
        self._rulings.advantage = advantage

    # -- lifecycle -----------------------------------------------------------------
    async def start(self) -> None:
        """Take up what a stopped process left, give waiting players back the time the bot was away, record
        the ends of matches that ended meanwhile, then run the DMs' jobs."""
        await self._due.catch_up()
        for sched in await self.store.listing(statuses=(ScheduleStatus.STARTED,)):
            if sched.match_id is not None:
                await self._ends.match_over(sched.match_id)
        if self._own_jobs:
            self.jobs.start()
        else:
            self._due.register()

    async def close(self) -> None:
        """Stop acting on jobs (everything stays in the database)."""
        if self._own_jobs:
            await self.jobs.close(finish_s=0)  # as a process that stops: a start under way is taken up again
        else:
            self._due.unregister()
        await self._ends.stop()

    async def run_due(self) -> int:
        """Act on every job due now; returns how many were claimed here (the terminal room, tests)."""
        return await self.jobs.run_due()

    # -- the matches' ends (a host-event subscriber) ----------------------------------
    @after_commit(EventKind.FINISHED, EventKind.ABORTED, batch=True)
    async def on_host_event(self, events: Sequence[HostEvent]) -> None:
        """Subscribe this to the match service: the scheduled DMs whose matches ended record their results,
        after the commit and off the move path (`bot.host.subscribers`), every end since the last call looked
        up at once (`Ends.record`)."""
        await self._ends.record(events)

    async def create_match(self, sched: Schedule, by: str | None = None) -> int:
        """Start a DM's match through the host service (what a `starter` wraps)."""
        return await self._rulings.create_match(sched, by)

    async def seat_advantage(self, sched: Schedule) -> int | None:
        """The seat with the advantage (a rule such as `lower-rated` goes through the resolver)."""
        return await self._rulings.seat_advantage(sched)

    # -- asking --------------------------------------------------------------------
    async def get(self, schedule_id: int, guild_id: int | bool | None = False) -> Schedule:
        """A schedule (of this guild, unless `guild_id` is False); ScheduleError when there is none."""
        sched = await self.store.get(schedule_id)
        if sched is None or (guild_id is not False and sched.guild_id != guild_id):
            raise ScheduleError("unknown", schedule=schedule_id)
        return sched

    async def find(self, schedule_id: int) -> Schedule | None:
        """A DM as stored now, of any guild (None when there is none)."""
        return await self.store.get(schedule_id)

    async def listing(
        self,
        *,
        guild_id: int | bool | None = False,
        statuses: Iterable[str] | None = None,
        player_id: str | None = None,
    ) -> list[Schedule]:
        """DMs as stored, soonest first (`guild_id=False`: every guild's; `statuses`: only these)."""
        return await self.store.listing(guild_id=guild_id, statuses=statuses, player_id=player_id)

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
        await self._herald.emit(ScheduleEventKind.SCHEDULED, sched)
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
            raise ScheduleError("not_open", schedule=sched.id, status=(await fresh(self.store, sched.id)).public_status)
        await self.store.retire_jobs(sched.id, self.wall())
        sched = await fresh(self.store, sched.id)
        await self._herald.emit(ScheduleEventKind.CANCELLED, sched, by=by, reason="cancelled")
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
            raise ScheduleError("not_open", schedule=sched.id, status=(await fresh(self.store, sched.id)).public_status)
        before = sched.at
        sched = await fresh(self.store, sched.id)
        await self._herald.emit(ScheduleEventKind.RESCHEDULED, sched, by=by, before=before)
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
        sched = await fresh(self.store, sched.id)
        await self._herald.emit(ScheduleEventKind.PROPOSED, sched, by=player_id, at=at)
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
        sched = await fresh(self.store, schedule_id)
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
        sched = await fresh(self.store, sched.id)
        await self._herald.emit(ScheduleEventKind.CHECKED_IN, sched, seat=seat)
        if all(sched.here) and now >= sched.at:
            await self._rulings.begin(sched, None)
        return sched

    async def note_here(self, sched: Schedule, seat: int) -> Schedule:
        """Write a player's check-in and a start job due now, without beginning the DM here: the process that
        runs the DM's jobs begins it at its next look (a standby room, which never begins a DM itself).
        ScheduleError `already_here` when that seat was checked in (or the DM is no longer `scheduled`)."""
        column = f"here{seat}"
        now = self.wall()
        if not await self.store.change(
            sched.id, {column: now}, only_if={"status": ScheduleStatus.SCHEDULED, column: None}
        ):
            raise ScheduleError("already_here", schedule=sched.id)
        sched = await self.get(sched.id)
        await self.store.add_job(sched, JobKind.START, now)
        return sched

    async def start_soon(self, sched: Schedule) -> None:
        """A start job due now: the process that runs the DM's jobs begins it at its next look."""
        await self.store.add_job(sched, JobKind.START, self.wall())

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
            raise ScheduleError("not_open", schedule=sched.id, status=(await fresh(self.store, sched.id)).public_status)
        sched = await fresh(self.store, sched.id)
        await self._herald.emit(ScheduleEventKind.EXTENDED, sched, by=by, until=until)
        self.jobs.wake()
        return sched

    async def start_now(self, schedule_id: int, by: str | None, *, guild_id: int | bool | None = False) -> Schedule:
        """The host starts the DM now, checked in or not."""
        sched = await self.get(schedule_id, guild_id)
        if sched.status != ScheduleStatus.SCHEDULED:
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        if not await self._rulings.begin(sched, by):
            raise ScheduleError("not_open", schedule=sched.id, status=(await fresh(self.store, sched.id)).public_status)
        return await fresh(self.store, sched.id)

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
