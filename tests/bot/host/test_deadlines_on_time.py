"""Correspondence deadlines on time whatever dies, and every notice told once (issue 47, 1-4): real `dmhost room`
processes on a SQLite file and on PostgreSQL, killed with SIGKILL around their reminders and losses on time."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.jobs.table import JOBS
from bot.store.db import make_engine, sqlite_url_for
from bot.store.outbox import NOTICES
from tests import DMHOST, TESTS
from tests.bot.jsonproc import JsonLinesProcess, Line

pytestmark = pytest.mark.slow

KILL_AFTER = [sys.executable, str(TESTS / "bot" / "noticekill.py")]  # a script: it runs from any folder
LATE_S = 1.0
"""A deadline is ruled within this long of its time (or of the moment its new host is up, when none was)."""


class Stamped(JsonLinesProcess):
    """A room whose lines carry the wall time they were read at (`_at`)."""

    def line(self, raw: str) -> Line:
        return {**super().line(raw), "_at": time.time()}

    def wait_dead(self, timeout: float = 60) -> None:
        self.proc.wait(timeout)


def room(db: str, cwd: Path, *args: str, kill_after: str | None = None) -> Stamped:
    """`dmhost room … --events-json` on `db` (a path or a URL), kept open."""
    head = [*KILL_AFTER, kill_after] if kill_after else DMHOST
    env_args = [*head, "room", *args, "--db", db, "--events-json"]
    return Stamped(env_args, cwd, timeout=90)


def new_match(db: str, cwd: Path, move: float, remind: float = 0.5, **kw: Any) -> Stamped:
    return room(
        db, cwd, "boxes", "--player", "alice", "--player", "bob", "--opt", "rows=2", "cols=2",
        "--clock", "kind=correspondence", f"move={move:g}", f"remind={remind:g}", **kw,
    )  # fmt: skip


def resume(db: str, cwd: Path, mid: int, **kw: Any) -> Stamped:
    return room(db, cwd, "--resume", str(mid), **kw)


async def _stored(url: str, mid: int) -> tuple[str, list[tuple[str, bool]], Any]:
    """The match's status, its notices (kind, told) and its deadline job's row."""
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            status = (await conn.exec_driver_sql(f"SELECT status FROM matches WHERE id = {mid}")).scalar_one()
            rows = await conn.execute(
                select(NOTICES.c.kind, NOTICES.c.told_at).where(NOTICES.c.match_id == mid).order_by(NOTICES.c.id)
            )
            notices = [(str(r[0]), r[1] is not None) for r in rows]
            job = (await conn.execute(select(JOBS).where(JOBS.c.key == f"corr:{mid}"))).mappings().first()
            return str(status), notices, job
    finally:
        await engine.dispose()


def stored(url: str, mid: int) -> tuple[str, list[tuple[str, bool]], Any]:
    return asyncio.run(_stored(url, mid))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.pg)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """(what `--db` takes, the URL): a new SQLite file, or a PostgreSQL schema of its own."""
    if request.param == "sqlite":
        path = tmp_path / "d.db"
        return str(path), sqlite_url_for(path)
    url = request.getfixturevalue("pg_url")
    return url, url


def test_a_reminder_stored_then_killed_is_told_by_the_next_start_once(db: tuple[str, str], tmp_path: Path) -> None:
    arg, url = db
    first = new_match(arg, tmp_path, move=6, remind=0.5, kill_after="reminder")
    try:
        mid = int(first.wait_for("started")["match"])
        first.wait_dead()  # killed right after committing the reminder, before printing it
        assert first.proc.returncode == -signal.SIGKILL
        assert first.of("reminder") == []
        assert stored(url, mid)[1] == [("reminder", False)]
        second = resume(arg, tmp_path, mid)
        try:
            late = second.wait_for("reminder")
            assert late["late"] is True and late["player"] == "alice"
            over = second.wait_for("finished")
            assert over["reason"] == "time"
            code, err = second.end()
            assert code == 0 and "Traceback" not in err
        finally:
            second.kill()
        assert len(second.of("reminder")) == 1
        status, notices, _job = stored(url, mid)
        assert status != "ongoing" and notices == [("reminder", True), ("finished", True)]
    finally:
        first.kill()


def test_a_result_stored_then_killed_is_told_by_the_next_start(db: tuple[str, str], tmp_path: Path) -> None:
    arg, url = db
    first = new_match(arg, tmp_path, move=3, remind=0, kill_after="finished")
    try:
        mid = int(first.wait_for("started")["match"])
        first.wait_dead()
        assert first.of("finished") == []
        second = resume(arg, tmp_path, mid)
        try:
            over = second.wait_for("finished")
            assert over["late"] is True and over["reason"] == "time"
            assert [t.get("late") for t in second.of("timeout")] == [True]  # its timeout line is as late
            code, err = second.end()
            assert code == 2 and "nothing to resume" in err and "Traceback" not in err  # told, then as before
        finally:
            second.kill()
        assert stored(url, mid)[1] == [("finished", True)]
        third = resume(arg, tmp_path, mid)  # told: nothing more to say, the match is over
        try:
            code, err = third.end()
            assert code == 2 and third.of("finished") == [] and "nothing to resume" in err
        finally:
            third.kill()
    finally:
        first.kill()


def test_a_claim_left_by_a_killed_room_is_taken_over_at_once(db: tuple[str, str], tmp_path: Path) -> None:
    """The room dies holding its match's deadline job (claimed, its loss not ruled): the next start rules it at
    once, not after the jobs' 15 s lease."""
    arg, url = db
    first = new_match(arg, tmp_path, move=4, remind=0)
    try:
        mid = int(first.wait_for("started")["match"])
        loss_at = first.wait_for("started")["_at"] + 4
        os.kill(first.proc.pid, signal.SIGSTOP)  # frozen, then killed: its claim is whatever it was
        time.sleep(max(0.0, loss_at - time.time()) + 0.5)
        os.kill(first.proc.pid, signal.SIGKILL)
        first.wait_dead()
    finally:
        first.kill()
    _hold(url, mid, first.proc.pid)  # as if it had claimed the job just now, and died
    second = resume(arg, tmp_path, mid)
    try:
        up = second.wait_for("resumed")["_at"]
        over = second.wait_for("finished", timeout=30)
        assert over["reason"] == "time"
        assert over["_at"] - up <= LATE_S, over["_at"] - up
        second.end()
    finally:
        second.kill()


