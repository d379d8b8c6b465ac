"""Leases of the terminal faces: the matches a terminal command hosts (one tournament's, one scheduled DM's,
one lone match) are held under a lease of their own, in the same lease table and with the same fencing as
the bot's shards, so two processes never host the same matches at once.

A scope's lease row uses a negative key (the bot's shards are 0 and up): a tournament, a scheduled DM and a
match each have their own range (`scope_key`). Every write of the process is fenced by the scope's epoch,
whatever the match's guild. The owner id names this machine and process, so that a lease left by a
command that was killed on this machine is taken over at once instead of after its expiry.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy import update

from bot.ownership.keeper import LeaseKeeper
from bot.store.leases import Fencing, Holder, ShardLease, db_now, process_gone, process_owner
from bot.store.matches import MatchStore

__all__ = ["Scope", "ScopeFencing", "ScopeKeeper", "local_owner", "scope_key"]


class Scope(StrEnum):
    """What a terminal command hosts."""

    TOURNAMENT = "tournament"
    SCHEDULE = "schedule"
    MATCH = "match"


_RANGE = {Scope.TOURNAMENT: 0, Scope.SCHEDULE: 1, Scope.MATCH: 2}
_WRAP = 715_000_000
"""Ids wrap here, so that every key fits the lease table's 32-bit column (two ids 715 million apart share a
lease: at worst a command is told to wait for the other, never two hosts at once)."""


def scope_key(scope: Scope, ident: int) -> int:
    """The lease row of a scope: negative, so never a Discord shard (tournament 1 → -6, DM 1 → -7, match 1 → -8)."""
    if ident < 1:
        raise ValueError(f"a {scope.value} id is 1 or more, not {ident}")
    return -(3 * (ident % _WRAP + 1) + _RANGE[scope])


def local_owner() -> str:
    """An owner id naming this machine and process (`term:HOST:PID:RANDOM`, at most 64 characters)."""
    return process_owner("term")


def _gone(owner: str) -> bool:
    """Whether an owner id names a process of this machine that no longer runs (or is a zombie)."""
    return owner.startswith("term:") and process_gone(owner)


@dataclass
class ScopeFencing(Fencing):
    """The fencing of a terminal process: every match it writes is under the one scope key it holds."""

    key: int = 0

    def shard(self, guild_id: int | None) -> int:
        return self.key


class ScopeKeeper(LeaseKeeper):
    """The lease of one scope for a terminal process: taken once (or waited for), renewed, released."""

    def __init__(self, store: MatchStore, scope: Scope, ident: int, *, lease_seconds: float = 10.0) -> None:
        self.scope = scope
        self.ident = ident
        self.key = scope_key(scope, ident)
        owner = local_owner()
        super().__init__(
            store,
            owner,
            [self.key],
            1,
            lease_seconds=lease_seconds,
            fencing=ScopeFencing(owner, 1, key=self.key),
        )

    async def take(self) -> Holder | None:
        """Try once to take the lease: None when taken (this process hosts the scope now), else who holds it.
        A holder that is a process of this machine no longer running (killed) is taken over at once."""
        last = Holder(self.key, "", 0, dt.datetime.min.replace(tzinfo=dt.UTC))
        for _ in range(3):
            epochs = await self.table.acquire()
            if epochs is not None:
                self.fencing.hold(epochs)
                self._lost.clear()
                return None
            holders = await self.table.holders()
            if not holders or not holders[0].owner:
                continue  # given up between the two looks: try again
            last = holders[0]
            if not _gone(last.owner):
                return last
            await self._expire(last)
        return last

    async def _expire(self, holder: Holder) -> None:
        """End the lease of a killed process of this machine (only if it still holds it under that epoch)."""
        with contextlib.suppress(Exception):
            async with self.table.engine.begin() as conn:
                await conn.execute(
                    update(ShardLease)
                    .where(
                        ShardLease.shard == holder.shard,
                        ShardLease.owner == holder.owner,
                        ShardLease.epoch == holder.epoch,
                    )
                    .values(expires_at=db_now(self.table.dialect))
                )
