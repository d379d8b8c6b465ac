"""The match service's shared state and the end of every action: commit, publish, re-arm the timers.

`Hosting` is what every collaborator of `bot.host.service.MatchService` shares (the hosted matches, the store,
the clocks, the outlet); `Committer` is the commit path: every action ends in `Committer.flush` — the match's
log is committed (`commit`; a write whose outcome is unknown is settled by `outcome` and `settled`), then the
room hears about it, then the match's timers re-arm (`bot.host.timers`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from bot.host.deadlines import DeadlineJobs, deadline_of
from bot.host.effects import Batch, started_event
from bot.host.events import EventKind, HostEvent
from bot.host.idle import Hosted
from bot.host.match import Live, Unsaved, dump, roll_back
from bot.host.notices import Owing, owed
from bot.host.subscribers import Outlet, Unheard
from bot.store.db import utcnow
from bot.store.leases import LeaseLost, process_owner
from bot.store.matches import MatchStore, NewEvent
from bot.types import OVER_STATUSES, EndReason

log = logging.getLogger(__name__)

ENDED_KEPT = 2000
"""How many (room, player) ends are remembered for answering a move posted after the end."""


class NotHosted(Unsaved):
    """The write was refused by the fencing epoch: another process hosts this match now (this one let it go)."""


class Unconfirmed(Unsaved):
    """A write whose outcome the database could not confirm either way: the match is reloaded before its next action."""


def loop_now() -> float:
    """The event loop's clock."""
    return asyncio.get_running_loop().time()


class Hosting:
    """What every part of the match service shares: the hosted matches, the store, the clocks, the outlet; and
    letting a match go (`drop`, `abandon`)."""

    def __init__(
        self,
        store: MatchStore,
        *,
        wake: Callable[[int], Live | None],
        instance: str | None = None,
        heartbeat_seconds: float = 1.0,
        owns_guild: Callable[[int | None], bool] | None = None,
        wall: Callable[[], dt.datetime] | None = None,
    ) -> None:
        self.store = store
        self.wall = wall or utcnow
        """The wall clock (aware UTC) that players' message times are read against."""
        self.instance = instance or process_owner("host")
        """This process (its heartbeat's name, its jobs' claims): another process of this machine tells at once when
        it no longer runs, one elsewhere by its heartbeat."""
        self.heartbeat_seconds = heartbeat_seconds
        self.owns_guild = owns_guild or (lambda _g: True)
        self.live: Hosted = Hosted(wake)
        """The matches hosted here: idle correspondence matches are built on look-up (`wake`, `bot.host.idle`)."""
        self.deadlines = DeadlineJobs(store.engine, self.wall, owner=self.instance)
        """Correspondence deadlines as durable jobs (`bot.host.deadlines`), run once across processes."""
        self.tells = False
        """Whether a face tells this service's notices (set by the faces that do): then a reminder or a result
        is owed durably, stored with its action (`bot.host.notices`), until the face marks it told."""
        self.outlet: Outlet = Unheard()
        """Where every committed event goes: the composition root's bus sets itself here (`bot.compose.Bus`);
        the service keeps no listeners of its own."""
        self.closed = False
        self.leaving: set[asyncio.Task[None]] = set()
        """Timer tasks of matches let go while they acted: awaited, not cancelled (see `drop`)."""
        self.unsure: set[int] = set()
        """Matches whose last write may or may not have committed: reloaded from the database first thing."""
        self.late_turns: dict[int, tuple[tuple[int, int | None], dt.datetime]] = {}
        """Match → (its turn, Discord time) after an accepted late action, for the next late text."""
        self.ended_here: dict[tuple[int, str], tuple[int, Any]] = {}
        """(room, player id) → (the match that ended there last for that player, its ruleset): a move posted
        after the end is answered (`MatchService.over_for`); the latest `ENDED_KEPT` only."""
        self.caught_up = asyncio.Event()
        """Cleared by an adapter that first reads what players posted while no host ran: correspondence
        deadlines that passed meanwhile wait for it (`rule_overdue`), so a move posted in time still counts."""
        self.caught_up.set()
        self.room_privacy: Callable[[int | None], bool | None] | None = None
        """Set by a face that knows its rooms: whether the room (channel id) a match opens in is private. The
        answer is stored with the match (`created` event, key `private`), so lists keep a private room's
        matches out whatever the server's settings later say."""

    # -- the outlet ------------------------------------------------------------------
    async def publish(self, event: HostEvent) -> None:
        """Hand a committed event to the outlet (the root's bus): only ever after its commit."""
        await self.outlet.publish(event)

    async def announce(self, live: Live) -> None:
        """Publish the `resumed` event of a match built on demand, before anything else it says."""
        if live.unannounced:
            live.unannounced = False
            await self.publish(started_event(live, EventKind.RESUMED))

    # -- letting matches go --------------------------------------------------------------
    def drop(self, live: Live) -> None:
        """Stop hosting a match (over, or let go): an ended one is remembered in its room (`ended_here`), its
        timer task cancelled — or, if it is in the middle of an action, left to end by itself."""
        self.live.pop(live.id, None)
        if live.status in OVER_STATUSES and live.channel_id is not None:
            for player in live.players.values():
                self.ended_here.pop((live.channel_id, player.id), None)
                self.ended_here[(live.channel_id, player.id)] = (live.id, live.ruleset)
            while len(self.ended_here) > ENDED_KEPT:
                del self.ended_here[next(iter(self.ended_here))]
        task, live.task = live.task, None
        if task is None or task is asyncio.current_task() or task.done():
            return
        if live.acting:
            # Its timer is in the middle of an action (let go by `abandon`, which takes no lock): cancelling it
            # could cut a database call short (the connection is then thrown away mid-statement). It ends by
            # itself once the action is over, the match being gone from `live`.
            self.leaving.add(task)
            task.add_done_callback(self.leaving.discard)
            return
        task.cancel()

    def abandon(self) -> list[int]:
        """Stop hosting, without writing anything, every live match this process no longer owns (its shard was
        taken over): timers cancelled, the match left to its new host. The ids let go."""
        idle = [i.id for i in self.live.idle.values() if not self.owns_guild(i.guild_id)]
        for match_id in idle:
            del self.live.idle[match_id]
        gone = [live for live in self.live.awake() if not self.owns_guild(live.guild_id)]
        for live in gone:
            self.drop(live)
            self.unsure.discard(live.id)
            self.late_turns.pop(live.id, None)
        return sorted([live.id for live in gone] + idle)


