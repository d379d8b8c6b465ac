"""Database access of the scheduler: schedules, their jobs (rows of `bot.jobs`, added and cancelled in the
transaction that changes the schedule), claims, and per-guild settings."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

from sqlalchemy import Table, bindparam, func, insert, or_, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.host.match import PlayerRef
from bot.jobs import NewJob, Scope
from bot.jobs import store as jobs
from bot.schedule.models import ScheduleRow, ScheduleSettingsRow
from bot.schedule.status import CLAIMED, DONE, OPEN, JobKind, ScheduleStatus
from bot.store.db import utcnow
from bot.store.matches import AlsoWrite

SCHEDULES: Final = cast(Table, ScheduleRow.__table__)
SETTINGS: Final = cast(Table, ScheduleSettingsRow.__table__)
_STARTED_OF: Final = select(SCHEDULES).where(
    SCHEDULES.c.match_id.in_(bindparam("ids", expanding=True)), SCHEDULES.c.status == ScheduleStatus.STARTED
)
"""Built once: the scheduler looks up every batch of finished matches, most of them no DM's."""

DEFAULT_REMINDERS: Final = (86400, 3600, 600)
"""Reminders before the start: 24 h, 1 h and 10 min."""
DEFAULT_CHECKIN_S: Final = 15 * 60
DEFAULT_NO_SHOW_S: Final = 10 * 60

KINDS: Final = tuple(JobKind)
"""A DM's jobs: the reminders, the check-in opening, the start and the no-show ruling (job kind
`schedule.<kind>`, key `schedule:<id>:<kind>`, a reminder's `schedule:<id>:remind:<offset>`)."""
__all__ = ["CLAIMED", "DONE", "KINDS", "OPEN", "Schedule", "ScheduleSettings", "ScheduleStore", "StartLost"]


class StartLost(Exception):
    """The claim on a DM's start (or no-show ruling) is no longer this process's: its match is not stored."""


@dataclass(frozen=True)
class ScheduleSettings:
    """A guild's scheduling settings (built-in defaults where none is stored)."""

    guild_id: int | None = None
    timezone: str = "UTC"
    reminders: tuple[int, ...] = DEFAULT_REMINDERS
    checkin_s: int = DEFAULT_CHECKIN_S
    no_show_s: int = DEFAULT_NO_SHOW_S


@dataclass(frozen=True)
class Schedule:
    """A scheduled Death Match as stored."""

    id: int
    guild_id: int | None
    channel_id: int | None
    room_id: int | None
    game: str
    options: dict[str, Any]
    clock: dict[str, Any]
    rules: dict[str, Any]
    first: int | None
    advantage: str | None
    room_mode: str | None
    players: tuple[PlayerRef, PlayerRef]
    host_id: str | None
    at: dt.datetime
    prize: str | None
    note: str | None
    reminders: tuple[int, ...]
    checkin_s: int
    no_show_s: int
    status: ScheduleStatus
    here: tuple[dt.datetime | None, dt.datetime | None]
    wait_until: dt.datetime
    proposed_at: dt.datetime | None
    proposed_by: str | None
    match_id: int | None
    winner_seat: int | None
    result_reason: str | None
    finished_at: dt.datetime | None
    event_id: int | None
    card_id: int | None
    created_at: dt.datetime = field(compare=False)
    start_token: str | None = None
    """The claim of the start (or no-show ruling) under way; see `ScheduleStore.recorder`."""
    updated_at: dt.datetime | None = field(default=None, compare=False)

    @property
    def public_status(self) -> ScheduleStatus:
        """The status as the contract lists it (a DM being started or ruled on is still `scheduled`)."""
        return ScheduleStatus.SCHEDULED if self.status in OPEN else self.status

    @property
    def checkin_opens(self) -> dt.datetime:
        """When players may check in."""
        return self.at - dt.timedelta(seconds=self.checkin_s)

    def seat_of(self, player_id: str) -> int | None:
        """1 or 2 for a player of this DM, else None."""
        for seat, player in enumerate(self.players, start=1):
            if player.id == player_id:
                return seat
        return None

    def player(self, seat: int) -> PlayerRef:
        """The player in seat 1 or 2."""
        return self.players[seat - 1]

    def winner(self) -> PlayerRef | None:
        """Who won, once it is decided."""
        return self.player(self.winner_seat) if self.winner_seat in (1, 2) else None


