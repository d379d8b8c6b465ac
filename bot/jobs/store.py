"""The SQL of the jobs table, on a connection the caller holds (so a feature can add or cancel its jobs in
the transaction that changes its own rows)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import ColumnElement, and_, func, literal, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.jobs.table import JOBS, KEY_LENGTH
from bot.store.db import Heartbeat


@dataclass(frozen=True)
class Job:
    """A job as stored."""

    id: int
    kind: str
    key: str
    due: dt.datetime
    payload: Mapping[str, Any]
    scope: int | None
    attempts: int
    claimed_by: str | None
    done: bool


@dataclass(frozen=True)
class NewJob:
    """A job to add (or to change, when its key is stored already)."""

    kind: str
    key: str
    due: dt.datetime
    payload: Mapping[str, Any] = field(default_factory=dict)
    scope: int | None = None


DIRECT_MESSAGES: Final = 0
"""The scope of a job that belongs to a direct-message room rather than a guild: "guild 0", which the shard
formula puts on shard 0, where Discord delivers direct messages (a Discord runner claims no job of scope None)."""


@dataclass(frozen=True)
class Scope:
    """Which jobs one runner looks at: the guilds of its shards, the jobs of no guild, a key prefix."""

    shards: tuple[int, Sequence[int]] | None = None
    """(shard count, shard ids) of this process: only those guilds' jobs (Discord's shard formula)."""
    local: bool = True
    """Whether jobs of no guild (scope NULL) are this process's too."""
    prefix: str | None = None
    """Only the jobs whose key starts with this (a terminal room hosting one scheduled DM)."""

    def where(self) -> ColumnElement[bool]:
        """The condition on the jobs table."""
        clauses: list[ColumnElement[bool]] = []
        if self.prefix is not None:
            clauses.append(JOBS.c.key.startswith(self.prefix, autoescape=True))
        guild = JOBS.c.scope
        if self.shards is None:
            clauses.append(literal(True) if self.local else guild.is_not(None))
        else:
            count, ids = self.shards
            shard = (guild / 4194304) % count  # (guild_id >> 22) % count
            if self.local:
                clauses.append(or_(guild.is_(None), shard.in_(list(ids))))
            else:
                clauses.append(and_(guild.is_not(None), shard.in_(list(ids))))
        return and_(*clauses)


def job_from(row: RowMapping) -> Job:
    """A job from its row."""
    return Job(
        id=int(row["id"]),
        kind=str(row["kind"]),
        key=str(row["key"]),
        due=row["due_at"],
        payload=dict(row["payload"] or {}),
        scope=row["scope"],
        attempts=int(row["attempts"] or 0),
        claimed_by=row["claimed_by"],
        done=bool(row["done"]),
    )


async def put(conn: AsyncConnection, jobs: Sequence[NewJob], now: dt.datetime) -> None:
    """Add jobs; a key stored already is that job again (due, payload and scope replaced, pending anew,
    any claim on it forgotten: the runner holding it finds it no longer its own when it ends)."""
    dialect = conn.dialect.name
    for job in jobs:
        if len(job.key) > KEY_LENGTH:
            raise ValueError(f"job key longer than {KEY_LENGTH}: {job.key[:40]}…")
        values = {
            "kind": job.kind,
            "key": job.key,
            "due_at": job.due,
            "payload": dict(job.payload),
            "scope": job.scope,
            "claimed_by": None,
            "claimed_at": None,
            "done": False,
            "attempts": 0,
            "created_at": now,
        }
        changed = {k: v for k, v in values.items() if k not in ("key", "created_at")}
        if dialect == "postgresql":
            pg = pg_insert(JOBS).values(**values)
            await conn.execute(pg.on_conflict_do_update(index_elements=[JOBS.c.key], set_=changed))
        elif dialect == "sqlite":
            lite = sqlite_insert(JOBS).values(**values)
            await conn.execute(lite.on_conflict_do_update(index_elements=[JOBS.c.key], set_=changed))
        else:  # pragma: no cover - the two databases dmhost runs on are above
            done = await conn.execute(update(JOBS).where(JOBS.c.key == job.key).values(**changed))
            if int(done.rowcount or 0) == 0:
                await conn.execute(JOBS.insert().values(**values))


