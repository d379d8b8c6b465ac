"""`dmhost run` with ownership: wait as a standby (no gateway connection, no clocks) until this process holds
its shards' leases, then connect; if the leases are ever taken over, disconnect and wait again. Gateway
identifies are spaced out (`IdentifyBackoff`) so that a flapping process never burns Discord's daily
session-start limit."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.adapters.discord.startup import explain_discord
from bot.opserrors import OperatorError
from bot.ownership.keeper import until
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.compose import App

log = logging.getLogger(__name__)


class IdentifyBackoff:
    """Spacing between gateway identifies of one process: the first at once, then 5 s, 10 s, 20 s, ... up to
    10 minutes; a session that lasted `stable` seconds resets it."""

    def __init__(
        self,
        clock: Callable[[], float],
        *,
        first: float = 5.0,
        most: float = 600.0,
        stable: float = 600.0,
    ) -> None:
        self.clock = clock
        self.first, self.most, self.stable = first, most, stable
        self.last: float | None = None
        self.delay = 0.0

    def next_delay(self) -> float:
        """How long to wait before the next identify."""
        if self.last is None:
            return 0.0
        since = self.clock() - self.last
        if since >= self.stable:
            self.delay = 0.0
            return 0.0
        return max(0.0, self.delay - since)

    def identified(self) -> None:
        """An identify is being sent now."""
        now = self.clock()
        if self.last is not None and now - self.last < self.stable:
            self.delay = min(self.most, max(self.first, self.delay * 2))
        else:
            self.delay = self.first
        self.last = now


def shards_of(settings: Settings) -> tuple[list[int], int]:
    """The shards this process hosts and the total: all of them when no ids are set."""
    count = settings.shard_count or 1
    return (list(settings.shard_ids) if settings.shard_ids is not None else list(range(count))), count


async def host(settings: Settings, token: str, app_of: Callable[[], App]) -> None:
    """Run the bot while holding the leases, as long as the process lives (SIGINT/SIGTERM stop it cleanly).
    `app_of`: the composition root's builder of the application, one per session (a session's end closes its own)."""
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stopping.set)
    backoff = IdentifyBackoff(loop.time)
    ids, count = shards_of(settings)
    now: dict[str, Any] = {}  # this session's bot and keeper, for the probes
    probes = await _probes(settings, now)
    try:
        await _sessions(settings, token, app_of, stopping, backoff, ids, count, now)
    finally:
        if probes is not None:
            from bot.adapters.web.probes import stop_probes

            await stop_probes(*probes)


async def _probes(settings: Settings, now: dict[str, Any]) -> tuple[Any, Any] | None:
    """/healthz, /readyz and /metrics on DMHOST_METRICS_PORT, if set: this process's loop, its database, its
    leases (a standby is healthy), ready while connected and hosting."""
    if settings.metrics_port is None:
        return None
    from bot import metrics
    from bot.adapters.web.probes import Probe, serve_probes
    from bot.jobs.gauges import job_counts

    async def ping() -> None:
        bot = now.get("bot")
        if bot is None:
            return
        await bot.service.store.ping()

    def hosting() -> bool | None:
        keeper = now.get("keeper")
        return True if keeper is not None and keeper.active else None

    def ready() -> bool:
        bot, keeper = now.get("bot"), now.get("keeper")
        return bool(bot is not None and keeper is not None and keeper.active and bot.is_ready())

    metrics.watch("dmhost_live_matches", lambda: float(len(now["bot"].service.live)) if "bot" in now else 0.0)
    metrics.watch("dmhost_leases_held", lambda: float(len(now["keeper"].fencing.epochs)) if "keeper" in now else 0.0)

    def announcing() -> float:
        from bot.adapters.discord._parts import parts

        announcer = parts(now["bot"]).announcer if "bot" in now else None
        return float(sum(len(room.queued) for room in announcer.rooms.values())) if announcer is not None else 0.0

    def analysing() -> float:
        worker = now["bot"].analysis if "bot" in now else None
        return float(len(worker.pending)) if worker is not None else 0.0

    metrics.watch("dmhost_announce_queue", announcing)
    metrics.watch("dmhost_analysis_queue", analysing)

    async def jobs() -> dict[str, float]:
        bot = now.get("bot")
        return {} if bot is None else await job_counts(bot.service.store)

    metrics.watch_async(jobs)
    probe = Probe(ping, hosting=hosting, ready=ready)
    return await serve_probes(probe, settings.metrics_host, settings.metrics_port), probe


async def _sessions(
    settings: Settings,
    token: str,
    app_of: Callable[[], App],
    stopping: asyncio.Event,
    backoff: IdentifyBackoff,
    ids: list[int],
    count: int,
    now: dict[str, Any],
) -> None:
    from bot.adapters.discord.app import create_bot

    while not stopping.is_set():
        bot = create_bot(settings, app_of())  # the root builds it; the bot adapts it
        store = bot.service.store
        await store.open()
        keeper = bot.app.keeper(ids, count, lease_seconds=settings.lease_seconds)  # built by `bot.compose`
        bot.service.owns_guild = _both(bot.service.owns_guild, keeper.holds)
        now.update(bot=bot, keeper=keeper)
        try:
            got = await until(stopping, keeper.wait_for_leases())
        except asyncio.CancelledError:
            await store.close()
            raise
        if got is None:
            await store.close()
            break
        delay = backoff.next_delay()
        if delay:
            log.info("waiting %.0f s before connecting to Discord again (identify back-off)", delay)
            if await until(stopping, asyncio.sleep(delay, result=True)) is None:
                await keeper.release()
                await store.close()
                break
        backoff.identified()
        session = asyncio.ensure_future(bot.start(token))
        kept = asyncio.ensure_future(keeper.keep())
        stop = asyncio.ensure_future(stopping.wait())
        await asyncio.wait({session, kept, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if kept.done():
            bot.service.abandon()
            log.warning("disconnecting from Discord: another process hosts these shards now; waiting as a standby")
        else:
            kept.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await kept
        try:
            await bot.close()  # timers stop and the last heartbeat is written before the leases go
            with contextlib.suppress(asyncio.CancelledError):
                await session  # a refused token or no network ends here, with its error
        finally:
            await keeper.release()
            await store.close()


def _both(first: Callable[[int | None], bool], second: Callable[[int | None], bool]) -> Callable[[int | None], bool]:
    """A guild is this process's when both say so (the configured shards, and the leases held now)."""
    return lambda guild: first(guild) and second(guild)


