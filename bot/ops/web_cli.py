"""`dmhost log --html/--url` and `dmhost web`: the match review pages from the command line."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from bot.ops.dburl import db_url
from bot.opserrors import check_database_url

EXIT_OK = 0
EXIT_USAGE = 2
BASE_HELP = (
    "the address `dmhost web` is reached at (default: the setting DMHOST_WEB_URL, else the address `dmhost web` "
    "printed when it last started here, else http://127.0.0.1:8080)"
)


def add_url_options(parser: argparse.ArgumentParser, what: str) -> None:
    """`--url` and `--base` for a command that prints a page's address."""
    parser.add_argument("--url", action="store_true", help=f"print the address of the {what} page on `dmhost web`")
    parser.add_argument("--base", metavar="URL", help=BASE_HELP)


def page_address(kind: str, ident: int, base: str | None) -> str:
    """The signed address of a page (`kind`: match, tournament, server; `ident`: 0 for the terminal rooms)."""
    from bot.records.pagetoken import load_secret, page_base, page_url

    return page_url(page_base(base), load_secret(), kind, ident)


def add_log_options(lg: argparse.ArgumentParser) -> None:
    """The page options of `dmhost log`."""
    lg.add_argument("--html", metavar="FILE", help="write the match's review page (one offline HTML file)")
    lg.add_argument("--url", action="store_true", help="print the address of the match's page on `dmhost web`")
    lg.add_argument("--base", metavar="URL", help=BASE_HELP)


def page_outputs(
    args: argparse.Namespace, stored: Any, context: list[str], analysis: list[dict[str, Any]] | None = None
) -> list[str]:
    """Write what `--html`/`--url` ask for (the page with the stored `analysis`); the lines to print."""
    out = []
    if getattr(args, "html", None):
        from bot.records.page import build_match_page
        from bot.wording.ops import wrote_page

        path = Path(args.html)
        path.write_text(build_match_page(stored, context, analysis), encoding="utf-8")
        out.append(wrote_page(stored.id, str(path.resolve())))
    if getattr(args, "url", False):
        out.append(page_address("match", stored.id, args.base))
    return out


def add_parser(sub: Any) -> None:
    """`dmhost web`."""
    web = sub.add_parser("web", help="serve the match, tournament and server review pages over HTTP")
    web.add_argument("--db", metavar="PATH")
    web.add_argument("--host", metavar="ADDRESS", help="listen on this address (default DMHOST_WEB_HOST, 127.0.0.1)")
    web.add_argument("--port", type=int, metavar="PORT", help="listen on this port (default DMHOST_WEB_PORT, 8080)")
    web.add_argument(
        "--access-log", action="store_true", help="log every request, one line each (or DMHOST_WEB_ACCESS_LOG=true)"
    )
    web.set_defaults(func=cmd_web)


def cmd_web(args: argparse.Namespace) -> int:
    """Serve the pages until SIGINT/SIGTERM."""
    from bot.settings import load_settings

    settings = load_settings()
    host = args.host or settings.web_host
    port = args.port if args.port is not None else settings.web_port
    if not 0 < port < 65536:
        from bot.wording.ops import not_a_port

        print(not_a_port(port), file=sys.stderr)
        return EXIT_USAGE
    url = db_url(args.db)
    check_database_url(url, must_exist=True)
    from bot.ops.logsetup import setup_logging
    from bot.records.pagetoken import load_secret

    secret = load_secret()  # an unreadable or unwritable secret file is said before anything is served
    setup_logging(settings.log_level, settings.log_format)
    from bot.ops.logsetup import sentry

    sentry(settings)
    from bot.adapters.web.server import serve
    from bot.compose import build_readers
    from bot.wording.ops import cannot_serve

    async def main() -> None:
        readers = build_readers(url)  # the web face's application: what the pages read, handed to it whole
        access_log = args.access_log or settings.web_access_log
        await serve(readers, host, port, secret, access_log=access_log, metrics_at=metrics_at)

    try:
        metrics_at = None if settings.metrics_port is None else (settings.metrics_host, settings.metrics_port)
        asyncio.run(main())
    except OSError as exc:
        print(cannot_serve(host, port, exc.strerror or exc), file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