async def cancel(conn: AsyncConnection, key: str) -> bool:
    """Drop a job that has not run: True when there was one."""
    done = await conn.execute(update(JOBS).where(JOBS.c.key == key, JOBS.c.done.is_(False)).values(done=True))
    return int(done.rowcount or 0) == 1


async def cancel_prefix(conn: AsyncConnection, prefix: str) -> int:
    """Drop every job not run yet whose key starts with `prefix`; returns how many."""
    query = update(JOBS).where(JOBS.c.key.startswith(prefix, autoescape=True), JOBS.c.done.is_(False))
    done = await conn.execute(query.values(done=True))
    return int(done.rowcount or 0)


async def move(conn: AsyncConnection, key: str, due: dt.datetime) -> bool:
    """A new due time for a job that has not run (nothing when there is none)."""
    done = await conn.execute(update(JOBS).where(JOBS.c.key == key, JOBS.c.done.is_(False)).values(due_at=due))
    return int(done.rowcount or 0) == 1


def _open(key: str, now: dt.datetime) -> ColumnElement[bool]:
    """A job still open to its feature: not run, not claimed by a runner, not due yet."""
    return and_(JOBS.c.key == key, JOBS.c.done.is_(False), JOBS.c.claimed_by.is_(None), JOBS.c.due_at > now)


async def rewrite(conn: AsyncConnection, key: str, payload: Mapping[str, Any], now: dt.datetime) -> bool:
    """A new payload for a job still open at `now` (not due, run or claimed): its due time and claim are kept
    (unlike `put`). False when the job is no longer open."""
    done = await conn.execute(update(JOBS).where(_open(key, now)).values(payload=dict(payload)))
    return int(done.rowcount or 0) == 1


async def take(conn: AsyncConnection, key: str, now: dt.datetime) -> bool:
    """Close a job still open at `now` instead of running it (an offer accepted before it lapses): True for one
    caller only, and never for a job that fell due (its run is the runner's, claimed once)."""
    done = await conn.execute(update(JOBS).where(_open(key, now)).values(done=True))
    return int(done.rowcount or 0) == 1


async def read(conn: AsyncConnection, key: str) -> Job | None:
    """One job by its key."""
    row = (await conn.execute(select(JOBS).where(JOBS.c.key == key))).mappings().first()
    return None if row is None else job_from(row)


async def listing(conn: AsyncConnection, prefix: str, *, pending: bool = False) -> list[Job]:
    """The jobs whose key starts with `prefix`, in due order (`pending`: only those not run)."""
    query = select(JOBS).where(JOBS.c.key.startswith(prefix, autoescape=True))
    if pending:
        query = query.where(JOBS.c.done.is_(False))
    rows = (await conn.execute(query.order_by(JOBS.c.due_at, JOBS.c.id))).mappings().all()
    return [job_from(r) for r in rows]


async def pending_keys(conn: AsyncConnection, prefix: str) -> set[str]:
    """The keys of the jobs not run yet whose key starts with `prefix` (one light query)."""
    query = select(JOBS.c.key).where(JOBS.c.key.startswith(prefix, autoescape=True), JOBS.c.done.is_(False))
    return {str(r[0]) for r in await conn.execute(query)}


Only = Mapping[str, Collection[str]]
"""Per kind, the only keys a runner takes (a kind missing from it: any key of it)."""


def of_kinds(kinds: Sequence[str], only: Only | None = None) -> ColumnElement[bool]:
    """Jobs of these kinds; of a kind in `only`, only those keys (the matches this process hosts)."""
    only = {k: keys for k, keys in (only or {}).items() if k in kinds}
    clauses: list[ColumnElement[bool]] = [JOBS.c.kind.in_([k for k in kinds if k not in only])]
    clauses += [and_(JOBS.c.kind == k, JOBS.c.key.in_(sorted(keys))) for k, keys in only.items() if keys]
    return or_(*clauses)


def owner_of(token: str) -> str:
    """The runner (`JobQueue.owner`) a claim's token names: the token without its last `:` part."""
    return token.rpartition(":")[0]


def _free(stale_before: dt.datetime) -> ColumnElement[bool]:
    """Not claimed, or claimed so long ago that its runner is taken to have stopped."""
    return or_(JOBS.c.claimed_by.is_(None), JOBS.c.claimed_at <= stale_before)


