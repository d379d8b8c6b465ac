"""The process's metrics in the Prometheus text format (`prometheus_client`), served at `/metrics` by every
long-running process (`dmhost run`, the shard host, `dmhost web`; `bot.adapters.web.probes`).

Counters and the move histogram are counted where things happen (the host core, the announcer, the outage
policy). Gauges that are a state (live matches, leases held, queue depths, jobs due) are read when scraped:
a part of the process registers a reading with `watch(name, read)`; jobs due and overdue are counted by the
database on each scrape through an async reading (`watch_async`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import Collector

REGISTRY = CollectorRegistry(auto_describe=True)
"""dmhost's own registry (not the library's global one: nothing else of the process lands in it)."""
CONTENT_TYPE = CONTENT_TYPE_LATEST

MOVES = Counter("dmhost_moves", "Moves accepted and stored, by game", ["game"], registry=REGISTRY)
MOVE_SECONDS = Histogram(
    "dmhost_move_seconds",
    "From a move's text handed to the host to its commit (seconds)",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
DB_ERRORS = Counter(
    "dmhost_db_errors", "Failed attempts of the database loops (heartbeat, leases, jobs, …)", registry=REGISTRY
)
DISCORD_429 = Counter("dmhost_discord_429", "Answers 429 (rate limited) from Discord", registry=REGISTRY)
REQUESTS_REFUSED = Counter(
    "dmhost_web_malformed_requests", "Review-page requests answered 4xx (bad token, id, path)", registry=REGISTRY
)

GAUGES: dict[str, str] = {
    "dmhost_live_matches": "Matches this process hosts now",
    "dmhost_leases_held": "Shard leases this process holds now",
    "dmhost_jobs_due": "Durable jobs due now (all processes)",
    "dmhost_jobs_overdue": "Durable jobs due more than 5 s ago and not done (all processes)",
    "dmhost_announce_queue": "Host events waiting to be told on Discord",
    "dmhost_analysis_queue": "Finished matches waiting for their background analysis",
    "dmhost_up": "1 while the process's health check passes",
}
"""Every gauge a process may watch (one reading each; the last `watch` of a name wins)."""

_readings: dict[str, Callable[[], float]] = {}
_async_readings: list[Callable[[], Awaitable[dict[str, float]]]] = []
_values: dict[str, float] = {}


def watch(name: str, read: Callable[[], float]) -> None:
    """Read gauge `name` (one of `GAUGES`) with `read()` on every scrape."""
    if name not in GAUGES:
        raise ValueError(f"unknown gauge {name}")
    _readings[name] = read


def watch_async(read: Callable[[], Awaitable[dict[str, float]]]) -> None:
    """Before every scrape, await `read()` for gauge values (name → value), e.g. a database count."""
    _async_readings.append(read)


def unwatch() -> None:
    """Forget every reading (a process's parts closed; tests)."""
    _readings.clear()
    _async_readings.clear()
    _values.clear()


class _Gauges(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily]:
        for name, help_text in GAUGES.items():
            read = _readings.get(name)
            value: float | None
            try:
                value = float(read()) if read is not None else _values.get(name)
            except Exception:
                value = None
            if value is not None:
                yield GaugeMetricFamily(name, help_text, value=value)


REGISTRY.register(_Gauges())


async def exposition() -> bytes:
    """The metrics page (the async readings refreshed first; one that fails leaves its gauges out)."""
    _values.clear()
    for read in list(_async_readings):
        try:
            _values.update(await read())
        except Exception:
            DB_ERRORS.inc()
    return generate_latest(REGISTRY)


def sample(name: str, labels: dict[str, str] | None = None) -> Any:
    """One sample's current value (tests and benchmarks), or None."""
    return REGISTRY.get_sample_value(name, labels or {})
