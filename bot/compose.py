"""The composition root of the terminal faces: one place builds the store, the host service and the
subscribers every finished match needs (today: the ratings), so `dmhost room`, `room --scheduled`,
`dmhost tournament …` and `dmhost ratings` rate the same way.

`Host.open()` runs the start-up every face shares: the migrations, then the catch-up of what a
finished match still owes (a match that ended while no process listened, or whose rating could not be
stored, is rated here, in the order the matches ended). The Discord bot still wires its own
(`bot.adapters.discord`), with the same `Ratings` and the same catch-up at its start.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.host.service import MatchService
from bot.ratings.service import Ratings
from bot.store.matches import MatchStore

__all__ = ["Host", "build_host"]


@dataclass
class Host:
    """The store, the host service on it, and the subscribers attached to it."""

    store: MatchStore
    service: MatchService
    ratings: Ratings

    async def open(self) -> None:
        """Migrate the database, then catch up what finished matches still owe."""
        await self.store.open()
        await self.catch_up()

    async def catch_up(self) -> int:
        """Rate every finished rated match that is not rated yet; returns how many."""
        return await self.ratings.catch_up()

    async def close(self) -> None:
        """Let the subscribers apply what finished matches queued, stop their retries, then the host service
        and the store (in that order)."""
        await self.service.drained()
        await self.ratings.close()
        await self.service.close()
        await self.store.close()


def build_host(
    url: str | None = None,
    *,
    store: MatchStore | None = None,
    service: MatchService | None = None,
    heartbeat_seconds: float = 1.0,
) -> Host:
    """Build the host for a database URL (or around a given store or service). The ratings subscribe after
    the commit (`bot.host.subscribers`): a finished match is rated by their own task, in a batch, not
    before the faces hear of its end; a face that reports a rating asks for it with `ratings.settle`,
    which rates the match at once when its batch has not come yet (exactly once either way)."""
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