def schedule_from(row: RowMapping) -> Schedule:
    """A schedule from its row."""
    return Schedule(
        id=int(row["id"]),
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        room_id=row["room_id"],
        game=row["game"],
        options=dict(row["options"] or {}),
        clock=dict(row["clock"] or {}),
        rules=dict(row["rules"] or {}),
        first=row["first"],
        advantage=row["advantage"],
        room_mode=row["room_mode"],
        players=(
            PlayerRef(row["player1_id"], row["player1_name"]),
            PlayerRef(row["player2_id"], row["player2_name"]),
        ),
        host_id=row["host_id"],
        at=row["at"],
        prize=row["prize"],
        note=row["note"],
        reminders=tuple(int(x) for x in row["reminders"] or ()),
        checkin_s=int(row["checkin_s"]),
        no_show_s=int(row["no_show_s"]),
        status=ScheduleStatus(row["status"]),
        here=(row["here1"], row["here2"]),
        wait_until=row["wait_until"],
        proposed_at=row["proposed_at"],
        proposed_by=row["proposed_by"],
        match_id=row["match_id"],
        winner_seat=row["winner_seat"],
        result_reason=row["result_reason"],
        finished_at=row["finished_at"],
        event_id=row["event_id"],
        card_id=row["card_id"],
        created_at=row["created_at"],
        start_token=row.get("start_token"),
        updated_at=row.get("updated_at"),
    )


def job_key(schedule_id: int, kind: str, offset: int | None = None) -> str:
    """The key of a DM's job."""
    return f"schedule:{schedule_id}:{kind}" + (f":{offset}" if kind == JobKind.REMIND else "")


def job_prefix(schedule_id: int) -> str:
    """The keys of every job of a DM start with this."""
    return f"schedule:{schedule_id}:"


def new_job(schedule_id: int, guild_id: int | None, kind: str, due: dt.datetime, offset: int | None = None) -> NewJob:
    """One job of a DM."""
    return NewJob(
        f"schedule.{kind}",
        job_key(schedule_id, kind, offset),
        due,
        {"schedule": schedule_id, "offset": offset},
        guild_id,
    )


def plan_jobs(
    schedule_id: int, guild_id: int | None, at: dt.datetime, settings: ScheduleSettings | Schedule, now: dt.datetime
) -> list[NewJob]:
    """The jobs of a DM starting at `at`: the reminders still ahead, the check-in, the start and the
    no-show ruling."""
    rows: list[NewJob] = []
    for offset in sorted(set(settings.reminders), reverse=True):
        due = at - dt.timedelta(seconds=offset)
        if due > now:
            rows.append(new_job(schedule_id, guild_id, "remind", due, offset))
    rows.append(new_job(schedule_id, guild_id, "checkin", max(at - dt.timedelta(seconds=settings.checkin_s), now)))
    rows.append(new_job(schedule_id, guild_id, "start", at))
    rows.append(new_job(schedule_id, guild_id, "noshow", at + dt.timedelta(seconds=settings.no_show_s)))
    return rows