class Committer:
    """The commit path: an action's log and the match's snapshot stored together (fenced by this process's
    lease), a write whose outcome is unknown settled, then the events published and the timers re-armed
    (`rearm`: `bot.host.timers.Timers.rearm`)."""

    def __init__(self, hosting: Hosting, *, rearm: Callable[[Live], None]) -> None:
        self.hosting = hosting
        self.store = hosting.store
        self.rearm = rearm

    async def commit(
        self,
        live: Live,
        events: list[NewEvent],
        *,
        winner: int | None = None,
        reason: EndReason | None = None,
        players: dict[int, tuple[str, str]] | None = None,
        told: Sequence[HostEvent] = (),
    ) -> list[HostEvent]:
        """Store an action's log entries with the match's snapshot. `told`: the action's events; those people
        must hear of are owed in the same transaction (the outbox, `owed`), the others come back, to publish."""
        hosting = self.hosting
        if live.unlogged:  # built on demand: its `resumed` entry goes first in its first write
            events = [NewEvent("resumed", data={"downtime_uncharged": False}), *events]
        at, wall = loop_now(), hosting.wall()
        job = deadline_of(live, at, wall)  # a correspondence match's next deadline, in the same transaction
        snapshot = dump(live, at, hosting.instance, wall)
        out, notices = owed(told, live.seq, live.guild_id) if hosting.tells and told else (list(told), [])
        also = Owing(notices, job) if notices else job
        try:
            await self.store.write_batch(
                live.id,
                live.seq,
                events,
                snapshot=snapshot,
                status=live.status,
                winner_seat=winner,
                result_reason=reason,
                players=players,
                also=also,
            )
        except LeaseLost:
            hosting.abandon()  # the store's fencing already forgot the shard: every match of it goes
            raise NotHosted from None
        except Exception:
            if await self.store.fenced_off(live.guild_id):
                # The write failed and the shard was taken over meanwhile (a process frozen inside its
                # transaction loses it to the server's timeout, then its lease): whatever this write did, the
                # match is the new host's now.
                hosting.abandon()
                raise NotHosted from None
            stood = await self.outcome(live, len(events), snapshot)
            if stood is not True:
                what = "did not commit" if stood is False else "may or may not have committed"
                log.exception(
                    "match %s: writing %d event(s) failed and %s; back to the last saved state",
                    live.id,
                    len(events),
                    what,
                    extra={"match": live.id, "guild": live.guild_id},
                )
                roll_back(live, loop_now())
                self.rearm(live)
                raise (Unsaved if stood is False else Unconfirmed) from None
            log.warning(
                "match %s: the database reported an error, but the %d event(s) were committed", live.id, len(events)
            )
        live.seq += len(events)
        live.committed = (snapshot, live.seq)
        live.unlogged = False
        hosting.deadlines.written(job)
        return out

    # -- writes whose outcome is unknown -------------------------------------------------
    async def created_after_all(self, snapshot: dict[str, Any]) -> int | None:
        """After creating a match reported an error: the id of the match if it was stored all the same (found
        by its first snapshot, which names this process and the loop time), else None."""
        try:
            stored = await self.store.unfinished()
        except Exception:
            return None
        for match in stored:
            snap = match.snapshot
            if snap.get("instance") == snapshot["instance"] and snap.get("loop_at") == snapshot["loop_at"]:
                return match.id
        return None

    async def outcome(self, live: Live, count: int, snapshot: dict[str, Any] | None = None) -> bool | None:
        """After a write reported an error: did it commit after all (True), not at all (False), or cannot the
        database tell now (None: the match is reloaded before its next action)? The stored event count says
        which — and, as another process may have written the same count (two terminals on one match), the
        stored snapshot must be the one written here before the write counts as committed."""
        unsure = self.hosting.unsure
        try:
            stored = await self.store.event_count(live.id)
            if stored == live.seq + count and snapshot is not None:
                loaded = await self.store.load(live.id)
                if loaded is None or json.loads(json.dumps(loaded.snapshot)) != json.loads(json.dumps(snapshot)):
                    log.warning("match %s: another process wrote this match meanwhile; reloading it", live.id)
                    unsure.add(live.id)
                    return None
        except Exception:
            log.warning("match %s: the database cannot say whether the last write committed", live.id)
            unsure.add(live.id)
            return None
        if stored == live.seq + count:
            return True
        if stored == live.seq:
            return False
        unsure.add(live.id)
        return None

    async def settled(self, live: Live) -> bool:
        """Make a match whose last write was unconfirmed equal to the database again (False: still cannot tell);
        a match built on demand is announced first."""
        hosting = self.hosting
        await hosting.announce(live)
        if live.id not in hosting.unsure:
            return True
        try:
            stored = await self.store.load(live.id)
        except Exception:
            return False
        hosting.unsure.discard(live.id)
        if stored is None or stored.event_count == live.seq:
            return True
        log.warning(
            "match %s: reloaded from the database (%d stored events, %d here)", live.id, stored.event_count, live.seq
        )
        live.committed = (stored.snapshot, stored.event_count)
        roll_back(live, loop_now())
        if live.status in OVER_STATUSES:  # the unconfirmed write was the end of the match
            hosting.drop(live)
            return True
        self.rearm(live)
        await hosting.publish(started_event(live, EventKind.RESUMED))
        return True

    async def flush(self, live: Live, batch: Batch) -> None:
        """Commit, then publish, then re-arm: the order every action ends with."""
        hosting = self.hosting
        out = batch.out
        if batch.log:
            out = await self.commit(
                live, batch.log, winner=batch.winner, reason=batch.reason, players=batch.players, told=batch.out
            )
        if live.status in OVER_STATUSES:
            hosting.drop(live)
        await hosting.announce(live)
        for ev in out:
            await hosting.publish(ev)
        self.rearm(live)
