"""What a scheduled DM's time brings, once: the match begun, a no-show ruled on.

`Rulings` is an object the `Scheduler` (`bot.schedule.core`) holds, given the store, the match service, the
wall clock and the `Herald` that says its events. Every step here must happen once however many processes
run: it is claimed first with a conditional UPDATE on the DM (`… WHERE status = 'scheduled'`) and carried out
under a token that the match's own transaction checks.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from bot.host.match import HostError
from bot.host.service import MatchService
from bot.schedule.status import CLAIMED, ScheduleEventKind, ScheduleStatus
from bot.schedule.store import Schedule, ScheduleStore
from bot.store.matches import AlsoWrite

log = logging.getLogger(__name__)

STALE_S: Final = 300.0
"""A DM left half-started or half-ruled this long (its process stopped in the middle) is taken up again."""
OWED_RETRY_S: Final = 1.0
"""A match end that could not be recorded is tried again this often."""


class ScheduleError(Exception):
    """A refused request; `code` names it for the wording, `data` the facts it needs."""

    def __init__(self, code: str, **data: Any) -> None:
        super().__init__(code)
        self.code = code
        self.data = data


@dataclass(frozen=True)
class ScheduleEvent:
    """Something about a scheduled DM that the players, the host or the room should hear."""

    kind: ScheduleEventKind
    schedule: Schedule
    data: dict[str, Any] = field(default_factory=dict)


Listener = Callable[[ScheduleEvent], Awaitable[None] | None]
Starter = Callable[[Schedule], Awaitable[int]]
"""Creates the match of a DM whose time has come; returns the match id."""
AdvantageResolver = Callable[[Schedule], Awaitable[int | None]]
"""Turns an advantage rule that is not a seat (such as `lower-rated`) into seat 1 or 2 (ratings seam)."""


class Herald:
    """Says a scheduler's events to `publish` (the composition root's bus, `Bus.tell`); a listener that fails
    is logged, never raised into the step that happened."""

    def __init__(self) -> None:
        self.publish: Listener | None = None
        """Where the events go; None: nobody hears them."""

    async def emit(self, kind: ScheduleEventKind, sched: Schedule, **data: Any) -> None:
        """Say one event about `sched`."""
        ev = ScheduleEvent(kind, sched, data)
        if self.publish is None:
            return
        try:
            result = self.publish(ev)
            if asyncio.iscoroutine(result):
                await result
        except Exception:
            log.exception("schedule event failed for %s of schedule %s", kind, sched.id)


async def fresh(store: ScheduleStore, schedule_id: int) -> Schedule:
    """A DM as stored now; ScheduleError `unknown` when there is none."""
    sched = await store.get(schedule_id)
    if sched is None:
        raise ScheduleError("unknown", schedule=schedule_id)
    return sched


class Rulings:
    """The steps a DM's time brings, each done once: beginning its match, ruling on a no-show."""

    def __init__(
        self,
        store: ScheduleStore,
        service: MatchService | None,
        wall: Callable[[], dt.datetime],
        herald: Herald,
        starter: Starter | None = None,
        advantage: AdvantageResolver | None = None,
    ) -> None:
        self.store = store
        self.service = service
        self.wall = wall
        self.herald = herald
        self.starter = starter
        """Creates a DM's match instead of the host service (a face's hook: the Discord room, a standby room)."""
        self.advantage = advantage
        """Turns an advantage rule that is not a seat into a seat (the ratings seam)."""

    async def _claim(self, sched: Schedule, claim: dict[str, Any]) -> bool:
        """Move a DM from `scheduled` to a claim (`starting` or `forfeiting` with a fresh token): whether this
        process holds it now. A commit reported lost is read back: the claim stands if the DM carries its
        token (it committed after all); otherwise the error is raised (nothing claimed: tried again soon)."""
        try:
            return await self.store.change(sched.id, claim, only_if={"status": ScheduleStatus.SCHEDULED})
        except Exception:
            fresh = await self.store.get(sched.id)
            if fresh is not None and (fresh.status, fresh.start_token) == (claim["status"], claim["start_token"]):
                log.warning("schedule %s: the database reported an error, but the claim was stored", sched.id)
                return True
            raise

    async def begin(self, sched: Schedule, by: str | None) -> bool:
        """Create the match (once: the DM moves from `scheduled` to `starting` by a conditional update)."""
        token = uuid.uuid4().hex
        claim = {"status": ScheduleStatus.STARTING, "start_token": token}
        if not await self._claim(sched, claim):
            return False
        sched = dataclasses.replace(sched, status=ScheduleStatus.STARTING, start_token=token)
        await self._fallback(sched, "start", claim)
        try:
            match_id = await self._create_match(sched, by)
        except Exception as exc:
            log.exception("schedule %s: the match could not be started", sched.id)
            await self.store.change(sched.id, {"status": ScheduleStatus.SCHEDULED}, only_if=claim)
            await self.herald.emit(
                ScheduleEventKind.START_FAILED, sched, reason=str(exc) if isinstance(exc, HostError) else None
            )
            return False
        # Recorded already in the match's own transaction (`recorder`), unless a starter created it otherwise.
        await self.store.change(sched.id, {"status": ScheduleStatus.STARTED, "match_id": match_id}, only_if=claim)
        await self.store.retire_jobs(sched.id, self.wall())
        sched = await fresh(self.store, sched.id)
        await self.herald.emit(ScheduleEventKind.STARTED, sched, match=match_id, by=by)
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
            also=self._recorder(sched, {"status": ScheduleStatus.STARTED}),
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
                await self.store.change(sched.id, {"status": ScheduleStatus.SCHEDULED}, only_if=claim)
            raise

    def _recorder(self, sched: Schedule, values: dict[str, Any]) -> AlsoWrite | None:
        """The write that records the match with the claim under way (None: no claim, as for a plain call)."""
        if sched.start_token is None or sched.status not in CLAIMED:
            return None
        return self.store.recorder(sched.id, sched.start_token, values)

    async def seat_advantage(self, sched: Schedule) -> int | None:
        """The seat with the advantage (a rule such as `lower-rated` goes through the resolver)."""
        if sched.advantage in ("1", "2"):
            return int(sched.advantage)
        if sched.advantage and self.advantage is not None:
            return await self.advantage(sched)
        return None

    async def rule_no_show(self, sched: Schedule) -> None:
        """The wait is over: both here begins the match, nobody here cancels the DM, one here wins it."""
        here = [seat for seat in (1, 2) if sched.here[seat - 1] is not None]
        if len(here) == 2:
            await self.begin(sched, None)
            return
        if not here:
            if await self.store.change(
                sched.id,
                {"status": ScheduleStatus.CANCELLED, "result_reason": "no_show"},
                only_if={"status": ScheduleStatus.SCHEDULED},
            ):
                await self.store.retire_jobs(sched.id, self.wall())
                cancelled = await fresh(self.store, sched.id)
                await self.herald.emit(ScheduleEventKind.CANCELLED, cancelled, by=None, reason="no_show")
            return
        winner = here[0]
        token = uuid.uuid4().hex
        claim = {"status": ScheduleStatus.FORFEITING, "start_token": token}
        if not await self._claim(sched, claim):
            return
        sched = dataclasses.replace(sched, status=ScheduleStatus.FORFEITING, start_token=token)
        await self._fallback(sched, "noshow", claim)
        match_id: int | None = None
        now = self.wall()
        result = {
            "status": ScheduleStatus.FORFEITED,
            "winner_seat": winner,
            "result_reason": "no_show",
            "finished_at": now,
        }
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
        forfeited = await fresh(self.store, sched.id)
        await self.herald.emit(ScheduleEventKind.FORFEITED, forfeited, winner=winner, match=match_id)
