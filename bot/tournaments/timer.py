"""The timer: what falls due in the tournaments this process owns (automatic starts, each game's start time,
no-show rulings, claims left by a stopped process), and the catch-up after a restart."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.tournaments.due import Due

log = logging.getLogger(__name__)


class Timer(Due):
    """The timer task and the catch-up."""

    async def start(self) -> None:
        """`listen()`, `catch_up()`, then the timer task (`run()`): for a process whose host service has started."""
        self.listen()
        await self.catch_up()
        self.run()

    def run(self) -> None:
        """Start the timer task: automatic starts, games' start times and no-show rulings, as they fall due."""
        self._closed = False
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._timer(), name="tournament-timer")

    async def close(self) -> None:
        """Stop the timer task (everything stays in the database)."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def wake(self) -> None:
        """Something may have fallen due sooner than the timer sleeps: look again now."""
        self._dirty = True
        if self._sleeping and self._task is not None and not self._closed:
            self._task.cancel()  # only ever while it sleeps, never in the middle of its work
            self._task = asyncio.create_task(self._timer(), name="tournament-timer")

    async def _due_changed(self, tid: int, *, soon: bool = False) -> None:
        """Something may fall due sooner than the timer sleeps: it looks again now."""
        self.wake()

    def _owe(self) -> None:
        """A result the database did not take: the timer settles it."""
        self.owed = True
        self.wake()

    async def _timer(self) -> None:
        while not self._closed:
            self._dirty = False
            try:
                await self.settle_owed()
                nxt = await self.run_due()
            except Exception:
                log.exception("tournament timer failed")
                nxt = None
            if self._dirty:
                continue
            wait = self.poll_seconds
            if nxt is not None:
                # still due after acting: something failed (it was logged); try again in a second, not at once
                wait = min(wait, (nxt - self.wall()).total_seconds())
                wait = wait if wait > 0 else 1.0
            self._sleeping = True
            try:
                await asyncio.sleep(wait)
            finally:
                self._sleeping = False
