"""The lease a terminal face hosts its matches under (`bot.compose.hold` takes it): renewed in the background
while the face runs; on its loss every match is let go and the face is told (`HostLease.lost`)."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from bot.host.service import MatchService
from bot.ownership.scope import ScopeKeeper
from bot.store.leases import Holder


@dataclass
class HostLease:
    """The lease a terminal face hosts its matches under, and the task that renews it."""

    keeper: ScopeKeeper
    lost: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when another process took the lease over (the matches were let go): the face stops."""
    _task: asyncio.Task[None] | None = None

    @property
    def held(self) -> bool:
        """Whether this process holds the lease now."""
        return self.keeper.active

    def keep(self, service: MatchService) -> None:
        """Renew the lease in the background; on its loss, let every match go and set `lost`."""

        async def keeping() -> None:
            await self.keeper.keep()
            service.abandon()
            self.lost.set()

        self._task = asyncio.get_running_loop().create_task(keeping(), name="terminal-lease")

    async def look(self) -> Holder | None:
        """One try at the lease: None when taken, else who holds it (a database busy for a moment, as with
        another process migrating SQLite, is looked at again a few times)."""
        for attempt in range(10):
            try:
                return await self.keeper.take()
            except Exception:
                if attempt == 9:
                    raise
                await asyncio.sleep(self.keeper.poll_seconds)
        raise AssertionError("unreachable")

    async def wait(self, service: MatchService) -> None:
        """Look until the lease is free, take it, and keep it (`keep`)."""
        while await self.look() is not None:
            await asyncio.sleep(self.keeper.poll_seconds)
        self.keep(service)

    async def release(self) -> None:
        """Stop renewing and give the lease up (a waiting process takes it at its next look)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.keeper.release()