def _hold(url: str, mid: int, pid: int) -> None:
    """The match's deadline job claimed just now by a runner of the dead process `pid`."""
    import socket

    from sqlalchemy import update

    from bot.jobs.store import database_now

    async def run() -> None:
        engine = make_engine(url)
        try:
            async with engine.begin() as conn:
                now = await database_now(conn)
                token = f"host:{socket.gethostname()[:24]}:{pid}:deadbeef:0123456789ab"
                await conn.execute(
                    update(JOBS)
                    .where(JOBS.c.key == f"corr:{mid}")
                    .values(claimed_by=token, claimed_at=now, done=False, due_at=now)
                )
        finally:
            await engine.dispose()

    asyncio.run(run())


def _on_time(proc: Stamped, kind: str, due: float) -> Line:
    line = proc.wait_for(kind, timeout=60)
    assert -0.5 <= line["_at"] - due <= LATE_S, (kind, line["_at"] - due)  # the start is read a moment after it
    return line


def test_two_rooms_on_one_database_rule_their_own_deadlines_on_time(db: tuple[str, str], tmp_path: Path) -> None:
    arg, url = db
    one = new_match(arg, tmp_path, move=4, remind=0.5)
    two = new_match(arg, tmp_path, move=5, remind=0.5)
    try:
        t1, t2 = one.wait_for("started"), two.wait_for("started")
        assert t1["match"] != t2["match"]
        _on_time(one, "reminder", t1["_at"] + 2)
        _on_time(two, "reminder", t2["_at"] + 2.5)
        _on_time(one, "finished", t1["_at"] + 4)
        _on_time(two, "finished", t2["_at"] + 5)
        for proc in (one, two):
            code, err = proc.end()
            assert code == 0 and "Traceback" not in err
            assert [len(proc.of(k)) for k in ("reminder", "finished")] == [1, 1]
        for line in (t1, t2):
            _status, notices, job = stored(url, int(line["match"]))
            assert notices == [("reminder", True), ("finished", True)]
            assert job["done"] and job["attempts"] == 1  # the loss, claimed once, by its host (the reminder's row was
            # written anew for the loss, its count with it)
    finally:
        one.kill()
        two.kill()


