"""The composition root: the one place that builds the store, every service and the event bus. The entry point
(`bot.ops`) builds one application per process here and hands it whole to its face, typed by what the face
needs: the Discord bot an `App` (`build_app`), the terminal room, the scheduled room and the tournament
commands a `Host` (`build_host`; the feature cores they need are built on it when asked: `Host.scheduler`,
`Host.tournaments`), the review pages their `Readers` (`build_readers`); the command lines build what they
read (`build_store`, `build_keeper`, …). Faces (`bot.adapters`, `bot.ops`) construct no service or store
themselves, and no face calls a `build_*` of this module (`tests/test_compose.py` walks their source).

The host's events reach their subscribers through one `Bus`, the service's `outlet` (the service keeps no
listeners of its own and hands each event on only after its commit), in stages the root fixes:

1. `Stage.RECORD` — the ratings. They are an after-commit listener (`bot.host.subscribers`): the bus
   gives them a queue of their own, so a finished match is rated in a batch by their own task, off the
   move path; a face that reports a rating asks for it first (`Ratings.settle`).
2. `Stage.TELL` — the faces (the Discord announcer, overview, series offers, reminders; the terminal
   room's lines): they note what to say and never wait on the outside world here.
3. `Stage.FOLLOW` — the feature cores that move things on from a result: series, tournaments, schedules
   (in that order). They too are after-commit listeners: each handles an end in its own task once the
   `RECORD` stage has handled it (`bot.host.subscribers.at_stage`); what they announce comes after the
   board has heard the end.

`Host.open()` runs the start-up every face shares: the migrations, then the catch-up of what a finished
match still owes (a match that ended while no process listened, or whose rating could not be stored, is
rated here, in the order the matches ended).

`hold(host, scope, id)` puts a face under the same ownership as the bot (`bot.ownership.scope`): the
lease of what it hosts (a tournament, a scheduled DM, a match) is taken before any match is resumed,
every write is fenced by its epoch, it is renewed while the face runs, and a loss lets the matches go
(`HostLease.lost` tells the face). `Host.close` releases it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, cast

from bot.coaching import CoachingService
from bot.host.confirm import Confirmations
from bot.host.digest import Reminders
from bot.host.events import HostEvent, Listener
from bot.host.service import MatchService
from bot.host.subscribers import BatchListener, Subscribers, at_stage, mark_of
from bot.jobs import JobQueue
from bot.jobs import Scope as JobScope
from bot.ownership.keeper import LeaseKeeper
from bot.ownership.lease import HostLease
from bot.ownership.scope import Scope, ScopeKeeper
from bot.ratings.service import Ratings
from bot.records.analysis_worker import AnalysisWorker, start_analysis_worker
from bot.records.coaching_source import StoredAnalyses
from bot.records.listing import Listings
from bot.schedule import Scheduler, ScheduleStore
from bot.series import SeriesService, SeriesStatus
from bot.series.rematch import Rematches
from bot.settings import Settings
from bot.store.correspondence import CorrespondenceStore
from bot.store.guilds import GuildSettingsStore
from bot.store.leases import Holder
from bot.store.matches import MatchStore
from bot.tournaments.core import TournamentCore
from bot.tournaments.lookup import place_of as tournament_place
from bot.tournaments.service import Entry, RatingOrder, Tournament, TournamentService

__all__ = [
    "App",
    "Bus",
    "Host",
    "HostLease",
    "Readers",
    "Scope",
    "Stage",
    "build_app",
    "build_coaching",
    "build_correspondence",
    "build_guild_settings",
    "build_host",
    "build_keeper",
    "build_ratings",
    "build_readers",
    "build_scheduler",
    "build_service",
    "build_store",
    "build_tournaments",
    "bus_of",
    "hold",
    "scope_of_match",
]

log = logging.getLogger(__name__)


class Stage(IntEnum):
    """When a subscriber hears a host event, relative to the others (see the module's docstring)."""

    RECORD = 1
    TELL = 2
    FOLLOW = 3


Subscriber = Listener | BatchListener | Callable[[Any], Awaitable[None] | None]
"""What subscribes to the bus: a host event listener (`bot.host.events`), or a listener of a core's news."""


class Bus:
    """The one bus of the process and its one listener list: the host service's events, handed to every
    subscriber in stage order (and, within a stage, in the order they subscribed), and the feature cores' news
    (a series' next game, a tournament's round, a schedule's ruling), which each core publishes here (`tell`)
    and faces subscribe to by its type (`topic`). The host service publishes through it (it is the service's
    `outlet`, set here; the service keeps no listeners). A failing subscriber is logged and the others still
    hear the event."""

    def __init__(self, service: MatchService) -> None:
        self._listeners: dict[tuple[type, Stage], list[Subscriber]] = {(HostEvent, stage): [] for stage in Stage}
        """Every subscriber: (the type of what it hears, its stage) → in the order they subscribed."""
        self._queues = Subscribers()
        """The after-commit listeners' queues (`bot.host.subscribers`), each marked with its stage."""
        self.service = service
        service.outlet = self

    def subscribe(self, listener: Subscriber, stage: Stage = Stage.TELL, *, topic: type = HostEvent) -> None:
        """Hear every stored host event at `stage` (faces: `Stage.TELL`). A listener marked `@after_commit`
        gets its own after-commit queue instead (it runs in its own task, off the move path, once the
        after-commit listeners of earlier stages have handled the same events). `topic`: a feature core's
        news instead (`SeriesNews`, `TournamentEvent`, `ScheduleEvent`), heard as the core tells it."""
        self._listeners.setdefault((topic, stage), []).append(listener)
        if topic is HostEvent and mark_of(listener) is not None:
            self._queues.add(at_stage(listener, int(stage)))

    def unsubscribe(self, listener: Subscriber) -> None:
        """Stop hearing (a face that goes away); unknown listeners are ignored."""
        for listeners in self._listeners.values():
            if listener in listeners:
                listeners.remove(listener)

    def listeners(self, topic: type = HostEvent) -> list[tuple[Stage, Subscriber]]:
        """Every subscriber of `topic` in the order it hears an event."""
        return [(stage, listener) for stage in Stage for listener in self._listeners.get((topic, stage), [])]

    async def tell(self, news: object) -> None:
        """A feature core's news (what its `publish` is given), to every subscriber of its type, in order."""
        for _stage, listener in self.listeners(type(news)):
            try:
                result = cast(Callable[[object], Awaitable[None] | None], listener)(news)
                if asyncio.iscoroutine(result):
                    await result
            except Exception:
                log.exception("subscriber failed for %s", type(news).__name__)

    async def publish(self, event: HostEvent) -> None:
        """A committed host event (the service calls this only after the commit): queued for the after-commit
        listeners of its first stage (their order is the commit order; later stages get it from them), then
        handed to every inline subscriber in order."""
        await self._queues.publish(event)
        for _stage, listener in self.listeners():
            if mark_of(listener) is not None:
                continue  # after the commit, from its queue
            try:
                result = cast(Listener, listener)(event)  # inline: marked ones were skipped above
                if asyncio.iscoroutine(result):
                    await result
            except Exception:
                log.exception("subscriber failed for %s in match %s", event.kind, event.match_id)

    async def drained(self) -> None:
        """Wait until every after-commit listener has handled the events committed so far."""
        await self._queues.drained()

    async def close(self) -> None:
        """Let the after-commit queues finish what they hold, then stop their tasks (the service's `close`)."""
        await self._queues.close()


def bus_of(service: MatchService) -> Bus:
    """The bus a service publishes to: the one already set, else a new one (a service built without the root).
    For the root, the entry points and tests: a face subscribes on its application's bus (`Host.bus`, `App.bus`)."""
    outlet = service.outlet
    return outlet if isinstance(outlet, Bus) else Bus(service)


@dataclass
class Host:
    """The store, the host service on it, its event bus, and the subscribers every face shares."""

    store: MatchStore
    service: MatchService
    ratings: Ratings
    bus: Bus
    lease: HostLease | None = None
    """The terminal face's lease (`hold`); None: writes are not fenced (tests, one-shot reads)."""
    _coaching: CoachingService | None = None
    _correspondence: CorrespondenceStore | None = None

    @property
    def correspondence(self) -> CorrespondenceStore:
        """The correspondence settings and vacations of this store (the room's `NAME: vacation N`), built on
        first use."""
        if self._correspondence is None:
            self._correspondence = build_correspondence(self.store)
        return self._correspondence

    def scheduler(
        self, *, only: int | None = None, wall: Callable[[], dt.datetime] | None = None, poll_seconds: float = 60.0
    ) -> Scheduler:
        """The scheduler of scheduled DMs on this host, recording the ends of its matches (`Stage.FOLLOW`);
        `only`: this one DM's jobs (the scheduled terminal room). Built when the face asks, once it has opened
        the store."""
        return build_scheduler(self, only=only, wall=wall, poll_seconds=poll_seconds)

    def tournament_reader(self) -> TournamentService:
        """The tournaments of this store, read only: on an idle host service of its own, hosting nothing and
        subscribed to nothing (what a command looks up before this host resumes anything)."""
        return build_tournaments(self.store)

    def tournaments(self) -> TournamentService:
        """The tournament service on this host: it records its games' results and moves rounds on (subscribed
        at `Stage.FOLLOW` when asked for, so after the matches the face resumed first), seeded by the ratings
        (`--seeding rating`)."""
        return build_tournaments(self, rate=True)

    async def hold(self, scope: Scope, ident: int) -> Holder | None:
        """Take the lease of what this terminal face hosts, before it resumes any match (`hold`, one look):
        None once held (renewed from then on, `lease`), else the process that holds it."""
        return await hold(self, scope, ident)

    async def scope_of(self, match_id: int) -> tuple[Scope, int]:
        """The lease a match of this store is hosted under (`scope_of_match`)."""
        return await scope_of_match(self.store, match_id)

    @property
    def coaching(self) -> CoachingService:
        """The coaching service (puzzles, insights, fair play) of this store, built on first use."""
        if self._coaching is None:
            self._coaching = build_coaching(self.store, self.ratings)
        return self._coaching

    async def open(self) -> None:
        """Migrate the database, then catch up what finished matches still owe."""
        await self.store.open()
        await self.catch_up()

    async def catch_up(self) -> int:
        """Rate every finished rated match that is not rated yet; returns how many."""
        return await self.ratings.catch_up()

    def start_analysis(
        self, *, owns: Callable[[int | None], bool] | None = None, catch_up: bool = True
    ) -> AnalysisWorker:
        """The background analysis of finished matches (it hears the host's events inline at `Stage.FOLLOW`);
        `catch_up`: queue the recent matches never analysed. The caller closes it."""
        worker = start_analysis_worker(
            self.service, functools.partial(self.bus.subscribe, stage=Stage.FOLLOW), owns=owns, catch_up=catch_up
        )
        worker.landed.append(self.coaching.on_analysis)  # puzzles as each analysis lands
        return worker

    async def close(self) -> None:
        """Let the subscribers apply what finished matches queued, stop their retries, then the host service
        and the store (in that order)."""
        await self.service.drained()
        await self.ratings.close()
        await self.service.close()
        if self.lease is not None:
            await self.lease.release()
        await self.store.close()


def build_store(url: str) -> MatchStore:
    """The match store of a database URL (nothing connects until it is opened)."""
    return MatchStore(url)


def build_service(
    store: MatchStore,
    *,
    heartbeat_seconds: float = 1.0,
    owns_guild: Callable[[int | None], bool] | None = None,
    wall: Callable[[], dt.datetime] | None = None,
) -> MatchService:
    """The host service on a store, with no subscriber (`dmhost shardhost`; every other face: `build_host`)."""
    return MatchService(store, heartbeat_seconds=heartbeat_seconds, owns_guild=owns_guild, wall=wall)


def build_ratings(store: MatchStore) -> Ratings:
    """The ratings of a store's database, subscribed to nothing (`dmhost ratings`: read, catch up, rebuild)."""
    return Ratings(store)


def build_coaching(store: MatchStore, ratings: Ratings | None = None) -> CoachingService:
    """The coaching service of a store's database: puzzles, insights, fair play (`dmhost puzzles`, `/puzzle`).
    It reads the stored analyses and replays matches through the review layer, keeps a player's own
    unfinished series out of their puzzles, and compares fair-play rates among players of one rating."""
    from bot.series.lookup import rows_of

    async def blocked(player_ids: Sequence[str]) -> set[int]:
        rows = await rows_of(store.engine, player_ids)
        return {int(m) for r in rows if r["status"] == SeriesStatus.RUNNING for m in r["matches"] or []}

    rated = ratings or build_ratings(store)
    return CoachingService(store, StoredAnalyses(store), blocked=blocked, rating_of=rated.ratings_of)


def build_host(
    url: str | None = None,
    *,
    store: MatchStore | None = None,
    service: MatchService | None = None,
    heartbeat_seconds: float = 1.0,
    owns_guild: Callable[[int | None], bool] | None = None,
    wall: Callable[[], dt.datetime] | None = None,
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
        store = build_store(url)
    if service is None:
        service = build_service(store, heartbeat_seconds=heartbeat_seconds, owns_guild=owns_guild, wall=wall)
    bus = bus_of(service)
    ratings = build_ratings(store)
    bus.subscribe(ratings.on_finished, Stage.RECORD)
    return Host(store, service, ratings, bus)


def build_keeper(
    host: Host | MatchService, shard_ids: list[int], shard_count: int, *, lease_seconds: float
) -> LeaseKeeper:
    """The lease keeper of a host process's shards (it fences the store's writes)."""
    service = host.service if isinstance(host, Host) else host
    return LeaseKeeper(service.store, service.instance, shard_ids, shard_count, lease_seconds=lease_seconds)


def build_correspondence(store: MatchStore) -> CorrespondenceStore:
    """The correspondence settings and vacations of a store's database (`/dm event vacation`, the room's
    `NAME: vacation N`)."""
    return CorrespondenceStore(store.engine)


def build_guild_settings(store: MatchStore) -> GuildSettingsStore:
    """The servers' settings on a store's database (load them before reading)."""
    return GuildSettingsStore(store.engine)


def build_scheduler(
    host: Host | MatchStore,
    *,
    only: int | None = None,
    shards: tuple[int, list[int]] | None = None,
    local: bool = True,
    wall: Callable[[], dt.datetime] | None = None,
    poll_seconds: float | None = 60.0,
    jobs: JobQueue | None = None,
) -> Scheduler:
    """The scheduler of scheduled DMs. On a `Host` it records the ends of its matches (subscribed at
    `Stage.FOLLOW`); on a bare store it only reads and writes schedules (`dmhost schedule …`).
    `only`: this one DM's jobs (the scheduled terminal room); `shards`: (count, ids) of this process."""
    store = host.store if isinstance(host, Host) else host
    schedules = ScheduleStore(store.engine, shards, local=local)
    schedules.only = only
    if not isinstance(host, Host):
        return Scheduler(schedules, wall=wall, poll_seconds=poll_seconds)
    scheduler = Scheduler(schedules, host.service, wall=wall, poll_seconds=poll_seconds, jobs=jobs)
    scheduler.publish = host.bus.tell
    host.bus.subscribe(scheduler.on_host_event, Stage.FOLLOW)
    return scheduler


def build_tournaments(
    host: Host | MatchStore,
    *,
    wall: Callable[[], dt.datetime] | None = None,
    rate: bool = False,
    jobs: JobQueue | None = None,
) -> TournamentService:
    """The tournament service. On a `Host` it records its games' results and moves rounds on (subscribed at
    `Stage.FOLLOW`); `rate`: `--seeding rating` seeds by the host's ratings. On a bare store it only reads
    (the review pages). A face sets its own hooks afterwards (`open_room`, `left_server`, …)."""
    if not isinstance(host, Host):
        return TournamentService(TournamentCore(build_service(host)))
    tournaments = TournamentService(TournamentCore(host.service, wall=wall, jobs=jobs))
    tournaments.publish = host.bus.tell
    if rate:
        tournaments.rating_order = _by_rating(host.ratings)
    tournaments.hear = functools.partial(host.bus.subscribe, stage=Stage.FOLLOW)
    tournaments.listen()
    return tournaments


def _by_rating(ratings: Ratings) -> RatingOrder:
    """Seeding by the ratings of a tournament's server and game (`--seeding rating`)."""

    async def order(t: Tournament, entries: Sequence[Entry]) -> Sequence[Entry]:
        ranked = await ratings.seed_order(t.guild_id, t.game, [e.player_id for e in entries])
        by_player = {e.player_id: e for e in entries}
        return [by_player[p] for p in ranked]

    return order


@dataclass
class Readers:
    """What the review pages read: the store, the servers' settings, the ratings, the tournaments and the series."""

    store: MatchStore
    guilds: GuildSettingsStore
    ratings: Ratings
    tournaments: TournamentService
    analysis: AnalysisWorker
    """Where a finished match without a stored analysis is queued (started by its first page)."""
    series: SeriesService
    listings: Listings
    """The pages' lists: a server's matches, the private ones, whether an analysis is stored."""

    async def close(self) -> None:
        """Stop the analysis, then close the store."""
        await self.analysis.close()
        await self.store.close()


def build_readers(store: MatchStore | str) -> Readers:
    """The read-only services of a database (`dmhost web`): nothing subscribes, nothing is hosted."""
    store = build_store(store) if isinstance(store, str) else store
    guilds, tournaments = build_guild_settings(store), build_tournaments(store)
    series = SeriesService(tournaments.host)  # reads through the same idle host service
    listings = Listings(store, guilds)
    return Readers(store, guilds, build_ratings(store), tournaments, AnalysisWorker(store), series, listings)


@dataclass
class App:
    """Everything the Discord bot's features receive: the host (store, service, bus, ratings), the servers'
    settings, the correspondence settings, and the feature cores (series, tournaments, schedules)."""

    host: Host
    guilds: GuildSettingsStore
    correspondence: CorrespondenceStore
    series: SeriesService
    tournaments: TournamentService
    scheduler: Scheduler
    jobs: JobQueue
    """The process's one durable jobs runner (`bot.jobs`): each feature registers its kinds once ready."""
    rematches: Rematches
    """The rematch offers under finished matches (durable jobs of kind `rematch`)."""
    confirmations: Confirmations
    """The Confirm / Cancel prompts before a grave text (durable jobs of kind `confirm`)."""
    reminders: Reminders
    """Correspondence reminders as direct messages and the daily digest (durable jobs of kind `digest`)."""

    @property
    def store(self) -> MatchStore:
        return self.host.store

    @property
    def service(self) -> MatchService:
        return self.host.service

    @property
    def ratings(self) -> Ratings:
        return self.host.ratings

    @property
    def bus(self) -> Bus:
        return self.host.bus

    def keeper(self, shard_ids: list[int], shard_count: int, *, lease_seconds: float) -> LeaseKeeper:
        """The lease keeper of this process's shards (`dmhost run` with ownership)."""
        return build_keeper(self.host, shard_ids, shard_count, lease_seconds=lease_seconds)

    async def close(self) -> None:
        """Stop the host (the features stopped their timers first)."""
        await self.host.close()


def build_app(
    settings: Settings,
    *,
    service: MatchService | None = None,
    owns_guild: Callable[[int | None], bool] | None = None,
    wall: Callable[[], dt.datetime] | None = None,
) -> App:
    """The Discord bot's application, built once: the store and host service (unless a test passes its
    service), the bus with the ratings, then the feature cores in their bus order (series, tournaments,
    schedules). `wall` is Discord's clock; the faces set the cores' hooks (rooms, starters) when loaded."""
    if service is None:
        store = build_store(settings.db_url)
        service = build_service(store, heartbeat_seconds=settings.heartbeat_seconds, owns_guild=owns_guild, wall=wall)
    host = build_host(service=service)
    series = SeriesService(service, publish=host.bus.tell)
    host.bus.subscribe(series.on_host_event, Stage.FOLLOW)
    shards = (settings.shard_count, list(settings.shard_ids)) if settings.shard_ids and settings.shard_count else None
    jobs = JobQueue(
        host.store.engine,
        clock=service.wall,  # Discord's time (SimCord's virtual time in tests)
        owner=service.instance,  # its claims die with the host (its heartbeat): taken over at once
        scope=JobScope(shards=shards, local=False),
        poll_s=settings.schedule_poll_seconds,
    )
    service.deadlines.use(jobs)  # correspondence deadlines: registered by the service after the room catch-up
    tournaments = build_tournaments(host, wall=wall, jobs=jobs)
    scheduler = build_scheduler(
        host, shards=shards, local=False, wall=wall, poll_seconds=settings.schedule_poll_seconds, jobs=jobs
    )
    correspondence = build_correspondence(host.store)
    reminders = Reminders(service, correspondence, jobs)
    host.bus.subscribe(reminders.on_host_event, Stage.FOLLOW)
    return App(
        host,
        build_guild_settings(host.store),
        correspondence,
        series,
        tournaments,
        scheduler,
        jobs,
        Rematches(service, series, jobs),
        Confirmations(service, jobs),
        reminders,
    )


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
    place = await tournament_place(store.engine, match_id)
    if place is not None:
        return Scope.TOURNAMENT, place.tournament_id
    schedule = await ScheduleStore(store.engine).by_match(match_id)
    if schedule is not None:
        return Scope.SCHEDULE, schedule.id
    return Scope.MATCH, match_id
