"""The runner of the jobs table: one asyncio task per process sleeps until the next due job, claims it in the
database and hands it to the handler registered for its kind.

- **Once across processes.** A job is claimed with a conditional UPDATE (`… WHERE claimed_by IS NULL`);
  only the runner whose update changed the row runs it. A claim whose commit is reported lost is read back:
  the job runs only if the row carries this claim's token, so an ambiguous commit never runs a job twice.
- **Retried.** A handler that raises gives its job back, due `retry_s` later.
- **Kept alive, so a crash costs seconds, not minutes.** While a handler runs, the runner keeps its claim
  alive: every `lease_s / 3` one UPDATE writes `claimed_at` anew on every job it runs (rows still carrying
  one of its own tokens: the jobs of a `together` batch, claimed in one statement, are refreshed by that
  same one statement). A runner stopped in the middle (SIGKILL, crash, deploy, its task cancelled) leaves
  claims that go stale `lease_s` after their last refresh; another runner, or the next start, wakes at that
  moment (`next_due` counts it) and takes the jobs up, so the `corr` deadlines a process died while ruling
  are ruled within the lease. The default lease, `LEASE_S` = 15 s, is short for that reason, yet three
  refreshes long: a database slow for a few seconds, an event loop blocked for a moment or process clocks
  a few seconds apart (the database's clock: none) never make a live runner's claim stale. A handler may
  therefore run longer than the lease. Each claim is written at its own time (read afresh once a job ran).
- **Never run twice by one runner.** A runner never starts a second run of a job it is still running, even
  when its claim went stale meanwhile. A refresh that finds a claim gone (the job added again meanwhile, or
  taken by another runner after this process was frozen for longer than the lease) is logged at info and
  the run goes on, its end marking nothing done for the other claim: as after a crash, a handler tolerates
  that rare second run elsewhere (the features guard their effects by their own conditional updates and
  the ownership lease's fencing).
- **Durable.** Jobs are rows: a job due while no process ran is due at the next start.
- **Only registered kinds.** A runner claims only the kinds registered with it, so a feature registers once
  it is ready (after its own catch-up) and a process without a feature leaves its jobs to others.

Times are absolute UTC. The clock is the database's by default (one clock for every process); a face with
a clock of its own (Discord's, a virtual clock in tests) passes it, and the task sleeps the difference with
the event loop, so virtual time drives it in tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import uuid
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.jobs import store
from bot.jobs.store import Job, NewJob, Only, Scope
from bot.outage import OUTAGE, Retry
from bot.store.leases import process_gone, process_owner

log = logging.getLogger(__name__)

Handler = Callable[[Job], Awaitable[None]]
"""Runs one job; raising gives the job back for a retry."""
Keys = Callable[[], Collection[str] | None]
"""The only keys of a kind this runner takes now (None: any)."""
Clock = Callable[[], dt.datetime]

MAX_SLEEP_S: Final = 86400.0
OWED_RETRY_S: Final = 1.0
MIN_SLEEP_S: Final = 0.05
CLOSE_WAIT_S: Final = 10.0
LEASE_S: Final = 15.0
"""How long a claim whose runner stopped refreshing it holds its job (see the module's docstring)."""
DEAD_AFTER_S: Final = 5.0
"""A runner whose process's heartbeat (`heartbeats`, written every second by default) is this old is dead."""
WATCH_S: Final = 0.25
"""While another runner holds a claim on a job this one could run, it looks this often whether that runner died."""


@dataclass
class _Held:
    """A job this runner is running: the token of its claim, its key (for the log), whether the claim is gone."""

    token: str
    key: str
    gone: bool = False


class Later(Exception):
    """Raised by a handler for a job that is not this process's to run now (another process hosts what it is
    about): the job is given back, due again in `seconds`, and no error is logged."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"later, in {seconds:.1f} s")
        self.seconds = seconds


class JobQueue:
    """Durable jobs of one process (or of its shards' guilds)."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        clock: Clock | None = None,
        instance: str | None = None,
        owner: str | None = None,
        scope: Scope | None = None,
        retry_s: float = 5.0,
        lease_s: float = LEASE_S,
        poll_s: float | None = 60.0,
        batch: int = 200,
        dead_after_s: float = DEAD_AFTER_S,
    ) -> None:
        self.engine = engine
        self.clock = clock
        """None: the database's clock."""
        self.instance = instance or process_owner("jobs")
        self.owner = owner or self.instance
        """Whose claims these are: every claim's token is `owner:RANDOM`. A process id of this machine
        (`process_owner`) or a host service's instance (its heartbeat's name): other runners tell from it
        that this process died, and take its claims over at once."""
        self.dead_after = dt.timedelta(seconds=dead_after_s)
        self.scope = scope or Scope()
        self.retry_s = retry_s
        self.lease = dt.timedelta(seconds=lease_s)
        """A claim not refreshed for this long is stale (its runner stopped): refreshed every third of it."""
        self.poll_s = poll_s
        """Also look at the table this often (jobs added by other processes); None: only when woken."""
        self.batch = batch
        self._handlers: dict[str, Handler] = {}
        self._together: set[str] = set()
        self._keys: dict[str, Keys] = {}
        self._later: dict[int, dt.datetime] = {}
        """Jobs a handler gave back (`Later`: another process's to run), left alone here until then (on the
        queue's clock); their due time in the table stays what it is, so their own runner takes them on time."""
        self._watching = False
        """Whether another runner held a live claim on a job of ours at the last look (then looked at often)."""
        self._task: asyncio.Task[None] | None = None
        self._sleeping = False
        self._until: dt.datetime | None = None
        """While asleep: when the runner looks again (on its clock)."""
        self._dirty = False
        """Woken while not asleep (a look-up in flight may have missed a job): look again before sleeping."""
        self._closed = True
        self._owed: dict[int, str] = {}
        """Jobs that ran but could not be marked done (a failed commit): marked again by the task."""
        self._held: dict[int, _Held] = {}
        """The jobs whose handler runs here now, by id: their claims are kept alive, never claimed again here."""
        self._keeper: asyncio.Task[None] | None = None
        """Refreshes those claims while there are any (it ends, or is stopped, once there are none)."""
        self._keeper_asleep = False

    # -- time ------------------------------------------------------------------------------------
    async def now(self) -> dt.datetime:
        """The queue's clock."""
        if self.clock is not None:
            return self.clock()
        async with self.engine.connect() as conn:
            return await store.database_now(conn)

    # -- handlers and lifecycle ------------------------------------------------------------------
    def register(self, kind: str, handler: Handler, *, together: bool = False, keys: Keys | None = None) -> None:
        """Run jobs of `kind` with `handler` from now on (the runner wakes to look at them). `together`: the
        jobs of this kind due at once are claimed in one statement and run concurrently (their handlers touch
        separate things, as correspondence matches' deadlines: many overdue after a restart are ruled at once).
        `keys`: asked at every look, the only keys of this kind this runner takes (a process hosting a few
        matches takes only their deadlines; the others are their hosts' to take, on time)."""
        self._handlers[kind] = handler
        if together:
            self._together.add(kind)
        else:
            self._together.discard(kind)
        if keys is not None:
            self._keys[kind] = keys
        else:
            self._keys.pop(kind, None)
        self.wake()

    def unregister(self, kind: str) -> None:
        """Stop running jobs of `kind` here (they stay for another process or a later start)."""
        self._handlers.pop(kind, None)
        self._together.discard(kind)
        self._keys.pop(kind, None)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds this runner claims."""
        return tuple(self._handlers)

    @property
    def running(self) -> bool:
        """Whether the runner task is alive."""
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start the runner task (idempotent)."""
        self._closed = False
        if not self.running:
            self._spawn()

    def _spawn(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"jobs-{self.instance}")

    async def close(self, finish_s: float = CLOSE_WAIT_S) -> None:
        """Stop the runner: the job in hand may finish for `finish_s` seconds (0: stopped at once; its claim
        then goes stale after the lease and the job is taken up again); everything else stays stored."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            if self._sleeping or finish_s <= 0:
                task.cancel()
            else:
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                    await asyncio.wait_for(asyncio.shield(task), finish_s)
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        keeper = self._keeper
        if keeper is not None and not self._held:  # a `run_due` of another task may still run a job here
            self._keeper = None
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await keeper

    def wake(self) -> None:
        """Look at the table again now (a job was added, maybe earlier than the runner sleeps). A sleeping
        runner is started afresh (its sleep is a plain `asyncio.sleep`, which virtual clocks recognise)."""
        self._dirty = True
        self._until = None
        if self._closed or not self._sleeping or self._task is None:
            return
        self._sleeping = False
        self._task.cancel()
        self._spawn()

    def due_at(self, due: dt.datetime | None) -> None:
        """A job due at `due` was written in a feature's own transaction (`store.put`): wake the runner if it
        would sleep past it (a job moved later needs no wake: the runner finds it not due and sleeps again)."""
        if due is not None and (self._until is None or due < self._until):
            self.wake()

    # -- adding and cancelling -------------------------------------------------------------------
    async def add(
        self,
        kind: str,
        key: str,
        due: dt.datetime,
        payload: Mapping[str, Any] | None = None,
        *,
        scope: int | None = None,
    ) -> None:
        """Add a job (the same key again: that job, with the new time and payload, pending anew)."""
        await self.add_all([NewJob(kind, key, due, payload or {}, scope)])

    async def add_all(self, jobs: Sequence[NewJob]) -> None:
        """Add several jobs in one transaction."""
        if due_aware(jobs):
            async with self.engine.begin() as conn:
                await store.put(conn, jobs, dt.datetime.now(dt.UTC))
            self.wake()

    async def cancel(self, key: str) -> bool:
        """Drop a job that has not run; True when there was one."""
        async with self.engine.begin() as conn:
            return await store.cancel(conn, key)

    async def cancel_prefix(self, prefix: str) -> int:
        """Drop every job not run yet whose key starts with `prefix`."""
        async with self.engine.begin() as conn:
            return await store.cancel_prefix(conn, prefix)

    async def move(self, key: str, due: dt.datetime) -> bool:
        """A new due time for a job that has not run."""
        async with self.engine.begin() as conn:
            moved = await store.move(conn, key, due)
        self.wake()
        return moved

    async def get(self, key: str) -> Job | None:
        """One job by its key (run or not)."""
        async with self.engine.connect() as conn:
            return await store.read(conn, key)

    async def listing(self, prefix: str, *, pending: bool = False) -> list[Job]:
        """Jobs whose key starts with `prefix`, in due order."""
        async with self.engine.connect() as conn:
            return await store.listing(conn, prefix, pending=pending)

    # -- running ---------------------------------------------------------------------------------
    async def next_due(self) -> dt.datetime | None:
        """When the next job of a registered kind is claimable (None: there is none)."""
        if not self._handlers:
            return None
        skip, back = self._skipped(await self.now())
        async with self.engine.connect() as conn:
            first = await store.next_due(conn, self.kinds, self.scope, self.lease, skip, self._only())
        return min((t for t in (first, back) if t is not None), default=None)

    def _only(self) -> Only:
        """The keys of the kinds registered with `keys`, as they stand now."""
        only: dict[str, Collection[str]] = {}
        for kind, keys in self._keys.items():
            chosen = keys()
            if chosen is not None:
                only[kind] = chosen
        return only

    def _skipped(self, now: dt.datetime) -> tuple[set[int], dt.datetime | None]:
        """The jobs this runner leaves alone now (running here, or given back by `Later` until their time), and
        the first moment one of the latter is its to look at again."""
        for job_id, until in list(self._later.items()):
            if until <= now:
                del self._later[job_id]
        return set(self._held) | set(self._later), min(self._later.values(), default=None)

    async def free_the_dead(self, now: dt.datetime | None = None) -> set[int]:
        """Free at once the claims of runners known dead on the jobs this runner could run: a process of this
        machine that no longer runs, or one whose heartbeat is `dead_after` old. The jobs stay due at their own
        time (no lease to wait out); the ids freed."""
        kinds = self.kinds
        if not kinds:
            self._watching = False
            return set()
        now = await self.now() if now is None else now
        only = self._only()
        async with self.engine.connect() as conn:
            held = await store.held_elsewhere(conn, kinds, self.scope, now - self.lease, self.owner, only)
            owners = {store.owner_of(token) for token in held.values()}
            dead = {owner for owner in owners if process_gone(owner)}
            beats = await store.heartbeats(conn, owners - dead) if owners - dead else {}
        dead |= {owner for owner, at in beats.items() if now - at >= self.dead_after}
        claims = {job_id: token for job_id, token in held.items() if store.owner_of(token) in dead}
        freed: set[int] = set()
        if claims:
            async with self.engine.begin() as conn:
                freed = await store.free_dead(conn, claims)
            for job_id in sorted(freed):
                owner = store.owner_of(claims[job_id])
                log.info("job %s: its runner %s is dead; its claim is taken over", job_id, owner)
        self._watching = len(held) > len(freed)
        return freed

    async def run_due(self, kinds: Sequence[str] | None = None) -> int:
        """Claim and run every job due now (in due order), of every registered kind or of `kinds` (registered
        ones among them); returns how many this runner ran."""
        await self._settle()
        kinds = self.kinds if kinds is None else tuple(k for k in kinds if k in self._handlers)
        if not kinds:
            return 0
        now = await self.now()
        await self.free_the_dead(now)
        skip, _back = self._skipped(now)
        async with self.engine.connect() as conn:
            jobs = await store.due(conn, now, now - self.lease, kinds, self.scope, self.batch, self._only(), skip)
        jobs = [job for job in jobs if job.id not in skip]  # never a second run of one running here
        together = [job for job in jobs if job.kind in self._together]
        ran = await self._run_together(together, now) if together else 0
        for job in jobs:
            if self._closed and self._task is not None and asyncio.current_task() is self._task:
                break
            if job.kind in self._together or job.id in self._held:
                continue
            token = self._token()
            if ran:
                now = await self.now()  # the claim's time is its own: the jobs before may have run a while
            if not await self._claim(job, token, now):
                continue
            ran += 1
            with self._holding([job], token):
                await self._call(job, token)
        return ran

    async def _run_together(self, jobs: list[Job], now: dt.datetime) -> int:
        """Claim these jobs in one statement and run those claimed here concurrently; marked done together."""
        token = self._token()
        ids = [job.id for job in jobs]
        try:
            async with self.engine.begin() as conn:
                mine = await store.claim_all(conn, ids, token, now, now - self.lease)
        except Exception:
            async with self.engine.connect() as conn:  # the commit may have happened: the rows say whose
                mine = await store.claimed(conn, ids, token)
        claimed = [job for job in jobs if job.id in mine]
        with self._holding(claimed, token):
            ran = await asyncio.gather(*(self._call(job, token, finish=False) for job in claimed))
            finished = [job.id for job, ok in zip(claimed, ran, strict=True) if ok]
            try:
                if finished:
                    async with self.engine.begin() as conn:
                        await store.finish_all(conn, finished, token)
            except Exception:
                log.exception("%d job(s) ran, but could not be marked done; trying again", len(finished))
                self._owed.update(dict.fromkeys(finished, token))
        return len(claimed)

    def _token(self) -> str:
        """A new claim's token: whose it is (`owner`), and a random part of its own."""
        return f"{self.owner}:{uuid.uuid4().hex[:12]}"

    async def _claim(self, job: Job, token: str, now: dt.datetime) -> bool:
        try:
            async with self.engine.begin() as conn:
                return await store.claim(conn, job.id, token, now, now - self.lease)
        except Exception:
            # The commit may have happened: the row says whose claim it is.
            async with self.engine.connect() as conn:
                stored = await store.read(conn, job.key)
            if stored is not None and stored.claimed_by == token:
                log.warning("job %s: the database reported an error, but the claim was stored", job.key)
                return True
            raise

    async def _call(self, job: Job, token: str, *, finish: bool = True) -> bool:
        """Run a claimed job's handler: True when it ran to its end (and, `finish`, it is marked done here)."""
        handler = self._handlers.get(job.kind)
        ctx = {"job": job.key, "kind": job.kind}
        log.debug("job %s: running (attempt %d)", job.key, job.attempts + 1, extra=ctx)
        try:
            if handler is None:
                raise LookupError(f"no handler for jobs of kind {job.kind!r}")
            await handler(job)
        except Later as later:
            log.debug("job %s: given back for %.1f s", job.key, later.seconds, extra=ctx)
            self._let_go(job.id, token)
            now = await self.now()
            self._later[job.id] = now + dt.timedelta(seconds=later.seconds)
            await self._give_back(job, token, 0.0, due=job.due)  # still due at its time, for its own runner
            return False
        except Exception:
            log.exception("job %s (%s) failed; trying again in %.0f s", job.key, job.kind, self.retry_s, extra=ctx)
            self._let_go(job.id, token)
            await self._give_back(job, token, self.retry_s)
            return False
        log.debug("job %s: done", job.key, extra=ctx)
        if not finish:
            return True
        try:
            async with self.engine.begin() as conn:
                await store.finish(conn, job.id, token)
        except Exception as exc:
            OUTAGE.failed(f"marking job {job.key} done", exc)  # tried again by the runner's next look
            self._owed[job.id] = token
        return True

    async def _give_back(self, job: Job, token: str, seconds: float, *, due: dt.datetime | None = None) -> None:
        """A job claimed here but not run to its end: pending again `seconds` from now (or at `due`)."""
        try:
            if due is None:
                due = await self.now() + dt.timedelta(seconds=seconds)
            async with self.engine.begin() as conn:
                await store.release(conn, job.id, token, due)
        except Exception:
            log.exception("job %s: could not be given back; its claim goes stale", job.key)
        self.wake()

    # -- keeping claims alive --------------------------------------------------------------------
    @contextlib.contextmanager
    def _holding(self, jobs: Sequence[Job], token: str) -> Iterator[None]:
        """These jobs, claimed under `token`, run here for the block: their claims are kept alive meanwhile."""
        for job in jobs:
            self._held[job.id] = _Held(token, job.key)
        if jobs and (self._keeper is None or self._keeper.done()):
            self._keeper = asyncio.get_running_loop().create_task(self._keep(), name=f"jobs-keep-{self.instance}")
        try:
            yield
        finally:
            for job in jobs:
                self._let_go(job.id, token)
            if jobs:
                self._stop_keeping_if_idle()
                self.wake()  # the runner left them out of its look while they ran (added again meanwhile?)

    def _let_go(self, job_id: int, token: str) -> None:
        """The run of a job under `token` is over here (before its claim is given back: not a claim gone)."""
        held = self._held.get(job_id)
        if held is not None and held.token == token:
            del self._held[job_id]

    async def _keep(self) -> None:
        """Refresh the claims of the jobs running here (and of those run but not yet marked done) every third
        of the lease, while there are any."""
        period = self.lease.total_seconds() / 3
        while self._keeping():
            self._keeper_asleep = True
            try:
                await asyncio.sleep(period)
            finally:
                self._keeper_asleep = False
            try:
                await self.refresh()
            except Exception as exc:
                OUTAGE.failed(f"refreshing the claims of {len(self._held)} running job(s)", exc)

    def _keeping(self) -> bool:
        """Whether there are claims to keep alive."""
        return bool(self._held) or (bool(self._owed) and not self._closed)

    def _stop_keeping_if_idle(self) -> None:
        """No claim left to keep: the keeper, asleep, is stopped now rather than at its next look (so that nothing
        of the runner waits on a timer once its jobs are over; a keeper in the middle of a refresh ends after it)."""
        if not self._keeping() and self._keeper is not None and self._keeper_asleep:
            self._keeper.cancel()
            self._keeper = None

    async def refresh(self) -> set[int]:
        """Write `claimed_at` anew on every claim this runner holds (one statement); returns the ids of the
        running jobs whose claim turned out gone (logged at info; their runs go on, fenced by the features)."""
        claims = dict(self._owed)
        claims.update({job_id: held.token for job_id, held in self._held.items() if not held.gone})
        if not claims:
            return set()
        now = await self.now()
        async with self.engine.begin() as conn:
            gone = await store.refresh(conn, claims, now)
        lost = set()
        for job_id in gone:
            held = self._held.get(job_id)
            if held is not None and held.token == claims[job_id] and not held.gone:
                held.gone = True
                lost.add(job_id)
                log.info(
                    "job %s: its claim is gone (added again, or taken by another runner); this run goes on", held.key
                )
        return lost

    async def _settle(self) -> None:
        """Mark done the jobs that ran but whose end was not stored."""
        for job_id, token in list(self._owed.items()):
            try:
                async with self.engine.begin() as conn:
                    await store.finish(conn, job_id, token)
                del self._owed[job_id]
            except Exception as exc:
                OUTAGE.failed(f"marking job {job_id} done", exc)  # said once an outage (bot.outage)
        self._stop_keeping_if_idle()

    async def _run(self) -> None:
        retry = Retry("the jobs runner")  # an outage is one warning and one line when it ends (bot.outage)
        while not self._closed:
            self._dirty = False
            try:
                await self._settle()
                await self.free_the_dead()
                nxt = await self.next_due()
                now = await self.now()
                ran = await self.run_due() if nxt is not None and nxt <= now else 0
                if ran:
                    continue  # what is due next is read afresh
                wait = MAX_SLEEP_S if nxt is None else (nxt - now).total_seconds()
                if wait <= 0:
                    wait = MIN_SLEEP_S  # due, yet not claimable here (held by a claim just going stale)
            except Exception as exc:
                wait = min(self.retry_s, retry.failed(exc))
            else:
                retry.ok()
            if self.poll_s is not None:
                wait = min(wait, self.poll_s)
            if self._watching:
                wait = min(wait, WATCH_S)
            if self._owed:
                wait = min(wait, OWED_RETRY_S)
            if self._dirty or self._closed:
                continue
            if wait <= 0:
                await asyncio.sleep(0)
                continue
            self._sleeping = True
            self._until = None if self.clock is None else self.clock() + dt.timedelta(seconds=min(wait, MAX_SLEEP_S))
            try:
                await asyncio.sleep(min(wait, MAX_SLEEP_S))
            finally:
                if asyncio.current_task() is self._task:
                    self._sleeping = False
                    self._until = None


def due_aware(jobs: Sequence[NewJob]) -> bool:
    """Whether there is anything to add (every due time must be aware: ValueError otherwise)."""
    for job in jobs:
        if job.due.tzinfo is None:
            raise ValueError(f"job {job.key}: its due time must be aware (UTC)")
    return bool(jobs)