class ScheduleStore:
    """The scheduler's queries, on the host's engine."""

    def __init__(
        self,
        engine: AsyncEngine,
        shard_filter: tuple[int, Sequence[int]] | None = None,
        *,
        local: bool = True,
    ) -> None:
        self.engine = engine
        self.shard_filter = shard_filter
        """(shard count, shard ids) of this process: only those guilds' jobs are looked at."""
        self.local = local
        """Whether this process also acts on DMs of no guild (scheduled in the terminal)."""
        self.now: Callable[[], dt.datetime] = utcnow
        """The clock of `updated_at` (the scheduler sets its own, so that claims age on its time)."""
        self.only: int | None = None
        """Act on this one schedule's jobs only (a terminal room hosting one scheduled DM)."""

    def scope(self) -> Scope:
        """The jobs a runner of this store's scheduler looks at."""
        if self.only is not None:
            return Scope(prefix=job_prefix(self.only))
        return Scope(shards=self.shard_filter, local=self.local)

    # -- schedules -----------------------------------------------------------------
    async def insert(self, values: dict[str, Any], settings: ScheduleSettings, now: dt.datetime) -> Schedule:
        """Store a schedule and its jobs in one transaction."""
        async with self.engine.begin() as conn:
            new_id = int(
                (await conn.execute(insert(SCHEDULES).values(**values).returning(SCHEDULES.c.id))).scalar_one()
            )
            await jobs.put(conn, plan_jobs(new_id, values["guild_id"], values["at"], settings, now), now)
            row = (await conn.execute(select(SCHEDULES).where(SCHEDULES.c.id == new_id))).mappings().one()
        return schedule_from(row)

    async def get(self, schedule_id: int) -> Schedule | None:
        """One schedule, or None."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(SCHEDULES).where(SCHEDULES.c.id == schedule_id))).mappings().first()
        return None if row is None else schedule_from(row)

    async def started_of(self, match_ids: Sequence[int]) -> dict[int, Schedule]:
        """The `started` schedules whose DMs are among these matches, by match id (one query per 500 ids)."""
        out: dict[int, Schedule] = {}
        async with self.engine.connect() as conn:
            for start in range(0, len(match_ids), 500):
                chunk = list(match_ids[start : start + 500])
                rows = (await conn.execute(_STARTED_OF, {"ids": chunk})).mappings()
                for row in rows:
                    sched = schedule_from(row)
                    if sched.match_id is not None:
                        out[sched.match_id] = sched
        return out

    async def by_match(self, match_id: int) -> Schedule | None:
        """The schedule whose DM is match `match_id`, if any."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(SCHEDULES).where(SCHEDULES.c.match_id == match_id))).mappings().first()
        return None if row is None else schedule_from(row)

    async def listing(
        self,
        *,
        guild_id: int | bool | None = False,
        statuses: Iterable[str] | None = None,
        player_id: str | None = None,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        by_result: bool = False,
        room_id: int | None = None,
        limit: int | None = None,
    ) -> list[Schedule]:
        """Schedules, soonest first (`by_result`: newest result first). `guild_id=False`: every guild's."""
        query = select(SCHEDULES)
        if guild_id is not False:
            query = query.where(
                SCHEDULES.c.guild_id.is_(None) if guild_id is None else SCHEDULES.c.guild_id == guild_id
            )
        if statuses is not None:
            query = query.where(SCHEDULES.c.status.in_(list(statuses)))
        if player_id is not None:
            query = query.where(or_(SCHEDULES.c.player1_id == player_id, SCHEDULES.c.player2_id == player_id))
        if room_id is not None:
            query = query.where(SCHEDULES.c.room_id == room_id)
        when = func.coalesce(SCHEDULES.c.finished_at, SCHEDULES.c.at) if by_result else SCHEDULES.c.at
        if since is not None:
            query = query.where(when >= since)
        if until is not None:
            query = query.where(when < until)
        query = query.order_by(when.desc() if by_result else when, SCHEDULES.c.id)
        if limit is not None:
            query = query.limit(limit)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [schedule_from(r) for r in rows]

    async def change(self, schedule_id: int, values: dict[str, Any], *, only_if: dict[str, Any] | None = None) -> bool:
        """A conditional update of one schedule (`only_if`: column → required value, None meaning NULL, a
        tuple meaning one of): True when this call changed the row."""
        async with self.engine.begin() as conn:
            return await self._change(conn, schedule_id, values, only_if)

    async def _change(
        self, conn: AsyncConnection, schedule_id: int, values: dict[str, Any], only_if: dict[str, Any] | None
    ) -> bool:
        query = update(SCHEDULES).where(SCHEDULES.c.id == schedule_id)
        for column, wanted in (only_if or {}).items():
            col = SCHEDULES.c[column]
            if wanted is None:
                query = query.where(col.is_(None))
            elif isinstance(wanted, tuple):
                query = query.where(col.in_(list(wanted)))
            else:
                query = query.where(col == wanted)
        done = await conn.execute(query.values(**values, updated_at=self.now()))
        return int(done.rowcount or 0) == 1

    async def move(self, schedule: Schedule, at: dt.datetime, wait_until: dt.datetime, now: dt.datetime) -> bool:
        """A new start time: check-ins and any proposal cleared, old jobs retired, new ones planned, in one
        transaction, only if the DM is still scheduled."""
        async with self.engine.begin() as conn:
            moved = await self._change(
                conn,
                schedule.id,
                {
                    "at": at,
                    "wait_until": wait_until,
                    "here1": None,
                    "here2": None,
                    "proposed_at": None,
                    "proposed_by": None,
                },
                {"status": ScheduleStatus.SCHEDULED},
            )
            if not moved:
                return False
            await jobs.cancel_prefix(conn, job_prefix(schedule.id))
            await jobs.put(conn, plan_jobs(schedule.id, schedule.guild_id, at, schedule, now), now)
        return True

    def recorder(self, schedule_id: int, token: str, values: dict[str, Any]) -> AlsoWrite:
        """The write that records a DM's match in the transaction that stores the match (`also` of
        `MatchService.create_match`/`record_forfeit`): `values` plus the match id, only while the claim
        under `token` still holds. Otherwise it raises, and the match is not stored either: a process that
        stopped after its claim, or lost it to another, never leaves a second match behind."""
        claimed = CLAIMED

        async def write(conn: AsyncConnection, match_id: int) -> None:
            done = await conn.execute(
                update(SCHEDULES)
                .where(
                    SCHEDULES.c.id == schedule_id,
                    SCHEDULES.c.status.in_(list(claimed)),
                    SCHEDULES.c.start_token == token,
                )
                .values(**values, match_id=match_id, updated_at=self.now())
            )
            if int(done.rowcount or 0) != 1:
                raise StartLost(schedule_id)

        return write

    async def retire_jobs(self, schedule_id: int, now: dt.datetime) -> None:
        """Drop every pending job of a schedule (it started, was cancelled or was ruled on)."""
        async with self.engine.begin() as conn:
            await jobs.cancel_prefix(conn, job_prefix(schedule_id))

    async def move_noshow(self, schedule_id: int, wait_until: dt.datetime, *, only_later: bool) -> bool:
        """Set a waiting DM's no-show deadline (and its pending job); `only_later`: never earlier than it was."""
        async with self.engine.begin() as conn:
            query = update(SCHEDULES).where(
                SCHEDULES.c.id == schedule_id, SCHEDULES.c.status == ScheduleStatus.SCHEDULED
            )
            if only_later:
                query = query.where(SCHEDULES.c.wait_until < wait_until)
            done = await conn.execute(query.values(wait_until=wait_until, updated_at=self.now()))
            if int(done.rowcount or 0) != 1:
                return False
            await jobs.move(conn, job_key(schedule_id, "noshow"), wait_until)
        return True

    async def add_job(self, schedule: Schedule, kind: str, due: dt.datetime) -> None:
        """A job of a schedule (again, when it is stored already: it is then due at `due`)."""
        async with self.engine.begin() as conn:
            await jobs.put(conn, [new_job(schedule.id, schedule.guild_id, kind, due)], self.now())

    async def jobs_of(self, schedule_id: int) -> list[tuple[str, int | None, dt.datetime, str]]:
        """(kind, offset, due, `pending` or `done`) of every job of a schedule, in due order (tests, logs)."""
        async with self.engine.connect() as conn:
            found = await jobs.listing(conn, job_prefix(schedule_id))
        return [
            (j.kind.removeprefix("schedule."), j.payload.get("offset"), j.due, "done" if j.done else "pending")
            for j in found
        ]

    async def stale(self, statuses: Sequence[str], before: dt.datetime) -> list[Schedule]:
        """Schedules left in a passing status since before `before` (a process stopped in the middle)."""
        query = select(SCHEDULES).where(SCHEDULES.c.status.in_(list(statuses)), SCHEDULES.c.updated_at < before)
        async with self.engine.connect() as conn:
            return [schedule_from(r) for r in (await conn.execute(query)).mappings().all()]

    # -- settings ------------------------------------------------------------------
    async def settings(self, guild_id: int | None) -> ScheduleSettings:
        """A guild's scheduling settings (defaults for none, and for the terminal)."""
        if guild_id is None:
            return ScheduleSettings()
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(SETTINGS).where(SETTINGS.c.guild_id == guild_id))).mappings().first()
        base = ScheduleSettings(guild_id)
        if row is None:
            return base
        return ScheduleSettings(
            guild_id,
            row["timezone"] or base.timezone,
            tuple(int(x) for x in row["reminders"]) if row["reminders"] is not None else base.reminders,
            row["checkin_s"] if row["checkin_s"] is not None else base.checkin_s,
            row["no_show_s"] if row["no_show_s"] is not None else base.no_show_s,
        )

    async def save_settings(self, guild_id: int, values: dict[str, Any]) -> ScheduleSettings:
        """Change some of a guild's settings (a None value: back to the default)."""
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(SETTINGS).where(SETTINGS.c.guild_id == guild_id).values(**values, updated_at=self.now())
            )
            if int(done.rowcount or 0) == 0:
                await conn.execute(insert(SETTINGS).values(guild_id=guild_id, **values, updated_at=self.now()))
        return await self.settings(guild_id)
