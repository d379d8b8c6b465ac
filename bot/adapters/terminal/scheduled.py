"""`dmhost room --scheduled ID`: a DM stored with `dmhost schedule add`, hosted in the terminal.

The room waits for the appointment with the same scheduler core as the Discord bot: the check-in opens
(`NAME: here`), the match begins at the start time once both are here, the no-show rules apply, and the
result is recorded on the schedule (`dmhost schedule list` shows it with the match id). Lines typed
before the check-in opens are held until it does; moves typed before the match begins are held until it
does, so a whole DM can be piped in at once.

Two rooms for one DM: the first holds the DM's lease (`bot.compose.hold`) and hosts it; the other waits as a
standby. A `here` typed in either counts (the check-in lives in the database); the standby never runs the
DM's jobs and leaves once the DM has begun in the other room; should the other room stop first, the
standby takes the lease over and hosts the DM (its match too, if it had begun).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import shlex
from collections.abc import Callable
from typing import Any, Final, TextIO

from bot.adapters.terminal import words
from bot.adapters.terminal.room import SPEAKER, Room, RoomConfig, looks_like_move_with_colon
from bot.compose import Host, Scope
from bot.host.events import EventKind
from bot.host.service import HostError, HostEvent
from bot.opserrors import shown_url
from bot.schedule import Schedule, ScheduleError, ScheduleEvent, Scheduler, loop_wall
from bot.schedule.status import DECIDED, DONE, ScheduleEventKind, ScheduleStatus
from bot.schedule.when import iso
from bot.text import Text, plain
from bot.wording import terminal as answers
from bot.wording.schedule import refusal, say

POLL_S: Final = 30.0
"""How often the room looks at the database for changes made elsewhere (`dmhost schedule cancel`)."""
WAITING_POLL_S: Final = 1.0
"""How often, once the start time has come, a standby room looks whether the DM began in the other room."""
HERE_WORDS: Final = frozenset({"here", "i'm here", "im here"})
HOW: Final = answers.HOW_TO_CHECK_IN
DECIDED_KINDS: Final = (ScheduleEventKind.FINISHED, ScheduleEventKind.FORFEITED, ScheduleEventKind.CANCELLED)
"""The events of a DM that is over (with a result or without)."""


def is_here(text: str) -> bool:
    """Whether a line's text checks its speaker in."""
    return text.strip().lower().rstrip("!.") in HERE_WORDS


