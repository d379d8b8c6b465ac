"""Who hears the host's events, and when (the subscriber contract is in `bot.host.events`): the machinery the
composition root's bus (`bot.compose.Bus`, the host service's `Outlet`) keeps its after-commit queues with.

Two kinds of listener:

- **Inline** (the faces: rooms, announcers): called with every event in order, inside the match's lock,
  before the action that made it returns.
- **After the commit** (a finished match's consequences: its rating, its tournament's, scheduled DM's and
  series' next step): marked with
  `@after_commit(kinds...)`. The host only appends the event to that listener's own queue (never
  waits); the listener's own task drains it, off every match's lock, in the order the events were
  committed. A `batch=True` listener is called once with everything queued since its last call, at most
  once per `BATCH_GAP_S` (the ratings rate them in one transaction); the others once per event. A
  consequence listener must be idempotent and caught up at start from the stored matches: its queue is in
  memory and dies with the process.

Stages: a consequence may need another's done first (the tournaments, the schedules and the series move
on only after the ratings have rated the same finish). The composition root's bus marks each with its stage
(`at_stage`): an event reaches the queues of a stage once every queue of the earlier stages that wanted it
has handled it (they hand it on; nobody waits for anybody), so a later stage hears an event in the order
the earlier stage finished with it, and an event no earlier stage wants at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar

from bot.host.events import HostEvent, Listener

__all__ = [
    "AfterCommit",
    "BatchListener",
    "Consequences",
    "Outlet",
    "Staged",
    "Subscribers",
    "Unheard",
    "after_commit",
    "at_stage",
]

log = logging.getLogger(__name__)

BATCH_GAP_S: Final = 0.1
"""A `batch=True` listener is called at most once in this time: the ends of a busy moment gather into fewer,
larger batches (one transaction for many matches) instead of one call per end."""

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


@dataclass
class _Relay:
    """An event on its way through the stages: how many queues of its current stage still hold it, and the
    queues of the later stages that want it, stage by stage."""

    event: HostEvent
    holding: int
    later: list[list[Consequences]]


class Consequences:
    """One after-commit listener's queue and the task that drains it."""

    def __init__(self, listener: Callable[[Any], Any], mark: AfterCommit, relay: Callable[[_Relay], None]) -> None:
        self.listener = listener
        self.mark = mark
        self._relay = relay
        """Hands an event on to its next stage once every queue of this one has handled it."""
        self._queue: list[_Relay] = []
        self._task: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._last: float | None = None
        """When the last batch was taken (loop time)."""

    def wants(self, event: HostEvent) -> bool:
        """Whether the listener hears events of this kind."""
        return event.kind in self.mark.kinds

    def put(self, relay: _Relay) -> None:
        """Queue an event (never waits)."""
        self._queue.append(relay)
        self._idle.clear()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._drain_queue(), name="consequences")

    @property
    def busy(self) -> bool:
        """Whether events are queued or being handled."""
        return bool(self._queue) or self._task is not None

    def _done(self, relay: _Relay) -> None:
        relay.holding -= 1
        if relay.holding == 0:
            self._relay(relay)

    async def _drain_queue(self) -> None:
        try:
            loop = asyncio.get_running_loop()
            while self._queue:
                if self.mark.batch and self._last is not None:  # at most one batch per BATCH_GAP_S
                    gap = self._last + BATCH_GAP_S - loop.time()
                    if gap > 0:
                        await asyncio.sleep(gap)
                self._last = loop.time()
                batch, self._queue = self._queue, []
                if self.mark.batch:
                    events = [r.event for r in batch]
                    await self._call(events, events)
                    for r in batch:
                        self._done(r)
                else:
                    for r in batch:
                        await self._call(r.event, [r.event])
                        self._done(r)
        finally:
            self._task = None
            if self._queue:  # cancelled with events still queued: they are owed (caught up at the next start)
                log.warning("%d event(s) left unhandled by %r", len(self._queue), self.listener)
                self._queue = []
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


class Outlet(Protocol):
    """Where the host service hands its stored events: the composition root's bus (`bot.compose.Bus`), which
    the root sets as the service's `outlet`. The host keeps no listeners of its own."""

    async def publish(self, event: HostEvent) -> None:
        """Hand a committed event on (inline listeners now, after-commit ones queued)."""

    async def drained(self) -> None:
        """Wait until every after-commit listener has handled what was queued so far."""

    async def close(self) -> None:
        """Let the after-commit queues finish, then stop their tasks."""


class Unheard:
    """The outlet of a service no bus listens to: its events go nowhere (`dmhost ratings`, the review pages)."""

    async def publish(self, event: HostEvent) -> None:
        """Nobody hears it."""

    async def drained(self) -> None:
        """Nothing is queued."""

    async def close(self) -> None:
        """Nothing to stop."""


class Subscribers:
    """The bus's listeners: inline ones called in order, after-commit ones fed to their queues."""

    def __init__(self) -> None:
        self.inline: list[Listener] = []
        self.queues: list[Consequences] = []

    def add(self, listener: Listener | BatchListener) -> None:
        """Register a listener (after the commit when it carries an `after_commit` mark)."""
        mark = mark_of(listener)
        if mark is None:
            self.inline.append(listener)  # type: ignore[arg-type]
            return
        self.queues.append(Consequences(listener, mark, self._relay))

    @staticmethod
    def _relay(relay: _Relay) -> None:
        """Hand an event to the queues of its next stage (none left: it is done)."""
        if relay.later:
            stage = relay.later.pop(0)
            relay.holding = len(stage)
            for queue in stage:
                queue.put(relay)

    async def publish(self, event: HostEvent) -> None:
        """Queue the event for the after-commit listeners of its first stage (first: their order is the
        commit order; the later stages get it from them), then call the inline ones; a listener that raises
        is logged and skipped."""
        wanting = [q for q in self.queues if q.wants(event)]
        if wanting:
            stages = sorted({q.mark.stage for q in wanting})
            self._relay(_Relay(event, 0, [[q for q in wanting if q.mark.stage == st] for st in stages]))
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
