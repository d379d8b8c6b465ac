"""The aiohttp application of `dmhost web` and its runner (stops cleanly on SIGINT/SIGTERM).

Routes: `/match/ID/TOKEN`, `/tournament/ID/TOKEN`, `/server/GUILD/TOKEN` (GUILD 0: the terminal rooms,
which have none), and the probes `/healthz`, `/readyz`, `/metrics` (`bot.adapters.web.probes`). A missing or
wrong token, an id that is not a stored id (not decimal digits, or beyond a signed 64-bit integer), or a page that
does not exist, is the same 404.

Every answer — aiohttp's own 404 and 405 included (`on_response_prepare`) — carries the security headers: a
Content-Security-Policy that allows no framing (`frame-ancestors 'none'`) and only the page's own scripts, by
their SHA-256 (never `'unsafe-inline'`), `X-Content-Type-Options: nosniff`, no `Server` banner. A refused
request is one log line (no traceback); the access log is written when asked (`--access-log`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import logging
import re
import signal
import time
from collections.abc import Awaitable, Callable
from functools import lru_cache

from aiohttp import web

from bot.adapters.web.probes import Probe, add_routes, serve_probes
from bot.adapters.web.views import Views
from bot.compose import Readers
from bot.metrics import REQUESTS_REFUSED
from bot.records.listpages import landing_page
from bot.records.pagetoken import PageKind, remember_address, valid
from bot.wording.review import PAGE_FAILED

log = logging.getLogger("dmhost.web")

_BASE_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cache-Control": "private, no-store",
}
VIEWS: web.AppKey[Views] = web.AppKey("views", Views)
SERVER_PAGES: web.AppKey[ServerPages] = web.AppKey("server_pages")
_ID = re.compile(r"[0-9]{1,19}")
MAX_ID = 2**63 - 1
_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.DOTALL | re.IGNORECASE)
_DATA_TYPE = re.compile(r"""type\s*=\s*["']?application/(?:ld\+)?json""", re.IGNORECASE)


@lru_cache(maxsize=256)
def page_csp(html: str) -> str:
    """The page's policy: its images inline, its styles inline, and exactly its own scripts (by hash). Keyed by the
    page's text (a `str` keeps its hash, so a cached page costs one look-up)."""
    hashes = []
    for found in _SCRIPT.finditer(html):
        if _DATA_TYPE.search(found.group("attrs")):
            continue  # a data block is never run
        digest = base64.b64encode(hashlib.sha256(found.group("body").encode("utf-8")).digest()).decode("ascii")
        hashes.append(f"'sha256-{digest}'")
    script = f"; script-src {' '.join(dict.fromkeys(hashes))}" if hashes else ""
    return f"{_BASE_CSP}; img-src data: blob:; style-src 'unsafe-inline'{script}"


def _not_found() -> web.Response:
    return web.Response(status=404, text="Not found.\n")


def _page(text: str) -> web.Response:
    return web.Response(
        text=text, content_type="text/html", charset="utf-8", headers={"Content-Security-Policy": page_csp(text)}
    )


def parse_id(text: str) -> int | None:
    """A stored id from an address (decimal digits, at most a signed 64-bit integer), else None."""
    if not _ID.fullmatch(text):
        return None
    ident = int(text)
    return ident if ident <= MAX_ID else None


