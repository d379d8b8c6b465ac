"""Correspondence reminders beyond the room (`/dm event notify`): a direct message with each reminder, or the
daily digest. The logic is here; a face only delivers what it is handed (`Reminders.deliver`).

The promise of the digest is that a player who chose it hears of every game that waits for their move before
it can be lost:

- each digest lists every correspondence game of the player's (in that server, hosted here) that waits for
  their move, whether reminded or not, oldest match first; no game waits: nothing is sent;
- a game whose reminder comes while its deadline falls before the player's next digest is told at once, as a
  direct reminder (the digest would come too late). A game waiting at a digest's moment is in that digest;
  one that starts waiting after it either runs past the next digest (and is in it) or runs out before it, and
  then its reminder (at `remind` of the move's time, before the deadline) is that direct message. A clock
  with `remind=0` has no reminder: such a game is only in the digests.

A player's digest is a durable job (`bot.jobs`, kind `digest`, key `digest:<guild>:<player>`) due at the
digest's moment, so it outlives a restart, and a digest due while no bot ran is sent once at the next start.
No sentences here: the face words a `Digest` or a `DirectReminder`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final

from bot.host.events import HostEvent
from bot.host.service import MatchService
from bot.jobs import Job, JobQueue
from bot.store.correspondence import CorrespondenceStore
from bot.types import REMINDER, ClockKind, MatchStatus

log = logging.getLogger(__name__)

DIGEST_EVERY: Final = dt.timedelta(days=1)
"""At most one digest a day per player and server."""
DIGEST: Final = "digest"
"""The kind of a digest's job."""


def digest_key(guild_id: int, player_id: str) -> str:
    """The key of a player's digest job in a server."""
    return f"digest:{guild_id}:{player_id}"


def next_digest(after: dt.datetime, hour: int | None, cadence: dt.datetime) -> dt.datetime:
    """The first digest moment later than `after`: at `hour` o'clock UTC, or (no hour chosen) at the time of
    day of `cadence` (when the digest was chosen)."""
    if hour is None:
        days = (after - cadence) // DIGEST_EVERY + 1
        return cadence + DIGEST_EVERY * max(1, days)
    moment = after.astimezone(dt.UTC).replace(hour=hour, minute=0, second=0, microsecond=0)
    return moment if moment > after else moment + DIGEST_EVERY


@dataclass(frozen=True)
class Waiting:
    """A correspondence game that waits for a player's move: the opponent's name, the time left, when it
    runs out (aware UTC), and whether its reminder came this move."""

    match_id: int
    guild_id: int | None
    channel_id: int | None
    opponent: str
    left: float
    deadline: dt.datetime
    reminded: bool = False


@dataclass(frozen=True)
class Digest:
    """A digest to send: every game that waits for the player's move in a server (never empty)."""

    guild_id: int
    player_id: str
    games: Sequence[Waiting]


@dataclass(frozen=True)
class DirectReminder:
    """A reminder to send as a direct message: the player chose `dm`, or chose the digest and the game runs
    out before their next digest (`before_digest`)."""

    guild_id: int
    player_id: str
    game: Waiting
    before_digest: bool = False


Notice = Digest | DirectReminder
Deliver = Callable[[Notice], Awaitable[bool]]
"""Send a notice; False when it could not be sent (direct messages closed)."""


def waiting_for(service: MatchService, guild_id: int | None, player_id: str) -> list[Waiting]:
    """The player's correspondence games (in the guild, hosted here) that wait for their move, oldest match
    first (a game whose clock stands still for a vacation waits too: its time left is its time then)."""
    now, wall = service.now(), service.wall()
    out = []
    for live in service.player_matches(player_id, guild_id):
        seat = live.seat_of(player_id)
        clocks = live.clocks
        if seat is None or clocks.tc.kind != ClockKind.CORRESPONDENCE or live.status != MatchStatus.ONGOING:
            continue
        if clocks.running != seat:
            continue
        left = max(0.0, clocks.limit() - clocks.action_elapsed(now))
        opponent = live.players[3 - seat].name
        reminded = "reminder" in {str(f) for f in clocks.fired}
        deadline = wall + dt.timedelta(seconds=left)
        out.append(Waiting(live.id, live.guild_id, live.channel_id, opponent, left, deadline, reminded))
    return out


