"""The lease keeper of a host process: waits as a standby until it can take all its shards, renews the
leases while it hosts them, notices when they were taken over, and releases them at a clean stop.

The store's fencing (`bot.store.leases.Fencing`) is what makes a takeover safe; the keeper only decides
when this process may start hosting and tells it when it must stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.outage import Retry
from bot.store.leases import Fencing, Holder, LeaseTable
from bot.store.matches import MatchStore

log = logging.getLogger(__name__)
T = TypeVar("T")


class LeaseKeeper:
    """Leases of `shard_ids` (of `shard_count`) for one process (`instance`) on the store's database."""

    def __init__(
        self,
        store: MatchStore,
        instance: str,
        shard_ids: list[int],
        shard_count: int,
        *,
        lease_seconds: float = 10.0,
        poll_seconds: float | None = None,
        fencing: Fencing | None = None,
    ) -> None:
        self.table = LeaseTable(store.engine, instance, shard_ids, lease_seconds)
        self.fencing = fencing if fencing is not None else Fencing(instance, shard_count)
        store.fencing = self.fencing
        self.lease_seconds = lease_seconds
        self.renew_seconds = lease_seconds / 3
        self.poll_seconds = poll_seconds if poll_seconds is not None else min(0.5, lease_seconds / 4)
        self._valid_until = 0.0
        self._lost = asyncio.Event()
        self.fencing.on_lost.append(lambda _shards: self._lost.set())

    @property
    def active(self) -> bool:
        """Whether this process holds all its shards now."""
        return bool(self.fencing.epochs)

    def holds(self, guild_id: int | None) -> bool:
        """The service's `owns_guild`: this process hosts a guild's matches while it holds its shard."""
        return self.fencing.holds(guild_id)

    async def holders(self) -> list[Holder]:
        """Who holds this process's shards now."""
        return await self.table.holders()

    async def wait_for_leases(self, on_standby: Callable[[list[Holder]], None] | None = None) -> dict[int, int]:
        """Take every shard (all at once), waiting as a standby while a live owner holds any of them; the
        epochs taken. `on_standby` hears once who holds them when this process has to wait."""
        told = False
        # an outage is one warning and one line when it ends; the back-off stays below a third of the lease, so
        # a standby never looks much later than the lease it waits for
        retry = Retry("taking the shard leases", most=max(self.poll_seconds, self.lease_seconds / 3))
        pause = self.poll_seconds
        while True:
            try:
                epochs = await self.table.acquire()
            except Exception as exc:  # the database away or locked for a moment: look again
                pause = max(self.poll_seconds, retry.failed(exc))
                epochs = None
                with contextlib.suppress(Exception):
                    # SQLite: a writer frozen inside its transaction keeps the lock for as long as it is
                    # stopped; once its leases have expired it is ended, so a frozen owner cannot block us.
                    await self.table.end_frozen_writer()
            else:
                retry.ok()
                pause = self.poll_seconds
                log.debug("shard leases %s: %s", self.table.shards, "taken" if epochs else "held by another")
            if epochs is not None:
                self._lost.clear()
                self.fencing.hold(epochs)
                self._valid_until = asyncio.get_running_loop().time() + self.lease_seconds
                log.info("hosting shard(s) %s (epochs %s)", sorted(epochs), sorted(epochs.values()))
                return epochs
            if not told:
                told = True
                holders = []
                with contextlib.suppress(Exception):
                    holders = await self.table.holders()
                log.info("standby: shard(s) %s are hosted by another process; waiting", self.table.shards)
                if on_standby is not None:
                    on_standby(holders)
            await asyncio.sleep(pause)

    async def keep(self) -> set[int]:
        """Renew the leases until some are lost (taken over, or not renewable for a whole lease): the shards lost."""
        loop = asyncio.get_running_loop()
        retry = Retry("renewing the shard leases")  # an outage is one warning and one line when it ends
        while self.fencing.epochs:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), self.renew_seconds)
            if self._lost.is_set():
                break
            held = dict(self.fencing.epochs)
            try:
                lost = await self.table.renew(held)
            except Exception as exc:
                retry.failed(exc)  # renewed again every third of the lease: the lease is the bound here
                lost = set(held) if loop.time() > self._valid_until else set()
            else:
                retry.ok()
                log.debug("shard leases %s renewed", sorted(held))
                self._valid_until = loop.time() + self.lease_seconds
            if lost:
                self.fencing.drop(lost)
        if held := dict(self.fencing.epochs):
            # A write's fence tells only of the shards that write touched: ask the table which of the
            # others were taken over too, so the loss is reported whole, once.
            with contextlib.suppress(Exception):
                if also := await self.table.renew(held):
                    self.fencing.drop(also)
        lost_now = set(self.table.shards) - set(self.fencing.epochs)
        await self.release()  # all or nothing: the rest is given up too, and this process waits again
        return lost_now

    async def release(self) -> None:
        """Give the leases up at a clean stop (a standby takes over at its next look)."""
        held, self.fencing.epochs = dict(self.fencing.epochs), {}
        if held:
            try:
                await self.table.release(held)
            except Exception as exc:
                log.warning("releasing the shard leases failed (%s): a standby takes over when they expire", exc)


async def until(stopping: asyncio.Event, work: Awaitable[T]) -> T | None:
    """`work`'s result, or None when asked to stop first (the work is cancelled, also when this is)."""
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        stop.cancel()
        raise
    stop.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return None
