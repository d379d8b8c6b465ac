"""Two `dmhost tournament play` on one tournament (#38 item 3), real processes on SQLite and PostgreSQL: the
tournament's lease lets one host its matches; the other is refused with one line (exit 2), and a `play`
whose lease is taken over stops with one line (exit 2). Afterwards every log replays to its snapshot, one
match per pairing, and the standings equal the results."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import DBAPIError

from bot.ownership.scope import Scope, scope_key
from bot.store.leases import ShardLease, db_now
from bot.store.matches import MatchStore
from tests.bot.tournaments.test_start_kills import ROOT, check_matches, dmhost

REFUSED = "tournament {} is being played by another process; try again when it stops"
TAKEN = "another process took over tournament {}'s matches; this one stops"


def create(url: str, rounds: int = 3) -> int:
    code, out, err = dmhost(
        "tournament", "create", "cup", "--game", "boxes", "--opt", "rows=2", "cols=2",
        "--format", "swiss", "--rounds", str(rounds), "--db", url,
    )  # fmt: skip
    assert code == 0, err
    tid = int(out.strip())
    assert dmhost("tournament", "join", str(tid), "ann", "ben", "cat", "dan", "--db", url)[0] == 0
    assert dmhost("tournament", "start", str(tid), "--db", url)[0] == 0
    return tid


def play(url: str, tid: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bot.ops.cli", "tournament", "play", str(tid), "--json", "--db", url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip


async def holder(url: str, tid: int) -> str:
    """Who holds the tournament's lease now ('' for nobody)."""
    store = MatchStore(url)
    try:
        async with store.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(ShardLease.owner, ShardLease.expires_at > db_now(conn.dialect.name)).where(
                        ShardLease.shard == scope_key(Scope.TOURNAMENT, tid)
                    )
                )
            ).first()
    finally:
        await store.close()
    return str(row[0]) if row is not None and row[1] else ""


async def steal(url: str, tid: int, owner: str) -> None:
    """Another process takes the tournament's lease (its epoch rises), or (owner '') gives it up."""
    store = MatchStore(url)
    try:
        async with store.engine.begin() as conn:
            plus = 3600.0 if owner else 0.0
            await conn.execute(
                update(ShardLease)
                .where(ShardLease.shard == scope_key(Scope.TOURNAMENT, tid))
                .values(owner=owner, epoch=ShardLease.epoch + 1, expires_at=db_now(conn.dialect.name, plus))
            )
    finally:
        await store.close()


def check_standings(state: dict[str, Any]) -> None:
    """The table's points are the results' points, and every game has one."""
    points: dict[int, float] = {}
    for rnd in state["rounds"]:
        for g in rnd:
            assert "black" in g and g["result"] is not None, state
            white, black = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}[g["result"]]
            points[g["white"]] = points.get(g["white"], 0.0) + white
            points[g["black"]] = points.get(g["black"], 0.0) + black
    assert {s["player"]: s["points"] for s in state["standings"]} == points, state


def finished(url: str, tid: int) -> dict[str, Any]:
    code, out, err = dmhost("tournament", "status", str(tid), "--json", "--db", url)
    assert code == 0, err
    state: dict[str, Any] = json.loads(out)
    assert state["tournament"]["status"] == "finished", state
    return state


def test_two_plays_at_once_host_each_match_once(db_url: str) -> None:
    tid = create(db_url)
    first, second = play(db_url, tid), play(db_url, tid)
    results = [(p.wait(300), *p.communicate()) for p in (first, second)]
    codes = sorted(code for code, _out, _err in results)
    # One plays it to its end; the other is refused while the first holds the lease (or, if it came only
    # after the end, finds it finished): never both hosting.
    assert codes in ([0, 2], [0, 0]), results
    for code, _out, err in results:
        if code == 2:
            assert err.strip() == f"dmhost tournament: {REFUSED.format(tid)}", err
        else:
            assert json.loads(_out.splitlines()[-1])["tournament"]["status"] == "finished", _out
    check_standings(finished(db_url, tid))
    asyncio.run(check_matches(db_url))


def test_a_play_while_another_holds_the_tournament_is_refused_in_one_line(db_url: str) -> None:
    tid = create(db_url, rounds=1)
    asyncio.run(steal(db_url, tid, "another-process"))
    code, out, err = dmhost("tournament", "play", str(tid), "--db", db_url)
    assert (code, out, err.strip()) == (2, "", f"dmhost tournament: {REFUSED.format(tid)}")
    code, _, err = dmhost("tournament", "result", str(tid), "1", "1-0", "--db", db_url)
    assert (code, err.strip()) == (2, f"dmhost tournament: {REFUSED.format(tid)}")
    asyncio.run(steal(db_url, tid, ""))  # it stops: the lease is free again
    code, _, err = dmhost("tournament", "play", str(tid), "--db", db_url)
    assert code == 0, err
    check_standings(finished(db_url, tid))
    asyncio.run(check_matches(db_url))


def test_a_play_whose_lease_is_taken_over_stops_in_one_line(db_url: str) -> None:
    tid = create(db_url, rounds=3)
    proc = play(db_url, tid)
    end = time.monotonic() + 120
    while not asyncio.run(holder(db_url, tid)).startswith("term:"):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the play never took the tournament's lease"
        time.sleep(0.05)
    for attempt in range(50):
        os.kill(proc.pid, signal.SIGSTOP)  # frozen while another process takes the tournament over
        try:
            asyncio.run(steal(db_url, tid, "another-process"))
            break
        except DBAPIError:  # frozen inside a write, holding the file's lock (SQLite) or the lease row's past our
            # lock_timeout (PostgreSQL: frozen between a statement and its sync, before the idle timeout
            # applies): try another moment
            assert attempt < 49, "the play was frozen inside a write every time"
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        time.sleep(0.05)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, (out, err)
    assert err.strip().splitlines()[-1] == f"dmhost tournament: {TAKEN.format(tid)}", err
    assert "Traceback" not in err, err
    asyncio.run(steal(db_url, tid, ""))
    code, _, err = dmhost("tournament", "play", str(tid), "--db", db_url)
    assert code == 0, err
    check_standings(finished(db_url, tid))
    asyncio.run(check_matches(db_url))


def test_after_the_lease_is_lost_a_lost_connection_is_not_said_again(caplog: pytest.LogCaptureFixture) -> None:
    """The takeover is said in one line; the connections the database closed meanwhile add no stray lines
    (asyncio's "Future exception was never retrieved"), while any other unawaited error is still logged."""
    from bot.adapters.terminal.tournament import _quiet_after_loss
    from bot.ownership.lease import HostLease

    lease = HostLease(keeper=None)  # type: ignore[arg-type]  # only its `lost` is read here
    loop = asyncio.new_event_loop()
    try:
        handle = _quiet_after_loss([lease])
        lost = {"message": "Future exception was never retrieved", "exception": ConnectionError("connection_lost")}
        other = {"message": "Future exception was never retrieved", "exception": ValueError("a bug")}
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            handle(loop, lost)  # the lease is still held: said
            lease.lost.set()
            handle(loop, lost)  # lost: the takeover says it
            handle(loop, other)
        said = [r.getMessage() for r in caplog.records if r.name == "asyncio"]
        assert len(said) == 2 and all("never retrieved" in line for line in said)
        assert [r.exc_info[1].__class__ for r in caplog.records if r.exc_info] == [ConnectionError, ValueError]
    finally:
        loop.close()
