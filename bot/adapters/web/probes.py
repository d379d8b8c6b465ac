"""`/healthz`, `/readyz` and `/metrics` of one process (`dmhost run`, the shard host: on `DMHOST_METRICS_PORT`;
`dmhost web`: on its own port, beside the pages).

- `/healthz` — this process, not "some process of the database": its event loop ticks (a loop stalled more than
  `STALL_S` is unhealthy, and a loop that is stuck does not answer at all), its database answers a `SELECT 1`
  within `DB_TIMEOUT_S`, and its leases are held while it hosts (a standby is healthy: it holds none on purpose).
  200 with `{"ok": true, …}` or 503 with what failed.
- `/readyz` — 200 once the process serves (caught up and hosting its shards; the web face: its database opened),
  else 503: what a load balancer or Kubernetes asks before sending traffic.
- `/metrics` — `bot.metrics` in the Prometheus text format.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from bot import metrics

log = logging.getLogger(__name__)

STALL_S = 10.0
"""A loop whose ticker is this late is stalled."""
TICK_S = 1.0
DB_TIMEOUT_S = 3.0


class Probe:
    """What `/healthz` and `/readyz` ask of one process."""

    def __init__(
        self,
        ping: Callable[[], Awaitable[object]],
        *,
        hosting: Callable[[], bool | None] | None = None,
        ready: Callable[[], bool] = lambda: True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ping = ping
        """A round trip to the process's database."""
        self.hosting = hosting
        """Whether the process holds its leases (True), waits as a standby (None), or lost them (False)."""
        self.ready = ready
        self.clock = clock
        self._tick = clock()
        self._ticker: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the loop's ticker (on the running loop)."""
        if self._ticker is None:
            self._ticker = asyncio.get_running_loop().create_task(self._ticking(), name="dmhost-probe-ticker")

    async def stop(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
            self._ticker = None

    async def _ticking(self) -> None:
        while True:
            self._tick = self.clock()
            await asyncio.sleep(TICK_S)

    async def health(self) -> dict[str, Any]:
        """Every check's result and `ok`."""
        late = self.clock() - self._tick
        out: dict[str, Any] = {"loop": "ok" if self._ticker is None or late < STALL_S else f"stalled {late:.0f} s"}
        try:
            await asyncio.wait_for(self.ping(), DB_TIMEOUT_S)
            out["database"] = "ok"
        except Exception as exc:
            out["database"] = f"fails: {type(exc).__name__}"
        held = None if self.hosting is None else self.hosting()
        out["leases"] = "held" if held else ("standby" if held is None else "lost")
        out["ok"] = out["loop"] == "ok" and out["database"] == "ok" and out["leases"] != "lost"
        metrics.watch("dmhost_up", lambda: 1.0 if out["ok"] else 0.0)
        return out


def _json(data: dict[str, Any], ok: bool) -> web.Response:
    return web.Response(
        status=200 if ok else 503, text=json.dumps(data) + "\n", content_type="application/json", charset="utf-8"
    )


PROBE: web.AppKey[Probe] = web.AppKey("probe", Probe)


async def _healthz(request: web.Request) -> web.Response:
    data = await request.app[PROBE].health()
    return _json(data, bool(data["ok"]))


async def _readyz(request: web.Request) -> web.Response:
    ready = request.app[PROBE].ready()
    return _json({"ready": ready}, ready)


async def _metrics(_request: web.Request) -> web.Response:
    body = await metrics.exposition()
    return web.Response(body=body, headers={"Content-Type": metrics.CONTENT_TYPE})


def add_routes(app: web.Application, probe: Probe) -> None:
    """Serve the probes on `app` (the web face's own application, or the metrics port's)."""
    app[PROBE] = probe
    app.router.add_get("/healthz", _healthz)
    app.router.add_get("/readyz", _readyz)
    app.router.add_get("/metrics", _metrics)


async def _no_server_banner(_request: web.Request, response: web.StreamResponse) -> None:
    response.headers.pop("Server", None)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Cache-Control", "no-store")


async def serve_probes(probe: Probe, host: str, port: int) -> web.AppRunner:
    """Serve the probes on host:port (the metrics port); the runner to `cleanup()` at the end. A port that
    cannot be opened is an `OperatorError` (its one line)."""
    app = web.Application()
    add_routes(app, probe)
    app.on_response_prepare.append(_no_server_banner)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as exc:  # a port taken or not ours: the operator's to fix, one line
        await runner.cleanup()
        from bot.opserrors import OperatorError

        raise OperatorError(
            f"cannot serve /healthz and /metrics on {host}:{port} ({exc.strerror or exc}): set DMHOST_METRICS_PORT "
            "to a free port (or DMHOST_METRICS_HOST to an address of this machine)"
        ) from None
    except BaseException:
        await runner.cleanup()
        raise
    probe.start()
    log.info("health and metrics on http://%s:%d/healthz, /readyz, /metrics", host, port)
    return runner


async def stop_probes(runner: web.AppRunner | None, probe: Probe | None) -> None:
    """Stop what `serve_probes` started."""
    if probe is not None:
        await probe.stop()
    if runner is not None:
        await runner.cleanup()


def watch_host(service: Any, keeper: Any | None) -> None:
    """The gauges of a host process: its live matches, its leases, the durable jobs due and overdue."""
    metrics.watch("dmhost_live_matches", lambda: float(len(service.live)))
    if keeper is not None:
        metrics.watch("dmhost_leases_held", lambda: float(len(keeper.fencing.epochs)))
    from bot.jobs.gauges import job_counts

    store = service.store

    async def jobs() -> dict[str, float]:
        return await job_counts(store)

    metrics.watch_async(jobs)