def _count_rate_limits(record: logging.LogRecord) -> bool:
    """discord.py says each 429 it waits out in a `discord.http` line ("We are being rate limited"); counted."""
    if "rate limited" in record.getMessage():
        from bot.metrics import DISCORD_429

        DISCORD_429.inc()
    return True


def _no_voice_warnings(record: logging.LogRecord) -> bool:
    """discord.py warns at start that voice libraries are missing; the bot never uses voice."""
    return not (record.name == "discord.client" and "voice will NOT be supported" in record.getMessage())


def run_bot(settings: Settings, app_of: Callable[[], App]) -> None:
    """Run until interrupted (Ctrl+C / SIGTERM close the bot, which stops timers and the database). Discord
    refusing to start (token, intents, no connection) is an `OperatorError` with its line."""
    if settings.token is None:
        raise ValueError("DMHOST_TOKEN is not set")
    token = settings.token.get_secret_value()
    # Logging is set up by the command (`bot.ops.logsetup`: timestamps, levels, text or JSON); discord.py's
    # rate-limit warnings are counted for /metrics.
    logging.getLogger("discord.http").addFilter(_count_rate_limits)
    if not logging.getLogger().handlers:  # run without the command line's setup: plain lines all the same
        discord.utils.setup_logging(
            level=logging.getLevelName(settings.log_level.upper()),
            formatter=logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"),
        )
        for handler in logging.getLogger().handlers:
            handler.addFilter(_no_voice_warnings)

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(host(settings, token, app_of))
    except Exception as exc:
        line = explain_discord(exc)
        if line is None:
            raise
        raise OperatorError(line) from None
