"""The end of a scheduled DM's match, recorded on the DM once (a host-event subscriber's work).

`Ends` is an object the `Scheduler` (`bot.schedule.core`) holds, given the store, the match service, the wall
clock and the `Herald` that says its events. An end that cannot be recorded (a failed or ambiguous commit) is
owed, and tried again every OWED_RETRY_S until it is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Callable, Sequence
from typing import Any

from bot.host.match import HostEvent
from bot.host.service import MatchService
from bot.schedule.rulings import OWED_RETRY_S, Herald, fresh
from bot.schedule.status import ScheduleEventKind, ScheduleStatus
from bot.schedule.store import Schedule, ScheduleStore
from bot.types import MatchStatus

log = logging.getLogger(__name__)


class Ends:
    """Records the ends of DMs' matches: finished with a winner, or cancelled when aborted."""

    def __init__(
        self,
        store: ScheduleStore,
        service: MatchService | None,
        wall: Callable[[], dt.datetime],
        herald: Herald,
    ) -> None:
        self.store = store
        self.service = service
        self.wall = wall
        self.herald = herald
        self._owed: set[int] = set()
        """Matches whose end could not be recorded (a failed or ambiguous commit): retried until recorded."""
        self._settling: asyncio.Task[None] | None = None

    async def record(self, events: Sequence[HostEvent]) -> None:
        """The scheduled DMs whose matches ended record their results, every end since the last call looked
        up at once. Idempotent: only a `started` DM changes (a second delivery, or the catch-up at `start`,
        finds it recorded)."""
        ids = list(dict.fromkeys(ev.match_id for ev in events))
        try:
            started = await self.store.started_of(ids)
        except Exception:
            log.exception("looking up the ends of %d match(es) failed; trying again", len(ids))
            self._owe(ids)
            return
        for match_id in ids:
            sched = started.get(match_id)
            if sched is None:
                continue
            try:
                await self.match_over(match_id, sched)
            except Exception:
                log.exception("recording the end of match %s failed; trying again", match_id)
                self._owe([match_id])

    def _owe(self, match_ids: Sequence[int]) -> None:
        self._owed.update(match_ids)
        if self._settling is None or self._settling.done():
            self._settling = asyncio.create_task(self._settle_owed(), name="schedule-owed")

    async def _settle_owed(self) -> None:
        """Record the ends that could not be recorded (idempotent: only a `started` DM changes), every
        OWED_RETRY_S until none is left."""
        while self._owed:
            await asyncio.sleep(OWED_RETRY_S)
            for match_id in sorted(self._owed):
                try:
                    await self.match_over(match_id)
                    self._owed.discard(match_id)
                except Exception:
                    log.exception("recording the end of match %s failed again", match_id)

    async def stop(self) -> None:
        """Stop retrying (what is still owed is recorded by the next start's catch-up)."""
        task, self._settling = self._settling, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def match_over(self, match_id: int, sched: Schedule | None = None) -> None:
        """Record the end of a DM's match (`sched`: its DM, already read)."""
        if sched is None:
            sched = await self.store.by_match(match_id)
        if sched is None or sched.status != ScheduleStatus.STARTED or self.service is None:
            return
        stored = await self.service.store.load(match_id)
        if stored is None or stored.status not in (MatchStatus.FINISHED, MatchStatus.ABORTED):
            return
        winner: int | None = None
        if stored.winner_seat in stored.players:
            winner = sched.seat_of(stored.players[stored.winner_seat][0])
        now = self.wall()
        if stored.status == MatchStatus.ABORTED:
            values: dict[str, Any] = {
                "status": ScheduleStatus.CANCELLED,
                "result_reason": "aborted",
                "finished_at": now,
            }
        else:
            values = {
                "status": ScheduleStatus.FINISHED,
                "winner_seat": winner,
                "result_reason": stored.result_reason,
                "finished_at": now,
            }
        if await self.store.change(sched.id, values, only_if={"status": ScheduleStatus.STARTED}):
            sched = await fresh(self.store, sched.id)
            kind = ScheduleEventKind.CANCELLED if stored.status == MatchStatus.ABORTED else ScheduleEventKind.FINISHED
            await self.herald.emit(kind, sched, winner=winner, reason=sched.result_reason, match=match_id, by=None)