class Reminders:
    """Reminders as direct messages and the daily digest, for one process (built by the composition root,
    subscribed to the host's events there; its face sets `deliver` and `serves`, then calls `start`)."""

    def __init__(self, service: MatchService, store: CorrespondenceStore, jobs: JobQueue) -> None:
        self.service = service
        self.store = store
        self.jobs = jobs
        self.deliver: Deliver | None = None
        """The face's delivery of a notice (None: nobody delivers, nothing is sent)."""
        self.serves: Callable[[int], bool] = lambda _guild: True
        """Whether this process serves a server (the others' digests are theirs)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._started = False

    # -- reminders -----------------------------------------------------------------------------
    def on_host_event(self, ev: HostEvent) -> None:
        """A reminder: sent as a direct message too, to a player who chose `dm`, or who chose the digest and
        whose deadline comes before their next digest (in the background)."""
        if ev.kind != REMINDER or ev.seat is None or self.deliver is None:
            return
        task = asyncio.create_task(self._reminded(ev), name=f"reminder-dm-{ev.match_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _reminded(self, ev: HostEvent) -> None:
        live = self.service.live.get(ev.match_id)
        if live is None or live.guild_id is None or ev.seat not in live.players or self.deliver is None:
            return
        player_id = live.players[ev.seat].id
        player = await self.store.player(live.guild_id, player_id)
        game = next((g for g in waiting_for(self.service, live.guild_id, player_id) if g.match_id == live.id), None)
        if game is None:
            return
        if player.notify == "dm":
            await self.deliver(DirectReminder(live.guild_id, player_id, game))
        elif player.notify == "digest":
            job = await self.jobs.get(digest_key(live.guild_id, player_id))
            if job is None or job.done or game.deadline <= job.due:
                await self.deliver(DirectReminder(live.guild_id, player_id, game, before_digest=True))

    # -- the daily digest -----------------------------------------------------------------------
    async def start(self) -> None:
        """Run digests from now on (the database is migrated and the matches resumed by then); a player who
        chose the digest before it was a job gets one."""
        if self._started:
            return
        self._started = True
        for player in await self.store.players("digest"):
            if not self.serves(player.guild_id):
                continue  # another process (shard) serves this server
            if await self.jobs.get(digest_key(player.guild_id, player.player_id)) is None:
                cadence = player.digest_sent or self.service.wall()
                await self._plan(player.guild_id, player.player_id, None, cadence, cadence)
        self.jobs.register(DIGEST, self.send_digest)

    async def close(self) -> None:
        """Stop running digests and wait for the notices on their way."""
        self.jobs.unregister(DIGEST)
        for task in list(self._tasks):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 10)

    async def choose(self, guild_id: int, player_id: str, how: str, hour: int | None = None) -> dt.datetime | None:
        """A player's choice of how reminders reach them in a server; the first digest's moment (digest)."""
        now = self.service.wall()  # without an hour, a digest comes daily from the time of day it was chosen
        await self.store.save(guild_id, player_id, notify=how, digest_sent=now)
        if how == "digest":
            return await self._plan(guild_id, player_id, hour, now, now)
        await self.jobs.cancel(digest_key(guild_id, player_id))
        return None

    async def _plan(
        self, guild_id: int, player_id: str, hour: int | None, cadence: dt.datetime, after: dt.datetime
    ) -> dt.datetime:
        """The player's next digest job (one row per player and server: planned again, it moves)."""
        due = next_digest(after, hour, cadence)
        payload = {"guild": guild_id, "player": player_id, "hour": hour, "cadence": cadence.isoformat()}
        await self.jobs.add(DIGEST, digest_key(guild_id, player_id), due, payload, scope=guild_id)
        return due

    async def send_digest(self, job: Job) -> None:
        """A digest's moment: every game that waits for the player's move (none: nothing is sent), then the
        next day's job. A moment missed while no bot ran sends one digest now, not one per day."""
        guild_id, player_id = int(job.payload["guild"]), str(job.payload["player"])
        player = await self.store.player(guild_id, player_id)
        if player.notify != "digest":
            return  # the player chose otherwise meanwhile
        wall = self.service.wall()
        games = waiting_for(self.service, guild_id, player_id)
        if games and self.deliver is not None:
            await self.deliver(Digest(guild_id, player_id, games))
        await self.store.save(guild_id, player_id, digest_sent=wall)
        hour = job.payload.get("hour")
        cadence = dt.datetime.fromisoformat(str(job.payload.get("cadence") or job.due.isoformat()))
        await self._plan(guild_id, player_id, None if hour is None else int(hour), cadence, max(wall, job.due))
