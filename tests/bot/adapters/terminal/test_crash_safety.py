"""Crash safety: `dmhost room` killed with SIGKILL at random points, then `--resume`d.

After every kill we check, from the database the dead process left behind:
- every move (and take-back, clock notice, result) the dead process announced is in the log;
- nothing is half-applied: the snapshot's state equals replaying the logged moves with the engine;
- after `--resume`, the clocks (and a Trax take-back window) hold what they held at the crash, give or
  take one heartbeat: the downtime is not charged to anyone.

Kill points are random: while a move is in flight (before, during or after its commit), while idle with
a clock running, inside a Trax 5-second take-back window, and during a Pathing penalty pick. The suite
runs each scenario once with seed 1;
`DMHOST_CRASH_ROUNDS=20 python -m pytest tests/bot/adapters/terminal/test_crash_safety.py -s` runs twenty rounds
(seeds 1-20), and `DMHOST_TEST_SEED=N` starts the rounds from seed N instead.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from games import registry
from tests import DMHOST, ROOT, seeds

# The child processes must run this checkout's code, even where another checkout is pip-installed.
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
ROUNDS = int(os.environ.get("DMHOST_CRASH_ROUNDS", "1"))
EPS = 1e-6  # seconds: floating-point noise only
NAMES = {1: "alice", 2: "bob"}

# What the room prints (event) → what the log must then hold (kind). Trax's final "move" is a "commit".
ANNOUNCED_AS = {
    "provisional": "move",
    "takeback": "takeback",
    "clock": "clock",
    "illegal": "illegal",
    "hint": "syntax",
    "finished": "finished",
}


class Room:
    """One `dmhost room` process with its JSON events, each stamped with `time.monotonic()` (the same
    clock as the child's event loop on Linux)."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.stderr = (cwd / "stderr.txt").open("a")
        self.proc = subprocess.Popen(
            [*DMHOST, "room", *args, "--events-json"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            bufsize=1,
            cwd=cwd,
            env=ENV,
        )
        self.events: list[tuple[float, dict[str, Any]]] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                with self._cond:
                    self.events.append((time.monotonic(), json.loads(line)))
                    self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def wait(self, pred: Callable[[dict[str, Any]], bool], since: int = 0, timeout: float = 30) -> dict[str, Any]:
        """The first event from index `since` on that satisfies `pred`."""
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                for _t, ev in self.events[since:]:
                    if pred(ev):
                        return ev
                left = end - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(f"no such event; got {[e for _, e in self.events[since:]]}")
                self._cond.wait(left)

    def mark(self) -> int:
        with self._cond:
            return len(self.events)

    def kill(self) -> float:
        """SIGKILL now; returns the instant of the kill."""
        t = time.monotonic()
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self._reader.join(10)
        self.stderr.close()
        return t

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(30)
        self._reader.join(10)
        self.stderr.close()
        return code

    def announced(self) -> list[dict[str, Any]]:
        with self._cond:
            return [ev for _, ev in self.events]


# -- reading what the dead process left -------------------------------------------------------------


@dataclass
class Stored:
    game: str
    options: dict[str, Any]
    status: str
    snapshot: dict[str, Any]
    events: list[dict[str, Any]]
    heartbeats: dict[str, float] = field(default_factory=dict)


def read_db(db: Path, mid: int) -> Stored:
    """The match row, its whole log and the heartbeats, in one read transaction."""
    con = sqlite3.connect(db, timeout=30)
    try:
        con.execute("BEGIN")
        game, options, status, snapshot, count = con.execute(
            "SELECT game, options, status, snapshot, event_count FROM matches WHERE id = ?", (mid,)
        ).fetchone()
        rows = con.execute(
            "SELECT seq, kind, seat, text, data FROM match_events WHERE match_id = ? ORDER BY seq", (mid,)
        ).fetchall()
        beats = dict(con.execute("SELECT instance, loop_time FROM heartbeats").fetchall())
        con.execute("COMMIT")
    finally:
        con.close()
    events = [{"seq": s, "kind": k, "seat": seat, "text": t, **json.loads(d or "{}")} for s, k, seat, t, d in rows]
    assert [e["seq"] for e in events] == list(range(count)), "the log has gaps or the count is stale"
    return Stored(game, json.loads(options), status, json.loads(snapshot), events, beats)


def replay(stored: Stored) -> tuple[Any, list[Any]]:
    """The state reached by replaying the log's moves, take-backs and mulligans with the engine."""
    rs = registry.get(stored.game)
    state = rs.new_game(rs.parse_options(stored.options))
    before: list[Any] = []
    for e in stored.events:
        if e["kind"] == "move":
            move = rs.validate(state, rs.parse_syntax(e["move"]), e["seat"])
            before.append(state)
            state = rs.apply(state, move)[0]
        elif e["kind"] == "takeback":
            state = before.pop()
        elif e["kind"] == "mulligan":
            state = before[e["to_ply"]]
            del before[e["to_ply"] :]
    return state, before


def normal(data: Any) -> Any:
    return json.loads(json.dumps(data))


def check_consistent(stored: Stored, announced: list[dict[str, Any]], where: str) -> None:
    """Nothing announced is missing, nothing unannounced is half-applied."""
    rs = registry.get(stored.game)
    state, before = replay(stored)
    assert normal(rs.to_json(state)) == normal(stored.snapshot["state"]), f"{where}: snapshot ≠ replayed log"
    assert stored.snapshot["ply"] == len(before), where
    logged_moves = {(e["ply"], e["move"]) for e in stored.events if e["kind"] == "move"}
    commits = Counter(e["move"] for e in stored.events if e["kind"] == "commit")
    for ev in announced:
        if ev["event"] in ("move", "provisional") and "ply" in ev:
            assert (ev["ply"], ev["move"]) in logged_moves, f"{where}: announced {ev} is not in the log"
        if ev["event"] == "move" and "is final" in ev.get("text", ""):
            assert commits[ev["move"]] > 0, f"{where}: announced final {ev['move']} has no commit"
    logged = Counter(e["kind"] for e in stored.events)
    said = Counter(ANNOUNCED_AS[ev["event"]] for ev in announced if ev["event"] in ANNOUNCED_AS)
    for kind, n in said.items():
        assert logged[kind] >= n, f"{where}: {n} {kind} announced, {logged[kind]} logged"
    if any(ev["event"] == "finished" for ev in announced):
        assert stored.status == "finished", where


@dataclass
class AtCrash:
    """What the clocks held at the killed process's last heartbeat (the last instant it is known to have been
    alive), worked out from the last commit and that heartbeat: the resumed process charges up to there."""

    running: int | None
    elapsed: float
    commit_left: float | None
    reserve_left: dict[str, float]


def _takeback(snap: dict[str, Any]) -> dict[str, Any]:
    """The take-back rule's part of a snapshot (its state and its timers)."""
    return snap["rules"].get("takeback", {"state": {"pending": None}, "timers": {}})


def at_crash(stored: Stored, t_kill: float) -> AtCrash:
    """The clocks at the killed process's last heartbeat (its loop clock is the same monotonic clock as
    `t_kill`'s). No allowance for the machine's speed: every instant compared is one recorded."""
    snap = stored.snapshot
    assert float(snap["loop_at"]) <= t_kill, "the snapshot is from the future"
    beat = stored.heartbeats.get(snap["instance"])
    assert beat is None or beat <= t_kill, "a heartbeat after the kill"
    alive = 0.0 if beat is None else max(0.0, beat - float(snap["loop_at"]))
    clocks = snap["clocks"]
    elapsed = float(clocks["elapsed"]) + (alive if clocks["ticking"] else 0.0)
    commit = _takeback(snap)["timers"].get("commit")
    return AtCrash(
        clocks["running"],
        elapsed,
        None if commit is None else max(0.0, float(commit) - alive),
        clocks["reserve_left"],
    )


def check_resumed_clocks(db: Path, mid: int, crash: AtCrash, t_launch: float, where: str) -> None:
    """Right after `--resume`: the resumed process holds what was left at the killed one's last heartbeat (the
    time between that heartbeat and the kill, and the downtime, are charged to nobody). Its own clocks may
    have run since it restored them, at most from its launch (`t_launch`) to the snapshot it wrote."""
    stored = read_db(db, mid)
    if stored.events[-1]["kind"] != "resumed":
        return  # a timer already fired after the resume and moved the snapshot on: nothing to compare
    clocks = stored.snapshot["clocks"]
    assert clocks["running"] == crash.running, where
    assert clocks["reserve_left"] == crash.reserve_left, where
    ran = float(stored.snapshot["loop_at"]) - t_launch
    elapsed = float(clocks["elapsed"])
    assert crash.elapsed - EPS <= elapsed <= crash.elapsed + ran + EPS, (
        f"{where}: {crash.elapsed:.3f} s used at the last heartbeat, {elapsed:.3f} s after resuming ({ran:.3f} s in)"
    )
    if crash.commit_left is not None:
        left = float(_takeback(stored.snapshot)["timers"]["commit"])
        assert crash.commit_left - ran - EPS <= left <= crash.commit_left + EPS, (
            f"{where}: take-back window {crash.commit_left:.3f} s left at the last heartbeat, "
            f"{left:.3f} s after resuming ({ran:.3f} s in)"
        )


# -- driving a match through kills --------------------------------------------------------------------

DONE = ("turn", "finished", "provisional", "mulligan_offer", "rejected", "illegal", "ignored", "hint", "choose")


class Crasher:
    """Plays one match through one room process after another, killing each at a chosen point."""

    def __init__(self, tmp: Path, rng: random.Random, game: str, args: list[str]) -> None:
        self.tmp, self.rng, self.game = tmp, rng, game
        self.db = tmp / "crash.db"
        self.rs = registry.get(game)
        self.room = Room([game, "--player", "alice", "--player", "bob", "--db", str(self.db), *args], tmp)
        self.mid = int(self.room.wait(lambda e: e["event"] == "started")["match"])
        self.announced: list[dict[str, Any]] = []
        self.kills: Counter[str] = Counter()
        self.resumes = 0
        self.outcomes: Counter[str] = Counter()

    @property
    def stored(self) -> Stored:
        return read_db(self.db, self.mid)

    def state(self) -> Any:
        return replay(self.stored)[0]

    def next_line(self, state: Any) -> str | None:
        seat = self.rs.to_move(state)
        if seat is None:
            return None
        move = self.rng.choice(self.rs.legal_moves(state))
        return f"{NAMES[seat]}: {self.rs.format(state, move)}"

    def play(self, n: int) -> bool:
        """Play `n` random moves, each awaited; False once the match is over."""
        for _ in range(n):
            line = self.next_line(self.state())
            if line is None or self.stored.status == "finished":
                return False
            mark = self.room.mark()
            self.room.send(line)
            ev = self.room.wait(lambda e: e["event"] in DONE, since=mark)
            if ev["event"] == "finished":
                return False
        return True

    def kill_and_resume(self, label: str, downtime: float | None = None) -> None:
        t_kill = self.room.kill()
        self.announced += self.room.announced()
        stored = self.stored
        where = f"{label} (kill #{sum(self.kills.values()) + 1})"
        check_consistent(stored, self.announced, where)
        self.kills[label] += 1
        if stored.status == "finished":
            return
        crash = at_crash(stored, t_kill)
        time.sleep(self.rng.uniform(0.0, 0.4) if downtime is None else downtime)
        t_launch = time.monotonic()
        self.room = Room(["--db", str(self.db), "--resume", str(self.mid)], self.tmp)
        self.resumes += 1
        ev = self.room.wait(lambda e: e["event"] in ("resumed",))
        assert ev["match"] == self.mid
        check_resumed_clocks(self.db, self.mid, crash, t_launch, where)

    def kill_mid_move(self, label: str = "mid-move", burst: int = 1) -> None:
        """Send one or a few moves and kill within a few milliseconds: before, during or after the commit."""
        state = self.state()
        logged = len([e for e in self.stored.events if e["kind"] in ("move", "takeback")])
        mark = self.room.mark()
        for _ in range(burst):
            line = self.next_line(state)
            if line is None:
                break
            self.room.send(line)
            parsed = self.rs.parse_syntax(line.split(": ", 1)[1])
            state = self.rs.apply(state, self.rs.validate(state, parsed, self.rs.to_move(state)))[0]
        time.sleep(self.kill_delay())
        old = self.room
        self.kill_and_resume(label)
        self.note_outcome(logged, [e for _, e in old.events[mark:]])

    def kill_delay(self) -> float:
        """Mostly within the few milliseconds a move takes to be read, checked, committed and printed."""
        return self.rng.uniform(0.0, 0.004) if self.rng.random() < 0.7 else self.rng.uniform(0.004, 0.02)

    def note_outcome(self, logged_before: int, said: list[dict[str, Any]]) -> None:
        """Where a kill landed: before any commit, between a commit and its announcement, or after both."""
        logged = len([e for e in self.stored.events if e["kind"] in ("move", "takeback")]) - logged_before
        announced = len([e for e in said if e["event"] in ("move", "provisional", "takeback")])
        if logged == 0:
            self.outcomes["nothing committed"] += 1
        elif logged > announced:
            self.outcomes["committed, not announced"] += 1
        else:
            self.outcomes["committed and announced"] += 1

    def kill_idle(self, label: str = "idle, clock running") -> None:
        time.sleep(self.rng.uniform(0.1, 1.5))
        self.kill_and_resume(label)

    def finish(self) -> dict[str, Any]:
        """End input, then check the log as `dmhost log --json` prints it."""
        self.room.close()
        self.announced += self.room.announced()
        out = subprocess.run(
            [*DMHOST, "log", str(self.mid), "--db", str(self.db), "--json"],
            capture_output=True,
            text=True,
            check=True,
            env=ENV,
        )
        data: dict[str, Any] = json.loads(out.stdout)
        stored = self.stored
        check_consistent(stored, self.announced, "at the end")
        assert [(m["ply"], m["move"]) for m in data["moves"]] == [
            (e["ply"], e["move"]) for e in stored.events if e["kind"] == "move"
        ]
        assert [e["kind"] for e in data["events"]].count("resumed") == self.resumes
        print(f"{self.game}: kills {dict(self.kills)}, in-flight {dict(self.outcomes)}, {len(data['moves'])} moves")
        return data


SEEDS = seeds(1, ROUNDS)
"""Seeds 1.. (or DMHOST_TEST_SEED..); the seed is in each test's id."""


@pytest.mark.parametrize("seed", SEEDS)
def test_boxes_killed_mid_move_and_idle(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    c = Crasher(tmp_path, rng, "boxes", ["--opt", "rows=3", "cols=3", "--clock", "move=20", "reserve=20"])
    for i in range(5):
        if not c.play(rng.randint(1, 3)):
            break
        if i % 2 == 0:
            c.kill_mid_move(burst=rng.randint(1, 3))
        else:
            c.kill_idle()
    c.finish()


@pytest.mark.parametrize("seed", SEEDS)
def test_trax_killed_inside_the_take_back_window(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    c = Crasher(tmp_path, rng, "trax", ["--rule", "takeback=5"])  # asked for: on a pipe moves are final at once
    mark = c.room.mark()
    c.room.send("alice: @0+")
    c.room.wait(lambda e: e["event"] == "provisional", since=mark)
    # Three kills inside the first move's 5 s window; each restart must keep what was left of it.
    for _ in range(3):
        time.sleep(rng.uniform(0.1, 1.0))
        c.kill_and_resume("take-back window")
    final = c.room.wait(lambda e: e["event"] == "move" and "is final" in e["text"], timeout=10)
    assert final["move"] == "@0+"
    # A kill while bob's move goes in, then one while that move (or, if it was lost, a new one) is
    # being taken back.
    c.kill_mid_move()
    pending = _takeback(c.stored.snapshot)["state"]["pending"]
    if pending is None:
        line = c.next_line(c.state())
        assert line is not None
        mark = c.room.mark()
        c.room.send(line)
        pending = c.room.wait(lambda e: e["event"] == "provisional", since=mark)
    logged = len([e for e in c.stored.events if e["kind"] in ("move", "takeback")])
    mark, old = c.room.mark(), c.room
    c.room.send(f"{NAMES[pending['seat']]}: take back")
    time.sleep(c.kill_delay())
    c.kill_and_resume("mid take-back")
    c.note_outcome(logged, [e for _, e in old.events[mark:]])
    c.finish()


@pytest.mark.parametrize("seed", SEEDS)
def test_pathing_killed_during_the_penalty_pick(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    c = Crasher(tmp_path, rng, "pathing", [])
    c.play(rng.randint(3, 20))
    c.kill_mid_move()
    while c.rs.extra(c.state())["phase"] == "move":
        assert c.play(1)
    c.kill_idle("penalty phase")
    c.kill_mid_move("mid penalty pick")
    if c.rs.extra(c.state())["phase"] == "penalty":
        c.play(1)
    assert c.rs.extra(c.state())["phase"] == "move"
    c.finish()