def test_a_restart_rules_a_deadline_another_room_lived_through(db: tuple[str, str], tmp_path: Path) -> None:
    """Match 1's room dies; a room of match 2 runs on the database past match 1's loss time and leaves its job
    alone (due at its time, never pushed); `room --resume 1` then rules the loss at once."""
    arg, url = db
    first = new_match(arg, tmp_path, move=3, remind=0)
    try:
        started = first.wait_for("started")
        mid, due = int(started["match"]), started["_at"] + 3
        os.kill(first.proc.pid, signal.SIGKILL)
        first.wait_dead()
    finally:
        first.kill()
    other = new_match(arg, tmp_path, move=60, remind=0)
    try:
        other.wait_for("started")
        time.sleep(max(0.0, due - time.time()) + 3)  # the other room lives through match 1's loss time
        _status, _notices, job = stored(url, mid)
        assert job["attempts"] == 0 and not job["done"] and job["claimed_by"] is None
        assert abs(job["due_at"].timestamp() - due) < 1.5  # still due at its own time
        again = resume(arg, tmp_path, mid)
        try:
            up = again.wait_for("resumed")["_at"]
            over = again.wait_for("finished", timeout=30)
            assert over["reason"] == "time" and over["_at"] - up <= LATE_S
            code, err = again.end()
            assert code == 0 and "Traceback" not in err
        finally:
            again.kill()
        assert stored(url, mid)[0] != "ongoing"
        assert other.of("finished") == []  # the other room's match goes on
    finally:
        other.kill()


STORM = [  # per match: how its rooms die (a kill right after storing a notice, or SIGKILL at a moment from its start)
    [("after", "reminder"), ("at", 4.0)],
    [("at", 1.9), ("at", 3.95)],
    [("at", 2.1), ("after", "finished")],
    [("at", 4.1)],
]
"""Four matches of 4 s a move, reminded at 2 s: rooms killed just before, at and after their deadlines."""


def _ruled_in_time(proc: Stamped, dues: dict[str, float]) -> None:
    """Every ruling a room printed came within `LATE_S` of its time, or of the moment the room was up (its
    `started` or `resumed` line) when it was due before; one printed during the start is on time."""
    up_lines = proc.of("started") or proc.of("resumed")
    up = up_lines[0]["_at"] if up_lines else float("inf")
    for kind, due in dues.items():
        for line in proc.of(kind):
            assert line["_at"] <= max(due, up) + LATE_S, (kind, line["_at"] - due, line["_at"] - up)


def test_a_sigkill_storm_around_reminders_and_losses(db: tuple[str, str], tmp_path: Path) -> None:
    arg, url = db
    told: list[tuple[int, str]] = []
    for plan in STORM:
        rooms: list[Stamped] = []
        try:
            first = new_match(arg, tmp_path, move=4, remind=0.5, kill_after=_after(plan[0]))
            rooms.append(first)
            start = first.wait_for("started")
            mid, t0 = int(start["match"]), start["_at"]
            dues = {"reminder": t0 + 2, "finished": t0 + 4}
            for how, when in plan:
                proc = rooms[-1]
                if how == "at":
                    time.sleep(max(0.0, t0 + float(when) - time.time()))
                    os.kill(proc.proc.pid, signal.SIGKILL)
                proc.wait_dead()
                rooms.append(resume(arg, tmp_path, mid, kill_after=_after(_next(plan, (how, when)))))
            last = rooms[-1]
            if any(proc.of("finished") for proc in rooms[:-1]):  # told before the last kill: nothing left to do
                code, err = last.end()
                # only what a room killed between telling and marking told may come again, late (at least once)
                assert code == 2 and "nothing to resume" in err and all(e.get("late") for e in last.lines), last.lines
            else:
                last.wait_for("finished", timeout=60)
                code, err = last.end()
                assert "Traceback" not in err
                assert code == (2 if last.of("finished")[0].get("late") else 0), err  # a late result: then "finished"
            for proc in rooms:
                _ruled_in_time(proc, dues)
                told += [
                    (mid, line["event"], bool(line.get("late")))
                    for line in proc.lines
                    if line["event"] in ("reminder", "finished")
                ]
            status, notices, _job = stored(url, mid)
            assert status != "ongoing" and notices == [("reminder", True), ("finished", True)], (plan, notices)
        finally:
            for proc in rooms:
                proc.kill()
    # Every reminder and every loss told, and told again only late: a room killed between telling a notice and
    # marking it told leaves it to the next start, which tells it once more and marks that line late (at least
    # once, never lost; seen in CI when the kill at the deadline fell in that window).
    mids = sorted({mid for mid, _kind, _late in told})
    assert len(mids) == len(STORM), told
    for mid in mids:
        for kind in ("reminder", "finished"):
            lines = [late for m, k, late in told if (m, k) == (mid, kind)]
            assert lines and all(lines[1:]), (mid, kind, told)


def _after(step: tuple[str, object] | None) -> str | None:
    """The `noticekill` kind of a plan's step (None: a room killed from outside, or not at all)."""
    return str(step[1]) if step is not None and step[0] == "after" else None


def _next(plan: list[tuple[str, object]], step: tuple[str, object]) -> tuple[str, object] | None:
    at = plan.index(step)
    return plan[at + 1] if at + 1 < len(plan) else None