async def due(
    conn: AsyncConnection,
    now: dt.datetime,
    stale_before: dt.datetime,
    kinds: Sequence[str],
    scope: Scope,
    limit: int,
    only: Only | None = None,
    skip: Collection[int] = (),
) -> list[Job]:
    """Jobs of these kinds that a runner may claim at `now`, earliest first (`skip`: ids it leaves alone now)."""
    query = (
        select(JOBS)
        .where(
            JOBS.c.done.is_(False),
            JOBS.c.due_at <= now,
            of_kinds(kinds, only),
            _free(stale_before),
            scope.where(),
            JOBS.c.id.not_in(list(skip)) if skip else literal(True),
        )
        .order_by(JOBS.c.due_at, JOBS.c.id)
        .limit(limit)
    )
    return [job_from(r) for r in (await conn.execute(query)).mappings().all()]


async def next_due(
    conn: AsyncConnection,
    kinds: Sequence[str],
    scope: Scope,
    lease: dt.timedelta,
    running: Collection[int] = (),
    only: Only | None = None,
) -> dt.datetime | None:
    """When a job of these kinds is next claimable: the earliest free job's time, or the moment a claim
    still held goes stale (`running`: the jobs the asking runner runs itself or leaves alone for now, never
    claimable by it)."""
    base = and_(JOBS.c.done.is_(False), of_kinds(kinds, only), scope.where())
    if running:
        base = and_(base, JOBS.c.id.not_in(list(running)))
    free = select(JOBS.c.due_at).where(base, JOBS.c.claimed_by.is_(None)).order_by(JOBS.c.due_at).limit(1)
    held = select(func.min(JOBS.c.claimed_at)).where(base, JOBS.c.claimed_at.is_not(None))
    row = (await conn.execute(select(free.scalar_subquery(), held.scalar_subquery()))).one()  # one round trip
    first, claimed = (_aware(v) for v in row)
    if claimed is not None:
        claimed += lease
    return min((t for t in (first, claimed) if t is not None), default=None)


