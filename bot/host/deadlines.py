"""A correspondence match's deadlines are a durable job (`bot.jobs`, kind `corr`, key `corr:<match id>`).

One job per match, due at the match's next deadline as an absolute time: the reminder at `remind` of the time
for the move, the loss on time, the end of a player's vacation, or the end of a rule's window of seconds (a
take-back window; while the match is built those also run as its in-memory timers). The job is written in the
same transaction as the action that sets the clock (`MatchStore.write_batch(also=…)`, `create_match(also=…)`), so a
stored move and its new deadline commit together, fenced by the match's lease; a match that ends, or is
paused, drops it. Its handler (`bot.host.idle_matches`) wakes the match and lets the host's own ruling decide
from the stored clock: a move in time moved the job, and a second run finds nothing due.

A live (non-correspondence) match has no job: its clock runs on the in-memory timers alone (`memory_due`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.host.match import Live, next_due
from bot.jobs import JobQueue, NewJob
from bot.jobs import store as jobs
from bot.store.db import utcnow
from bot.store.matches import AlsoWrite
from bot.types import OVER_STATUSES, ClockKind, MatchStatus

KIND: Final = "corr"
"""The kind of a correspondence match's deadline job."""


def job_key(match_id: int) -> str:
    """The key of a match's deadline job."""
    return f"{KIND}:{match_id}"


def durable(live: Live) -> bool:
    """Whether a match's deadlines are a job: a correspondence match's (their times are absolute)."""
    return live.clocks.tc.kind == ClockKind.CORRESPONDENCE


def memory_due(live: Live, now: float) -> float | None:
    """What the match's in-memory timer waits for: every deadline of a live match; of a correspondence match
    only its rules' timers (seconds, while it is built): its clock and vacations are its job's."""
    if not durable(live):
        return next_due(live, now)
    if live.status == MatchStatus.PAUSED:
        return None
    return min(live.due.values(), default=None)


@dataclass(frozen=True)
class Write:
    """The write that keeps a match's job at its next deadline: put at `due`, or dropped (`due` None)."""

    match_id: int
    guild_id: int | None
    due: dt.datetime | None

    async def __call__(self, conn: AsyncConnection, match_id: int | None = None) -> None:
        key = job_key(self.match_id if match_id is None else match_id)
        if self.due is None:
            await jobs.cancel(conn, key)
            return
        job = NewJob(KIND, key, self.due, {"match": self.match_id if match_id is None else match_id}, self.guild_id)
        await jobs.put(conn, [job], utcnow())


def deadline_of(live: Live, now: float, wall: dt.datetime) -> Write | None:
    """The job write for a match as it stands at loop time `now` (wall clock `wall`); None: not a
    correspondence match."""
    if not durable(live):
        return None
    due = None if live.status in OVER_STATUSES else next_due(live, now)
    at = None if due is None else wall + dt.timedelta(seconds=max(0.0, due - now))
    return Write(live.id, live.guild_id, at)


class DeadlineJobs:
    """A service's correspondence deadline jobs: the queue that runs them (the process's one runner, given by
    the composition root, or the service's own) and the writes that keep them."""

    def __init__(self, engine: AsyncEngine, wall: Callable[[], dt.datetime], *, owner: str | None = None) -> None:
        # its jobs are written here: it knows when to look
        self.queue = JobQueue(engine, clock=wall, poll_s=None, owner=owner)
        self.own = True
        """Whether the service started the queue (and stops it when it closes)."""

    def use(self, queue: JobQueue) -> None:
        """Run the deadlines on the process's one jobs runner (started and stopped by its owner)."""
        self.queue, self.own = queue, False

    def written(self, write: Write | None) -> None:
        """A job write committed: the runner looks again if the deadline is sooner than it sleeps."""
        if write is not None:
            self.queue.due_at(write.due)

    @staticmethod
    def with_create(write: Write | None, also: AlsoWrite | None) -> AlsoWrite | None:
        """A new match's `also` write with its deadline job (the match id is known inside the transaction)."""
        if write is None:
            return also

        async def both(conn: AsyncConnection, match_id: int) -> None:
            await write(conn, match_id)
            if also is not None:
                await also(conn, match_id)

        return both
