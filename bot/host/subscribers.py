"""Who hears the host's events, and when (the subscriber contract is in `bot.host.events`).

Two kinds of listener:

- **Inline** (the faces: rooms, announcers): called with every event in order, inside the match's lock,
  before the action that made it returns.
- **After the commit** (a finished match's consequences: its rating, its tournament's, scheduled DM's and
  series' next step): marked with
  `@after_commit(kinds...)`. The host only appends the event to that listener's own queue (never
  waits); the listener's own task drains it, off every match's lock, in the order the events were
  committed. A `batch=True` listener is called once with everything queued since its last call (the
  ratings rate them in one transaction); the others once per event. A consequence listener must be
  idempotent and caught up at start from the stored matches: its queue is in memory and dies with the
  process.

Stages: a consequence may need another's done first (the tournaments, the schedules and the series move
on only after the ratings have rated the same finish). The composition root's bus marks each with its stage
(`at_stage`): before a listener handles what it took from its queue, every queue of an earlier stage has
handled at least everything it had been given by then (a watermark, so a busy earlier stage never starves
a later one).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.host.events import HostEvent, Listener

__all__ = ["AfterCommit", "BatchListener", "Consequences", "Staged", "Subscribers", "after_commit", "at_stage"]

log = logging.getLogger(__name__)

BatchListener = Callable[[Sequence[HostEvent]], Awaitable[None]]
"""An after-commit listener with `batch=True`: called with every event queued since its last call."""

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class AfterCommit:
    """The mark of an after-commit listener: the event kinds it wants, and whether it takes them in batches."""

    kinds: frozenset[str]
    batch: bool = False
    stage: int = 0
    """Handled only once every queue of a lower stage has caught up with it (`at_stage`)."""


def after_commit(*kinds: str, batch: bool = False) -> Callable[[F], F]:
    """Mark a listener (function or method) as a consequence of committed events of `kinds`: it runs in its
    own task after the commit, never on the move path (see the module docstring)."""

    def mark(fn: F) -> F:
        fn.after_commit = AfterCommit(frozenset(kinds), batch)  # type: ignore[attr-defined]
        return fn

    return mark


class Staged:
    """An after-commit listener at a stage (`at_stage`): calls it, and carries its mark with that stage."""

    def __init__(self, listener: Callable[[Any], Any], mark: AfterCommit, stage: int) -> None:
        self.listener = listener
        self.after_commit = AfterCommit(mark.kinds, mark.batch, stage)

    def __call__(self, arg: Any) -> Any:
        return self.listener(arg)

    def __repr__(self) -> str:
        return f"{self.listener!r} at stage {self.after_commit.stage}"


def at_stage(listener: Callable[[Any], Any], stage: int) -> Staged:
    """An after-commit listener that runs after every queue of a lower stage has handled what it was given
    (see the module docstring); `listener` must carry an `after_commit` mark."""
    mark = mark_of(listener)
    if mark is None:
        raise ValueError(f"{listener!r} is not an after-commit listener")
    return Staged(listener, mark, stage)


def mark_of(listener: Any) -> AfterCommit | None:
    """The `after_commit` mark of a listener (a bound method reads its function's), else None (inline)."""
    mark = getattr(listener, "after_commit", None)
    return mark if isinstance(mark, AfterCommit) else None


class Consequences:
    """One after-commit listener's queue and the task that drains it."""

    def __init__(self, listener: Callable[[Any], Any], mark: AfterCommit, before: Sequence[Consequences] = ()) -> None:
        self.listener = listener
        self.mark = mark
        self.before = list(before)
        """The queues of lower stages: caught up with before each call (`at_stage`)."""
        self._queue: list[HostEvent] = []
        self._task: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self.given = 0
        """How many events were queued so far."""
        self.handled = 0
        """How many of them were handled (or dropped at a cancel)."""
        self._progress = asyncio.Event()

    def put(self, event: HostEvent) -> None:
        """Queue an event of a kind the listener wants (never waits)."""
        if event.kind not in self.mark.kinds:
            return
        self._queue.append(event)
        self.given += 1
        self._idle.clear()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._drain_queue(), name="consequences")

    @property
    def busy(self) -> bool:
        """Whether events are queued or being handled."""
        return bool(self._queue) or self._task is not None

    async def reached(self, count: int) -> None:
        """Wait until the first `count` events given to this queue are handled."""
        while self.handled < count:
            self._progress.clear()
            await self._progress.wait()

    def _handled(self, n: int) -> None:
        self.handled += n
        self._progress.set()

    async def _drain_queue(self) -> None:
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                for earlier in self.before:  # they were given these events (and their own) by now
                    await earlier.reached(earlier.given)
                if self.mark.batch:
                    await self._call(batch, batch)
                    self._handled(len(batch))
                else:
                    for ev in batch:
                        await self._call(ev, [ev])
                        self._handled(1)
        finally:
            self._task = None
            if self._queue:  # cancelled with events still queued: they are owed (caught up at the next start)
                log.warning("%d event(s) left unhandled by %r", len(self._queue), self.listener)
                self._queue = []
            self._handled(self.given - self.handled)  # nothing more will be: a later stage waits no longer
            self._idle.set()

    async def _call(self, arg: Any, events: Sequence[HostEvent]) -> None:
        try:
            result = self.listener(arg)
            if asyncio.iscoroutine(result):
                await result
        except Exception:
            log.exception("listener failed for %s", ", ".join(f"{e.kind} of match {e.match_id}" for e in events))

    async def drained(self) -> None:
        """Wait until every event queued so far has been handled (and whatever they queued meanwhile)."""
        await self._idle.wait()

    async def cancel(self) -> None:
        """Stop the task (what it still held is caught up at the next start)."""
        task = self._task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class Subscribers:
    """The host's listeners: inline ones called in order, after-commit ones fed to their queues."""

    def __init__(self) -> None:
        self.inline: list[Listener] = []
        self.queues: list[Consequences] = []

    def add(self, listener: Listener | BatchListener) -> None:
        """Register a listener (after the commit when it carries an `after_commit` mark)."""
        mark = mark_of(listener)
        if mark is None:
            self.inline.append(listener)  # type: ignore[arg-type]
            return
        queue = Consequences(listener, mark, [q for q in self.queues if q.mark.stage < mark.stage])
        for later in self.queues:
            if later.mark.stage > mark.stage:
                later.before.append(queue)
        self.queues.append(queue)

    async def publish(self, event: HostEvent) -> None:
        """Queue the event for every after-commit listener (first: their order is the commit order), then
        call the inline ones; a listener that raises is logged and skipped."""
        for queue in self.queues:
            queue.put(event)
        for listener in list(self.inline):
            try:
                result = listener(event)
                if asyncio.iscoroutine(result):
                    await result
            except Exception:
                log.exception("listener failed for %s in match %s", event.kind, event.match_id)

    async def drained(self) -> None:
        """Wait until every after-commit listener has handled what was queued (one may queue for another:
        looked at again until all are idle at once)."""
        while any(q.busy for q in self.queues):
            for queue in list(self.queues):
                await queue.drained()

    async def close(self) -> None:
        """Let the queues finish what they hold, then stop their tasks."""
        await self.drained()
        for queue in self.queues:
            await queue.cancel()