class ServerPages:
    """The server pages, built at most once every `fresh` seconds per server: a request within that time gets the
    page built last (one build at a time per server, however many ask together); an older page is still
    answered at once while a new one is built in the background (so a busy server page never makes 50 readers
    wait on 1,000 matches)."""

    def __init__(
        self, build: Callable[[int], Awaitable[str]], fresh: float = 5.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.build, self.fresh, self.clock = build, fresh, clock
        self._pages: dict[int, tuple[float, str]] = {}
        self._building: dict[int, asyncio.Task[str]] = {}

    async def get(self, guild: int) -> str:
        cached = self._pages.get(guild)
        if cached is not None and self.clock() - cached[0] < self.fresh:
            return cached[1]
        task = self._building.get(guild)
        if task is None:
            task = asyncio.ensure_future(self._rebuild(guild))
            self._building[guild] = task
        if cached is not None:
            return cached[1]  # stale, answered now; the new page is on its way
        return await asyncio.shield(task)

    async def _rebuild(self, guild: int) -> str:
        try:
            text = await self.build(guild)
            self._pages[guild] = (self.clock(), text)
            if len(self._pages) > 256:
                self._pages.pop(next(iter(self._pages)))
            return text
        finally:
            self._building.pop(guild, None)


async def _handle(request: web.Request) -> web.Response:
    views = request.app[VIEWS]
    kind = request.match_info["kind"]
    ident = parse_id(request.match_info["ident"])
    if ident is None or not valid(views.secret, kind, ident, request.match_info["token"]):
        return _not_found()
    if kind == PageKind.MATCH:
        text = await views.match(ident)
    elif kind == PageKind.TOURNAMENT:
        text = await views.tournament(ident)
    else:
        text = await request.app[SERVER_PAGES].get(ident)
    return _not_found() if text is None else _page(text)


async def _landing(_request: web.Request) -> web.Response:
    return _page(landing_page())


def _shown(path: str) -> str:
    """A request's path fit for one log line (printable, at most 120 characters)."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in path)
    return clean if len(clean) <= 120 else clean[:117] + "..."


@web.middleware
async def _one_line_errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """A refused request is one line at info (no traceback); a failure of ours is logged once with its traceback
    and answered 500 (with the headers, like every answer)."""
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        if exc.status >= 400:
            REQUESTS_REFUSED.inc()
            log.info("refused %s %s: %d %s", request.method, _shown(request.path), exc.status, exc.reason)
        raise
    except (asyncio.CancelledError, ConnectionResetError):
        raise
    except Exception:
        log.exception("answering %s %s failed", request.method, _shown(request.path))
        return web.Response(status=500, text=PAGE_FAILED + "\n")
    if response.status == 404:
        REQUESTS_REFUSED.inc()
        log.info("refused %s %s: 404 Not Found", request.method, _shown(request.path))
    return response


async def _security_headers(_request: web.Request, response: web.StreamResponse) -> None:
    """Every answer, aiohttp's own included: the headers, and no `Server` banner."""
    response.headers.pop("Server", None)
    response.headers.setdefault("Content-Security-Policy", _BASE_CSP)
    for name, value in _HEADERS.items():
        response.headers.setdefault(name, value)


class OneLineBadRequests(logging.Filter):
    """aiohttp logs a request it cannot even parse (a bad header, request line, URL, length, chunk) as an ERROR
    with its traceback; it answers 400 all the same. Such a record becomes one INFO line without traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        from aiohttp.http_exceptions import HttpProcessingError

        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, HttpProcessingError):
            return True
        REQUESTS_REFUSED.inc()
        reason = (exc.message or type(exc).__name__).strip().splitlines()[0].rstrip(":")
        peer = record.getMessage().rpartition(" from ")[2] if " from " in record.getMessage() else "a client"
        record.msg, record.args = "refused a malformed request from %s: %d %s", (peer, exc.code, reason[:120])
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        record.levelno, record.levelname = logging.INFO, "INFO"
        return True


_BAD_REQUESTS = OneLineBadRequests()


def make_app(views: Views, probe: Probe | None = None, *, server_fresh: float = 5.0) -> web.Application:
    """The application serving `views` (and the probes: `probe`, or one that pings the views' database)."""
    app = web.Application(middlewares=[_one_line_errors])
    app[VIEWS] = views
    app[SERVER_PAGES] = ServerPages(views.server, fresh=server_fresh)
    app.router.add_get(r"/{kind:match|tournament|server}/{ident}/{token}", _handle)
    add_routes(app, probe if probe is not None else Probe(views.store.ping))
    app.on_response_prepare.append(_security_headers)
    server_log = logging.getLogger("aiohttp.server")
    if _BAD_REQUESTS not in server_log.filters:
        server_log.addFilter(_BAD_REQUESTS)
    app.router.add_get("/", _landing)
    return app


ACCESS_FORMAT = '%a "%r" %s %b %Tf'
"""The access log's line: client, request line, status, size, seconds."""


async def serve(
    readers: Readers,
    host: str,
    port: int,
    secret: bytes,
    *,
    ready: asyncio.Event | None = None,
    access_log: bool = False,
    metrics_at: tuple[str, int] | None = None,
) -> None:
    """Serve the pages the readers read (`bot.compose.build_readers`, built by `dmhost web` for its database) on
    host:port until SIGINT or SIGTERM (the probes on the same port, and also on `metrics_at` when given:
    DMHOST_METRICS_PORT, so one image's HEALTHCHECK asks every process alike)."""
    store, worker = readers.store, readers.analysis  # the worker: a page asked for before its analysis is stored
    await store.open()
    opened = asyncio.Event()
    probe = Probe(store.ping, ready=opened.is_set)
    from bot import metrics
    from bot.settings import dmhost_version as version

    metrics.watch("dmhost_analysis_queue", lambda: float(len(worker.pending)))
    app = make_app(Views(readers, secret, analysis=worker), probe)
    runner = web.AppRunner(
        app,
        access_log=logging.getLogger("aiohttp.access") if access_log else None,
        access_log_format=ACCESS_FORMAT,
    )
    await runner.setup()
    stop = asyncio.Event()
    probes: web.AppRunner | None = None
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        shown = f"[{host}]" if ":" in host else host
        local = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}.get(host)  # every address: this machine's
        remember_address(f"http://{local}:{port}" if local else f"http://{shown}:{port}")
        if metrics_at is not None and metrics_at[1] != port:
            probes = await serve_probes(probe, *metrics_at)
        probe.start()
        opened.set()
        log.info(
            "dmhost %s web: serving on http://%s:%d: the review pages, /healthz, /readyz, /metrics (Ctrl-C stops)",
            version(),
            host,
            port,
        )
        if ready is not None:
            ready.set()
        await stop.wait()
    finally:
        await probe.stop()
        if probes is not None:
            await probes.cleanup()
        await runner.cleanup()
        await worker.close()
        await store.close()