def _plain(value: Any) -> Any:
    """Event data as JSON: instants in ISO UTC."""
    if isinstance(value, dt.datetime):
        return iso(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


class ScheduledRoom:
    """A terminal room for one scheduled DM of no server: it waits for the appointment, takes the check-ins,
    and hosts the DM's match in the plain terminal room it holds (`room`), which prints the match and reads its
    moves."""

    def __init__(
        self,
        config: RoomConfig,
        host: Host,
        out: TextIO | None = None,
        *,
        shared: bool = False,
        wall: Callable[[], dt.datetime] | None = None,
    ) -> None:
        self.room = Room(config, host, out, shared=shared, listen=False)
        """The match's own room: it prints the host's events (handed over by `_on_event`) and reads the moves."""
        self.room.come_back = self.again
        self.config = config
        self.host = self.room.host
        self.service = self.room.service
        self.finished = self.room.finished
        self.host.bus.subscribe(self._on_event)  # `Stage.TELL`: before the scheduler records the end
        if config.scheduled is None:
            raise ValueError("a scheduled room needs config.scheduled")
        self.schedule_id: int = config.scheduled
        self._wall = wall
        self.scheduler: Scheduler | None = None
        self.schedule: Schedule | None = None
        self.done = asyncio.Event()
        self._changed = asyncio.Event()
        self._decided = False
        self._ended = False
        self._open = False
        """The check-in is open (said by the scheduler, or opened before this room started)."""
        self._terminated = False
        """SIGTERM: stop now, even while waiting for the appointment (the DM stays for the next room)."""
        self._standby = False
        """Another room holds the DM's lease: this one takes check-ins only, until it takes the lease over."""
        self._taking: asyncio.Task[None] | None = None
        self._begun = False
        """The DM's beginning was said ("DM #1 begins", or the room took up a DM already begun): lines held for
        the match are played only after it."""

    @property
    def match_id(self) -> int | None:
        """The DM's match (-1: not begun yet; None: before the room looked)."""
        return self.room.match_id

    @match_id.setter
    def match_id(self, match_id: int | None) -> None:
        self.room.match_id = match_id

    def emit(self, obj: dict[str, Any], text: str | Text | None = None) -> None:
        """One JSON line (with --events-json) or one human line."""
        self.room.emit(obj, text)

    def terminate(self) -> None:
        """Stop at once (SIGTERM): the room leaves its wait with the resume line; nothing is ruled."""
        self._terminated = True
        self._changed.set()
        self.room.terminate()

    # -- what happens ------------------------------------------------------------------
    async def _on_event(self, ev: HostEvent) -> None:
        if self.match_id == -1 and ev.kind == EventKind.STARTED:
            self.match_id = ev.match_id
        await self.room.on_event(ev)
        if ev.kind in (EventKind.FINISHED, EventKind.ABORTED):
            self._ended = True
            self._settle()
        self._changed.set()

    async def _on_schedule(self, ev: ScheduleEvent) -> None:
        if ev.schedule.id != self.schedule_id:
            return
        if self._standby and ev.kind == ScheduleEventKind.START_FAILED:
            return  # a standby never starts the DM: the room that hosts it does (its next look)
        self.schedule = ev.schedule
        if ev.kind == ScheduleEventKind.CHECKIN_OPEN:
            self._open = True
        elif ev.kind == ScheduleEventKind.FORFEITED and self.match_id == -1 and ev.schedule.match_id is not None:
            self.match_id = ev.schedule.match_id  # a no-show's match: what the room suggests afterwards names it
        elif ev.kind == ScheduleEventKind.RESCHEDULED and self.scheduler is not None:
            self._open = self.scheduler.wall() >= ev.schedule.checkin_opens
        text = say(ev.kind, ev.schedule, ev.data, how=HOW)
        if ev.kind in DECIDED_KINDS:
            self._decided = True
            if ev.kind == ScheduleEventKind.CANCELLED and ev.schedule.match_id is None:
                self._ended = True  # no match was played: nothing more will come
        # The host's `finished` line stays the last JSON line of a match: the schedule's own record of the
        # result is said in words only.
        if not (self.config.events_json and ev.kind in (ScheduleEventKind.FINISHED, ScheduleEventKind.FORFEITED)):
            data = {k: _plain(v) for k, v in ev.data.items()}
            self.emit({"event": "schedule", "kind": ev.kind, "schedule": self.schedule_id, **data, "text": text}, text)
        if ev.kind == ScheduleEventKind.STARTED:
            self._begun = True  # said: the held moves may follow
        self._settle()
        self._changed.set()

    def _settle(self) -> None:
        if self._decided and self._ended:
            self.done.set()

    # -- running -----------------------------------------------------------------------
    async def run(self, lines: asyncio.Queue[str | None]) -> int:
        """Wait for the DM, host it, record it; returns the exit code."""
        try:
            if self.config.analyse and self.room.owns_service:  # as `dmhost room`: the match's analysis is stored
                self.room.analysis = self.host.start_analysis(catch_up=False)
            code = await self._run(lines)
            if self.finished.is_set() and not self._terminated:
                await self.room.await_analysis(lines)
            return code
        finally:
            if self._taking is not None:
                self._taking.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._taking
            if self.scheduler is not None:
                await self.scheduler.close()
            if self.room.analysis is not None:
                await self.room.analysis.close()
            await self.host.close()

    async def _run(self, lines: asyncio.Queue[str | None]) -> int:
        await self.service.store.open()  # migrations (idempotent)
        self.scheduler = self.host.scheduler(  # this DM's jobs only: other DMs wait for their own room
            only=self.schedule_id, wall=self._wall or loop_wall(), poll_seconds=POLL_S
        )
        self.host.bus.subscribe(self._on_schedule, topic=ScheduleEvent)
        sched = await self.scheduler.find(self.schedule_id)
        if sched is None:
            raise HostError(answers.no_schedule(self.schedule_id, shown_url(self.config.db_url)))
        if sched.guild_id is not None:
            raise HostError(answers.discord_dm(sched.id))
        if sched.public_status in DECIDED:
            raise HostError(answers.nothing_to_host(sched.id, sched.public_status))
        self.schedule = sched
        if self.config.lease:
            self._standby = await self.host.hold(Scope.SCHEDULE, self.schedule_id) is not None
        if self._standby:
            if sched.status == ScheduleStatus.STARTED:
                self._elsewhere(sched)
                return 0
            self.scheduler.starter = self._not_here
        if sched.status == ScheduleStatus.STARTED and sched.match_id is not None:
            self.match_id = sched.match_id  # the room stopped during the match: it goes on, clocks included
            self._begun = True
            await self.service.start(select=lambda m: m.id == sched.match_id)
            await self.room.tell_untold(sched.match_id)  # what a room that died before printing it still owes
        else:
            self.match_id = -1
            await self.service.start(select=lambda _m: False)
            opening = None if self.scheduler.wall() >= sched.checkin_opens else iso(sched.checkin_opens)
            opens = answers.checkin(opening, HOW)  # never a check-in time already past
            text = (
                plain(say(ScheduleEventKind.SCHEDULED, sched, {})) + f" {opens}"
                if sched.status == ScheduleStatus.SCHEDULED
                else None
            )
            self.emit(
                {
                    "event": "schedule",
                    "kind": "waiting_room",
                    "schedule": sched.id,
                    "at": iso(sched.at),
                    "checkin": iso(sched.checkin_opens),
                    "players": [p.name for p in sched.players],
                    "text": text,
                },
                text,
            )
        if self._standby:
            text = answers.standby(sched.id)
            self.emit({"event": "schedule", "kind": "standby", "schedule": sched.id, "text": text}, text)
            self._taking = asyncio.create_task(self._take_over(), name="scheduled-room-standby")
        else:
            await self.host.catch_up()  # a match that ended while no room listened is rated here
            await self.scheduler.start()  # ... and recorded here
            await self.scheduler.run_due()  # what is due already (the check-in) is said before any line is read
        fresh = await self.scheduler.find(self.schedule_id)
        if fresh is not None and fresh.public_status in DECIDED:
            self._decided = self._ended = True
            self._settle()
        self._open = self._open or self.scheduler.wall() >= sched.checkin_opens
        return await self._wait_and_play(lines)

    async def _not_here(self, sched: Schedule) -> int:
        """The standby's starter: the DM's match is started by the room that holds its lease, which finds a
        start job due now (at its next look at the database, within `POLL_S`)."""
        assert self.scheduler is not None
        await self.scheduler.start_soon(sched)
        raise HostError(answers.dm_hosted_elsewhere(sched.id))

    async def _take_over(self) -> None:
        """The standby: once the other room has stopped, take the DM's lease and host it from where it is."""
        assert self.host.lease is not None and self.scheduler is not None
        await self.host.lease.wait(self.service)
        self._standby = False
        self.scheduler.starter = None
        fresh = await self.scheduler.find(self.schedule_id)
        if fresh is None or self._decided:
            return
        if fresh.public_status in DECIDED:
            self._elsewhere(fresh)
            return
        if fresh.status == ScheduleStatus.STARTED and fresh.match_id is not None:
            match_id = fresh.match_id
            await self.service.resume_owned(select=lambda m: m.id == match_id)
            self.match_id = match_id
            self._begun = True
            await self.room.tell_untold(match_id)
        text = answers.hosting_now(fresh.id)
        self.emit({"event": "schedule", "kind": "hosting", "schedule": fresh.id, "text": text}, text)
        await self.host.catch_up()
        await self.scheduler.start()
        await self.scheduler.run_due()
        self._changed.set()

    def _elsewhere(self, fresh: Schedule) -> None:
        """The DM began (or was decided) in another room: this room stops."""
        text = answers.dm_elsewhere(fresh.id, fresh.public_status)
        self.emit({"event": "schedule", "kind": "elsewhere", "schedule": fresh.id, "status": fresh.public_status}, text)
        self._decided = self._ended = True
        self._settle()

    def taken_over(self) -> int:
        """The DM's lease was taken over: another room hosts it now; one line, exit 2."""
        text = answers.dm_taken_over(self.schedule_id)
        self.emit({"event": "schedule", "kind": "taken_over", "schedule": self.schedule_id, "text": text}, text)
        return 2

    def _lost(self) -> bool:
        return self.host.lease is not None and self.host.lease.lost.is_set()

    def _playing(self) -> bool:
        return self.match_id not in (None, -1)

    def _checkin_open(self) -> bool:
        return self._open

    async def _wait_and_play(self, lines: asyncio.Queue[str | None]) -> int:
        early: list[str] = []  # before the check-in opens
        held: list[str] = []  # for the match, before it begins
        eof = False
        getter: asyncio.Future[str | None] | None = None
        try:
            while not self.done.is_set():
                if self._terminated:
                    return self._eof()
                if self._lost():
                    return self.taken_over()
                if self._playing() and self._begun:  # "DM #N begins" first, then the moves held for it
                    pending, early, held = early + held, [], []
                    for line in pending:
                        await self.room.handle_line(line)
                    if self.done.is_set():
                        break
                    if eof and not self.finished.is_set():
                        return self._eof()
                elif early and self._checkin_open():
                    pending, early = early, []
                    for line in pending:
                        await self._before_start(line, held)
                if getter is None and not eof:
                    getter = asyncio.ensure_future(lines.get())
                waits: set[asyncio.Future[Any]] = {
                    asyncio.ensure_future(self.done.wait()),
                    asyncio.ensure_future(self._changed.wait()),
                }
                if self.host.lease is not None:
                    waits.add(asyncio.ensure_future(self.host.lease.lost.wait()))
                if getter is not None:
                    waits.add(getter)
                await asyncio.wait(waits, timeout=self._next_look(), return_when=asyncio.FIRST_COMPLETED)
                for w in waits:
                    if w is not getter:
                        w.cancel()
                self._changed.clear()
                if self._terminated:
                    return self._eof()
                if self._lost():
                    return self.taken_over()
                if getter is not None and getter.done():
                    got = getter.result()
                    getter = None
                    if got is None:
                        eof = True
                    elif self._playing() and self._begun:
                        await self.room.handle_line(got)
                        if self.room.left:
                            return 0
                    elif self._playing():
                        held.append(got)  # the match exists, its beginning is not said yet: it waits a moment
                    elif got == words.INTERRUPT or words.is_leave(SPEAKER.sub(r"\2", got.rstrip("\r\n"))):
                        self.room.leave("interrupt" if got == words.INTERRUPT else "quit", self.again())
                        return 0
                    elif self._checkin_open():
                        await self._before_start(got, held)
                    else:
                        early.append(got)
                if not self._playing():
                    await self._look_again()
        finally:
            if getter is not None:
                getter.cancel()
        return 0

    def schedule_opens(self) -> dt.datetime:
        """When the check-in opens (never, for a room without its DM yet)."""
        return self.schedule.checkin_opens if self.schedule is not None else dt.datetime.max.replace(tzinfo=dt.UTC)

    def _next_look(self) -> float:
        """Seconds until the check-in opens (to take up held lines then), at most POLL_S; a standby room also
        looks again at the start, when the DM begins in the other room (not up to POLL_S after it)."""
        if self.schedule is None or self.scheduler is None or self._playing():
            return POLL_S
        now = self.scheduler.wall()
        if self._standby and now >= self.schedule.at:
            return WAITING_POLL_S  # the DM may begin in the other room any moment: leave soon after
        opens = (self.schedule.checkin_opens - now).total_seconds()
        if opens > 0:
            return min(POLL_S, opens)
        if self._standby:
            return min(POLL_S, (self.schedule.at - now).total_seconds())
        return POLL_S

    async def _look_again(self) -> None:
        """Changes made elsewhere: a reschedule moves the check-in; a cancel ends the room."""
        assert self.scheduler is not None
        if not self._open and self.scheduler.wall() >= self.schedule_opens():
            # Its time has come: this room's scheduler says so if it claims the job; if another room for the
            # same DM claimed it, the check-in is open here all the same (the `here`s live in the database).
            if not self._standby:
                await self.scheduler.run_due()
            elif self.schedule is not None and self.schedule.status == ScheduleStatus.SCHEDULED:
                # The standby runs no job, yet the check-in opens in both rooms: it says so too (its own line,
                # as the hosting room's scheduler says it there).
                await self._on_schedule(ScheduleEvent(ScheduleEventKind.CHECKIN_OPEN, self.schedule, {}))
            self._open = True
        fresh = await self.scheduler.find(self.schedule_id)
        if fresh is None:
            return
        self.schedule = fresh
        if fresh.public_status == ScheduleStatus.CANCELLED and not self._decided:
            await self._on_schedule(ScheduleEvent(ScheduleEventKind.CANCELLED, fresh, {"reason": fresh.result_reason}))
        elif (
            (
                (fresh.status == ScheduleStatus.STARTED and fresh.match_id is not None)
                or (self._standby and fresh.public_status in DONE)
            )
            and not self._decided
            and not self._playing()
        ):
            # Another room for this DM began it (or ruled it): that room hosts it; this one leaves.
            self._elsewhere(fresh)

    async def _check_in(self, player_id: str) -> None:
        """A `here`. In a standby room once the start time has come, the check-in is only written (with a start
        job due now): the room that hosts the DM begins it at its next look, never this one."""
        assert self.scheduler is not None and self.schedule is not None
        if not self._standby or self.scheduler.wall() < self.schedule.at:
            await self.scheduler.check_in(self.schedule_id, player_id)
            return
        sched = await self.scheduler.get(self.schedule_id)
        seat = sched.seat_of(player_id)
        if sched.status != ScheduleStatus.SCHEDULED or seat is None:
            raise ScheduleError("not_open", schedule=sched.id, status=sched.public_status)
        fresh = await self.scheduler.note_here(sched, seat)
        await self._on_schedule(ScheduleEvent(ScheduleEventKind.CHECKED_IN, fresh, {"seat": seat}))

    def again(self) -> str:
        """The command that continues this DM (before, during or after its match begins)."""
        return f"dmhost room --db {shlex.quote(shown_url(self.config.db_url))} --scheduled {self.schedule_id}"

    def _eof(self) -> int:
        self.emit(
            {"event": "eof", "match": self.match_id, "text": answers.EOF_EVENT},
            answers.end_of_input(self.again(), scheduled=True),
        )
        return 0

    async def _before_start(self, raw: str, held: list[str]) -> None:
        """A line while the check-in is open: `NAME: here` checks NAME in; anything else waits for the match."""
        assert self.scheduler is not None and self.schedule is not None
        line = raw.rstrip("\r\n")
        if not line.strip():
            return
        m = SPEAKER.match(line)
        player = None
        if m is not None:
            player = next((p for p in self.schedule.players if p.name.lower() == m.group(1).strip().lower()), None)
        if player is not None and m is not None and is_here(m.group(2)):
            try:
                await self._check_in(player.id)
            except ScheduleError as exc:
                said = refusal(exc.code, exc.data)
                self.emit(
                    {"event": "rejected", "schedule": self.schedule_id, "player": player.name, "reason": said},
                    answers.aside(player.name, said),
                )
            return
        if m is None and is_here(line):
            said = answers.SAY_WHO
            self.emit({"event": "ignored", "schedule": self.schedule_id, "reason": said}, f"({said})")
            return
        if m is not None and player is None and not looks_like_move_with_colon(line):
            self.emit(
                {
                    "event": "ignored",
                    "schedule": self.schedule_id,
                    "player": m.group(1).strip()[:40],
                    "reason": "stranger",
                },
                answers.stranger(m.group(1)[:40], "DM"),
            )
            return
        held.append(line)
