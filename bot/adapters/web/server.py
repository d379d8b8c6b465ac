"""The aiohttp application of `dmhost web` and its runner (stops cleanly on SIGINT/SIGTERM).

Routes: `/match/ID/TOKEN`, `/tournament/ID/TOKEN`, `/server/GUILD/TOKEN` (GUILD 0: the terminal rooms,
which have none). A missing or wrong token, or a page that does not exist, is the same 404.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys

from aiohttp import web

from bot.adapters.web.views import Views
from bot.compose import build_readers
from bot.records.listpages import landing_page
from bot.records.pagetoken import PageKind, remember_address, valid

_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; img-src data: blob:; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "private, no-store",
}
VIEWS: web.AppKey[Views] = web.AppKey("views", Views)


def _not_found() -> web.Response:
    return web.Response(status=404, text="Not found.\n", headers=_HEADERS)


def _page(text: str) -> web.Response:
    return web.Response(text=text, content_type="text/html", charset="utf-8", headers=_HEADERS)


async def _handle(request: web.Request) -> web.Response:
    views = request.app[VIEWS]
    kind = request.match_info["kind"]
    try:
        ident = int(request.match_info["ident"])
    except ValueError:
        return _not_found()
    if not valid(views.secret, kind, ident, request.match_info["token"]):
        return _not_found()
    if kind == PageKind.MATCH:
        text = await views.match(ident)
    elif kind == PageKind.TOURNAMENT:
        text = await views.tournament(ident)
    else:
        text = await views.server(ident)
    return _not_found() if text is None else _page(text)


async def _landing(_request: web.Request) -> web.Response:
    return _page(landing_page())


def make_app(views: Views) -> web.Application:
    """The application serving `views`."""
    app = web.Application()
    app[VIEWS] = views
    app.router.add_get(r"/{kind:match|tournament|server}/{ident}/{token}", _handle)
    app.router.add_get("/", _landing)
    return app


async def serve(url: str, host: str, port: int, secret: bytes, *, ready: asyncio.Event | None = None) -> None:
    """Serve the pages of database `url` on host:port until SIGINT or SIGTERM."""
    readers = build_readers(url)
    store, worker = readers.store, readers.analysis  # the worker: a page asked for before its analysis is stored
    await store.open()
    runner = web.AppRunner(make_app(Views(store, secret, analysis=worker, readers=readers)), access_log=None)
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        shown = f"[{host}]" if ":" in host else host
        address = f"http://{shown}:{port}"
        local = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}.get(host)  # every address: this machine's
        remember_address(f"http://{local}:{port}" if local else address)
        print(f"dmhost web: serving on {address} (Ctrl-C stops)", file=sys.stderr, flush=True)
        if ready is not None:
            ready.set()
        await stop.wait()
    finally:
        await runner.cleanup()
        await worker.close()
        await store.close()
