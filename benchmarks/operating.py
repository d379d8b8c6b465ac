"""Operating figures (issues 47 and 50): how fast the command line starts (`dmhost --help` CPU ≤ 0.3 s,
`dmhost room` to its first board ≤ 1 s) and the server page under 50 clients on a server of 1,000 matches
(p95 ≤ 100 ms).

`python -m benchmarks.operating` prints the rows; `python -m benchmarks --only startup serverpage` puts them in the
table.
"""

from __future__ import annotations

import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_HELP_CPU_S = 0.3
TARGET_FIRST_BOARD_S = 1.0
TARGET_SERVER_P95_MS = 100.0
CLIENTS = 50
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}

Row = tuple[str, str, str, bool | None]


def help_cpu_seconds(runs: int) -> float:
    """The least CPU (user + system) of `dmhost --help` over `runs` runs, the interpreter's start included."""
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "bot.ops.cli", "--help"], capture_output=True, check=True, env=ENV)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return best


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a running process has used so far (Linux /proc; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_board_seconds(runs: int) -> tuple[float, float]:
    """The least wall time from starting `dmhost room boxes` (a new database) until its first board is printed,
    and the CPU the process had used by then (what an idle machine's wall time comes down to)."""
    best, cpu = float("inf"), float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            db = Path(tmp) / f"r{i}.db"
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                [*_dmhost(), "room", "boxes", "--player", "alice", "--player", "bob", "--db", str(db)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=ENV,
            )
            assert proc.stdout is not None and proc.stdin is not None
            for line in proc.stdout:
                if line.lstrip().startswith("1 o"):  # the board's first row of dots
                    best = min(best, time.perf_counter() - t0)
                    cpu = min(cpu, _cpu_of(proc.pid))
                    break
            proc.stdin.close()
            proc.wait(30)
    return best, cpu


def _dmhost() -> list[str]:
    return [sys.executable, "-m", "bot.ops.cli"]


def startup_rows(quick: bool) -> list[Row]:
    runs = 2 if quick else 7
    cpu = help_cpu_seconds(runs)
    board, board_cpu = first_board_seconds(2 if quick else 5)
    return [
        ("`dmhost --help` CPU (best run)", f"{cpu:.3f} s", f"≤ {TARGET_HELP_CPU_S:g} s", cpu <= TARGET_HELP_CPU_S),
        (
            "`dmhost room` to its first board, new database (best run; CPU by then)",
            f"{board:.2f} s ({board_cpu:.2f} s CPU)",
            f"≤ {TARGET_FIRST_BOARD_S:g} s",
            board <= TARGET_FIRST_BOARD_S,
        ),
    ]


async def _server_page(matches: int, requests_each: int) -> tuple[float, float, float]:
    """Seconds of the first build, and the p50 and p95 (ms) of `CLIENTS` clients reading the page together."""
    from aiohttp.test_utils import TestClient, TestServer

    from bot.adapters.web.server import make_app
    from bot.adapters.web.views import Views
    from bot.compose import build_readers
    from bot.host.service import MatchService, PlayerRef
    from bot.records.pagetoken import sign
    from bot.store.matches import MatchStore

    guild = 4242
    with tempfile.TemporaryDirectory() as tmp:
        service = MatchService(MatchStore(f"sqlite+aiosqlite:///{Path(tmp) / 's.db'}"))
        await service.start()
        try:
            for i in range(matches):
                players = [PlayerRef(f"a{i}", f"alice{i}"), PlayerRef(f"b{i}", f"bob{i}")]
                await service.create_match("boxes", players, options={"rows": 2, "cols": 2}, guild_id=guild)
            secret = b"bench"
            path = f"/server/{guild}/{sign(secret, 'server', guild)}"
            async with TestClient(TestServer(make_app(Views(build_readers(service.store), secret)))) as client:
                t0 = time.perf_counter()
                assert (await client.get(path)).status == 200
                first = time.perf_counter() - t0
                times: list[float] = []

                async def reader() -> None:
                    for _ in range(requests_each):
                        s = time.perf_counter()
                        res = await client.get(path)
                        await res.read()
                        assert res.status == 200
                        times.append((time.perf_counter() - s) * 1000)

                await asyncio.gather(*(reader() for _ in range(CLIENTS)))
            cuts = statistics.quantiles(times, n=20)
            return first, statistics.median(times), cuts[-1]
        finally:
            await service.close()
            await service.store.close()


def server_page_rows(quick: bool) -> list[Row]:
    matches = 200 if quick else 1000
    first, p50, p95 = asyncio.run(_server_page(matches, 4 if quick else 20))
    return [
        (
            f"server page, {matches:,} live matches, {CLIENTS} clients: p50 / p95 (first build)",
            f"{p50:.1f} / {p95:.1f} ms ({first:.1f} s)",
            f"p95 ≤ {TARGET_SERVER_P95_MS:g} ms",
            p95 <= TARGET_SERVER_P95_MS,
        )
    ]


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    for row in startup_rows(quick) + server_page_rows(quick):
        print(" | ".join(str(c) for c in row))
