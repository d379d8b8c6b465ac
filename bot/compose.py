"""The composition root of the terminal faces: one place builds the store, the host service and the
subscribers every finished match needs (today: the ratings), so `dmhost room`, `room --scheduled`,
`dmhost tournament …` and `dmhost ratings` rate the same way.

`Host.open()` runs the start-up every face shares: the migrations, then the catch-up of what a
finished match still owes (a match that ended while no process listened, or whose rating could not be
stored, is rated here, in the order the matches ended). The Discord bot still wires its own
(`bot.adapters.discord`), with the same `Ratings` and the same catch-up at its start.

`hold(host, scope, id)` puts a face under the same ownership as the bot (`bot.ownership.scope`): the
lease of what it hosts (a tournament, a scheduled DM, a match) is taken before any match is resumed,
every write is fenced by its epoch, it is renewed while the face runs, and a loss lets the matches go
(`HostLease.lost` tells the face). `Host.close` releases it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.host.service import MatchService
from bot.ownership.scope import Scope, ScopeKeeper
from bot.ratings.service import Ratings
from bot.store.leases import Holder
from bot.store.matches import MatchStore

__all__ = ["Host", "HostLease", "Scope", "build_host", "hold", "scope_of_match"]


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


@dataclass
class Host:
    """The store, the host service on it, and the subscribers attached to it."""

    store: MatchStore
    service: MatchService
    ratings: Ratings
    lease: HostLease | None = None
    """The terminal face's lease (`hold`); None: writes are not fenced (tests, one-shot reads)."""

    async def open(self) -> None:
        """Migrate the database, then catch up what finished matches still owe."""
        await self.store.open()
        await self.catch_up()

    async def catch_up(self) -> int:
        """Rate every finished rated match that is not rated yet; returns how many."""
        return await self.ratings.catch_up()

    async def close(self) -> None:
        """Stop the subscribers' retries, the host service and the store (in that order)."""
        await self.ratings.close()
        await self.service.close()
        if self.lease is not None:
            await self.lease.release()
        await self.store.close()


def build_host(
    url: str | None = None,
    *,
    store: MatchStore | None = None,
    service: MatchService | None = None,
    heartbeat_seconds: float = 1.0,
) -> Host:
    """Build the host for a database URL (or around a given store or service): the ratings subscribe
    first, so a finished match is rated before any face reports its end."""
    if service is not None:
        store = service.store
    if store is None:
        if url is None:
            raise ValueError("build_host needs a database URL, a store or a service")
        store = MatchStore(url)
    if service is None:
        service = MatchService(store, heartbeat_seconds=heartbeat_seconds)
    ratings = Ratings(store)
    ratings.attach(service)
    return Host(store, service, ratings)


async def hold(
    host: Host,
    scope: Scope,
    ident: int,
    *,
    wait: bool = False,
    lease_seconds: float = 10.0,
    on_wait: Callable[[Holder], None] | None = None,
) -> Holder | None:
    """Take the lease of what a terminal face hosts, before it resumes any match: None once held (renewed
    from then on, `host.lease`), else the process that holds it. `wait`: look again until it is free
    (`on_wait` hears once who holds it); otherwise one look. Every write of `host.store` is fenced from here
    on: a write without the lease is refused."""
    keeper = ScopeKeeper(host.store, scope, ident, lease_seconds=lease_seconds)
    host.service.owns_guild = keeper.holds
    lease = HostLease(keeper)
    host.lease = lease
    holder = await lease.look()
    if holder is None:
        lease.keep(host.service)
        return None
    if not wait:
        return holder
    if on_wait is not None:
        on_wait(holder)
    await lease.wait(host.service)
    return None


async def scope_of_match(store: MatchStore, match_id: int) -> tuple[Scope, int]:
    """The lease a match is hosted under: its tournament's, its scheduled DM's, else its own (so that
    `dmhost room --resume` and `tournament play` never host one match at once)."""
    from sqlalchemy import select

    from bot.schedule.store import SCHEDULES
    from bot.tournaments.tables import GAMES

    async with store.engine.connect() as conn:
        tid = await conn.scalar(select(GAMES.c.tournament_id).where(GAMES.c.match_id == match_id).limit(1))
        if tid is not None:
            return Scope.TOURNAMENT, int(tid)
        sid = await conn.scalar(select(SCHEDULES.c.id).where(SCHEDULES.c.match_id == match_id).limit(1))
    if sid is not None:
        return Scope.SCHEDULE, int(sid)
    return Scope.MATCH, match_id