def _aware(value: object) -> dt.datetime | None:
    """A time read through a subquery (SQLite gives its text, PostgreSQL an aware datetime)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    if not isinstance(value, dt.datetime):
        raise TypeError(f"not a time: {value!r}")
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


async def held_elsewhere(
    conn: AsyncConnection,
    kinds: Sequence[str],
    scope: Scope,
    stale_before: dt.datetime,
    owner: str,
    only: Only | None = None,
) -> dict[int, str]:
    """The live claims (not stale yet) other runners than `owner` hold on jobs of these kinds: id → token."""
    rows = await conn.execute(
        select(JOBS.c.id, JOBS.c.claimed_by).where(
            JOBS.c.done.is_(False),
            of_kinds(kinds, only),
            scope.where(),
            JOBS.c.claimed_by.is_not(None),
            JOBS.c.claimed_at > stale_before,
        )
    )
    return {int(r[0]): str(r[1]) for r in rows if owner_of(str(r[1])) != owner}


async def heartbeats(conn: AsyncConnection, owners: Collection[str]) -> dict[str, dt.datetime]:
    """When each of these processes last wrote its heartbeat (those that ever did)."""
    if not owners:
        return {}
    rows = await conn.execute(select(Heartbeat.instance, Heartbeat.at).where(Heartbeat.instance.in_(sorted(owners))))
    return {str(r[0]): r[1] for r in rows}


async def free_dead(conn: AsyncConnection, claims: Mapping[int, str]) -> set[int]:
    """Drop the claims of runners known dead (id → token), each only while that token still holds it: the
    jobs are free at once, due at their own time; the ids freed."""
    freed: set[int] = set()
    for job_id, token in claims.items():
        done = await conn.execute(
            update(JOBS)
            .where(JOBS.c.id == job_id, JOBS.c.claimed_by == token, JOBS.c.done.is_(False))
            .values(claimed_by=None, claimed_at=None)
        )
        if int(done.rowcount or 0) == 1:
            freed.add(job_id)
    return freed


async def claim(conn: AsyncConnection, job_id: int, token: str, now: dt.datetime, stale_before: dt.datetime) -> bool:
    """Take a due job under `token`: True for one caller only."""
    done = await conn.execute(
        update(JOBS)
        .where(JOBS.c.id == job_id, JOBS.c.done.is_(False), JOBS.c.due_at <= now, _free(stale_before))
        .values(claimed_by=token, claimed_at=now, attempts=JOBS.c.attempts + 1)
    )
    return int(done.rowcount or 0) == 1


async def claim_all(
    conn: AsyncConnection, ids: Sequence[int], token: str, now: dt.datetime, stale_before: dt.datetime
) -> set[int]:
    """Take several due jobs under one `token` in one statement: the ids taken (each by one caller only)."""
    await conn.execute(
        update(JOBS)
        .where(JOBS.c.id.in_(list(ids)), JOBS.c.done.is_(False), JOBS.c.due_at <= now, _free(stale_before))
        .values(claimed_by=token, claimed_at=now, attempts=JOBS.c.attempts + 1)
    )
    return await claimed(conn, ids, token)


async def claimed(conn: AsyncConnection, ids: Sequence[int], token: str) -> set[int]:
    """Which of these jobs are held under `token`."""
    rows = await conn.execute(select(JOBS.c.id).where(JOBS.c.id.in_(list(ids)), JOBS.c.claimed_by == token))
    return {int(r[0]) for r in rows}


async def refresh(conn: AsyncConnection, claims: Mapping[int, str], now: dt.datetime) -> set[int]:
    """Keep claims alive: `claimed_at = now` on every job of `claims` (id → token) still carried by its token,
    in one statement. Returns the ids whose claim is gone (the job added again, or taken by another runner
    once this one's claim went stale); a job marked done under its token is not gone."""
    if not claims:
        return set()
    ids, tokens = list(claims), sorted(set(claims.values()))
    kept = await conn.execute(
        update(JOBS)
        .where(JOBS.c.id.in_(ids), JOBS.c.claimed_by.in_(tokens), JOBS.c.done.is_(False))
        .values(claimed_at=now)
    )
    if int(kept.rowcount or 0) == len(ids):
        return set()
    rows = await conn.execute(select(JOBS.c.id, JOBS.c.claimed_by).where(JOBS.c.id.in_(ids)))
    holders = {int(r[0]): r[1] for r in rows}
    return {job_id for job_id, token in claims.items() if holders.get(job_id) != token}


async def finish_all(conn: AsyncConnection, ids: Sequence[int], token: str) -> int:
    """Several jobs ran: done, those not added again (or taken over) meanwhile; how many."""
    mine = and_(JOBS.c.id.in_(list(ids)), JOBS.c.claimed_by == token, JOBS.c.done.is_(False))
    done = await conn.execute(update(JOBS).where(mine).values(done=True))
    return int(done.rowcount or 0)


async def finish(conn: AsyncConnection, job_id: int, token: str) -> bool:
    """The job ran: done, unless it was added again (or taken over) meanwhile."""
    done = await conn.execute(
        update(JOBS).where(JOBS.c.id == job_id, JOBS.c.claimed_by == token, JOBS.c.done.is_(False)).values(done=True)
    )
    return int(done.rowcount or 0) == 1


async def release(conn: AsyncConnection, job_id: int, token: str, due: dt.datetime) -> bool:
    """The job failed: pending again at `due` (unless it was added again meanwhile)."""
    done = await conn.execute(
        update(JOBS)
        .where(JOBS.c.id == job_id, JOBS.c.claimed_by == token, JOBS.c.done.is_(False))
        .values(claimed_by=None, claimed_at=None, due_at=due)
    )
    return int(done.rowcount or 0) == 1


async def database_now(conn: AsyncConnection) -> dt.datetime:
    """The database server's clock (aware UTC): one clock for every process on the database."""
    if conn.dialect.name == "sqlite":
        text = (await conn.execute(select(func.strftime("%Y-%m-%d %H:%M:%f", "now")))).scalar_one()
        return dt.datetime.fromisoformat(str(text)).replace(tzinfo=dt.UTC)
    value = (await conn.execute(select(func.clock_timestamp()))).scalar_one()
    if not isinstance(value, dt.datetime):
        raise TypeError(f"the database's clock gave {value!r}")
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


async def prune_done(conn: AsyncConnection, before: dt.datetime) -> int:
    """Delete the jobs done that were due before `before` (a done row only keeps a `take` refused, and its
    absence refuses it as well); how many went."""
    from sqlalchemy import delete

    gone = await conn.execute(delete(JOBS).where(JOBS.c.done.is_(True), JOBS.c.due_at < before))
    return int(gone.rowcount or 0)
