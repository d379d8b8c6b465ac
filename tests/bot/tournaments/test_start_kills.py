"""`dmhost tournament start` killed (SIGKILL, a real process) before each of its database commits in turn —
so between every two commits — on SQLite and PostgreSQL (#38 item 2). After each kill the next command
(`tournament play`) carries the tournament to its end: never "already started" with nothing to play, one
match per pairing, and every match's log replays to its snapshot."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from bot.ops import cli
from bot.records.agreement import disagreement
from bot.store.db import Match
from bot.store.matches import MatchStore
from bot.tournaments.tables import GAMES

ROOT = Path(__file__).resolve().parents[3]


def dmhost(*args: str) -> tuple[int, str, str]:
    """The command line in this process (for the steps that are not under test)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


def start_killed_at(n: int, tid: int, url: str) -> subprocess.CompletedProcess[str]:
    """`tournament start` in its own process, killed when its n-th commit is about to happen."""
    return subprocess.run(
        [sys.executable, "-m", "tests.bot.killpoint", str(n), "tournament", "start", str(tid), "--db", url],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip


def create(url: str, name: str) -> int:
    code, out, err = dmhost(
        "tournament", "create", name, "--game", "boxes", "--opt", "rows=1", "cols=1",
        "--format", "swiss", "--rounds", "1", "--db", url,
    )  # fmt: skip
    assert code == 0, err
    tid = int(out.strip())
    assert dmhost("tournament", "join", str(tid), "ann", "ben", "cat", "--db", url)[0] == 0
    return tid


async def check_matches(url: str) -> None:
    """One match per pairing (no orphan, none shared) and every log replays to its snapshot."""
    store = MatchStore(url)
    try:
        async with store.engine.connect() as conn:
            linked = list((await conn.execute(select(GAMES.c.match_id).where(GAMES.c.black.is_not(None)))).scalars())
            total = (await conn.execute(select(func.count()).select_from(Match))).scalar_one()
            ids = list((await conn.execute(select(Match.id))).scalars())
        assert None not in linked and len(set(linked)) == len(linked) == total, (linked, total)
        for mid in ids:
            stored = await store.load(mid, with_events=True)
            assert stored is not None and disagreement(stored) is None, (mid, disagreement(stored))
    finally:
        await store.close()


def test_a_kill_between_every_two_commits_of_start(migrated_db_url: str) -> None:
    clean = create(migrated_db_url, "clean")
    counted = start_killed_at(0, clean, migrated_db_url)
    assert counted.returncode == 0, counted.stderr
    commits = int(counted.stderr.strip().splitlines()[-1].removeprefix("commits: "))
    assert commits >= 3, counted.stderr  # its own start and round 1 at least, then the matches
    for n in range(1, commits + 1):
        tid = create(migrated_db_url, f"cup {n}")
        killed = start_killed_at(n, tid, migrated_db_url)
        assert killed.returncode == -9, (n, killed.stderr)
        again, _, said = dmhost("tournament", "start", str(tid), "--db", migrated_db_url)  # what an operator does next
        assert again == 0 or "has already started" in said, (n, said)
        code, out, err = dmhost("tournament", "play", str(tid), "--json", "--db", migrated_db_url)
        assert code == 0, (n, err)
        state: dict[str, Any] = json.loads(out)
        assert state["tournament"]["status"] == "finished" and len(state["rounds"]) == 1, (n, state)
        assert all(g.get("result") for rnd in state["rounds"] for g in rnd if "black" in g), (n, state)
    asyncio.run(check_matches(migrated_db_url))
