"""Match review pages (issue 39): the size of a 600-ply Dots 39×32 match's page (≤ 3 MB), `dmhost web`'s
answer time for a match page after the first (p95 ≤ 100 ms), and the first board shown in headless
Chromium (≤ 1 s, when `chromium` and `chromedriver` are installed).

`python -m benchmarks.pages` prints the rows; `python -m benchmarks --only pages` puts them in the table.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bot.store.matches import StoredMatch

TARGET_BYTES = 3 * 1024 * 1024
TARGET_P95_MS = 100.0
TARGET_FIRST_BOARD_S = 1.0


async def _dots_match(db: Path, plies: int = 600, seed: int = 1) -> StoredMatch:
    """A stored 39×32 Dots match of `plies` random moves (played through the host, so its log is real)."""
    from bot.host.service import MatchService, PlayerRef
    from bot.store.matches import MatchStore

    service = MatchService(MatchStore(f"sqlite+aiosqlite:///{db}"))
    await service.start()
    try:
        mid = await service.create_match(
            "dots", [PlayerRef("a", "alice"), PlayerRef("b", "bob")], options={"width": 39, "height": 32}
        )
        live = service.get(mid)
        rng = random.Random(seed)
        for _ in range(plies):
            seat = live.ruleset.to_move(live.state)
            if seat is None:
                break
            moves = [m for m in live.ruleset.legal_moves(live.state) if m[1] >= 0]
            text = live.ruleset.format(live.state, rng.choice(moves))
            await service.submit(mid, live.players[seat].id, text)
        stored = await service.store.load(mid, with_events=True)
        assert stored is not None
        return stored
    finally:
        await service.close()
        await service.store.close()


async def _measure(quick: bool) -> list[tuple[str, str, str, bool | None]]:
    from aiohttp.test_utils import TestClient, TestServer

    from bot.adapters.web.server import make_app
    from bot.adapters.web.views import Views
    from bot.compose import build_readers
    from bot.records.page import build_match_page
    from bot.records.pagetoken import sign
    from bot.store.matches import MatchStore

    rows: list[tuple[str, str, str, bool | None]] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "pages.db"
        stored = await _dots_match(db, 150 if quick else 600)
        plies = stored.event_count
        t0 = time.perf_counter()
        page = build_match_page(stored)
        secs = time.perf_counter() - t0
        size = len(page.encode())
        rows.append(
            (
                f"page of a {plies - 2}-event Dots 39×32 match: size (build time)",
                f"{size / 1024 / 1024:.2f} MB ({secs:.1f} s)",
                "≤ 3 MB",
                size <= TARGET_BYTES,
            )
        )
        html = Path(tmp) / "page.html"
        html.write_text(page, encoding="utf-8")
        store = MatchStore(f"sqlite+aiosqlite:///{db}")
        await store.open()
        secret = b"bench"
        try:
            async with TestClient(TestServer(make_app(Views(build_readers(store), secret)))) as client:
                path = f"/match/{stored.id}/{sign(secret, 'match', stored.id)}"
                t0 = time.perf_counter()
                assert (await client.get(path)).status == 200
                first = time.perf_counter() - t0
                times = []
                for _ in range(20 if quick else 100):
                    t0 = time.perf_counter()
                    res = await client.get(path)
                    await res.read()
                    times.append((time.perf_counter() - t0) * 1000)
            p95 = statistics.quantiles(times, n=20)[-1]
            rows.append(
                (
                    "`dmhost web` match page p95 after the first (first)",
                    f"{p95:.1f} ms ({first:.1f} s)",
                    "≤ 100 ms",
                    p95 <= TARGET_P95_MS,
                )
            )
        finally:
            await store.close()
        shown = first_board_seconds(html)
        if shown is not None:
            rows.append(
                ("first board shown in headless Chromium", f"{shown:.2f} s", "≤ 1 s", shown <= TARGET_FIRST_BOARD_S)
            )
    return rows


def first_board_seconds(html: Path) -> float | None:
    """Seconds from navigation start until the page's board image is decoded (None: no browser here)."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"):
        options.add_argument(flag)
    with tempfile.TemporaryDirectory() as profile:
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(options=options, service=Service(driver_path))
        try:
            driver.get(html.as_uri())
            # The largest paint is the board picture: when it was first on screen, from navigation start.
            ms = driver.execute_async_script(
                "const done=arguments[0];"
                "new PerformanceObserver(l=>{const e=l.getEntries();done(e[e.length-1].startTime);})"
                ".observe({type:'largest-contentful-paint',buffered:true});"
            )
            return float(ms) / 1000
        finally:
            driver.quit()


def table_rows(quick: bool = False) -> list[tuple[str, str, str, bool | None]]:
    """(measure, figure, target, ok) for the one-table runner."""
    return asyncio.run(_measure(quick))


def main() -> int:
    """Measure and print; exit 1 when a target is missed."""
    rows = table_rows()
    for measure, figure, target, ok in rows:
        print(f"{measure:<60} {figure:>28} {target:>8}  {'ok' if ok else 'SLOW'}")
    return 0 if all(ok is not False for *_x, ok in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
