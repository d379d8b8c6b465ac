"""Time controls as pluggable strategies over the event loop's clock (`loop.time()` seconds).

A `Clocks` value knows whose action is running and for how long; it lists its upcoming
deadlines (announcements and the final timeout) and the match service sleeps until the next one.
Everything here is plain data so a snapshot can be stored and re-armed after a restart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.types import ClockKind, ClockNotice, TimeControl

__all__ = ["WARNINGS", "Clocks", "Deadline", "TimeControl", "seat_odds"]

WARNINGS = (30.0, 10.0)
_NOTICES = frozenset(ClockNotice)


def seat_odds(clock: Mapping[str, Any], players: Sequence[Iterable[str]]) -> dict[str, Any]:
    """Clock settings with time odds written by player (`bob:reserve=120`, `<@42>:move=30`) rewritten by
    seat as `TimeControl.from_spec` takes them (`p2:reserve`). `players` lists, in the order the players
    were named, what may name each (names, ids); `p1:`/`p2:` stay as they are. ValueError for a prefix
    that names neither player or both."""
    out: dict[str, Any] = {}
    known = [{_alias(a) for a in aliases if a} for aliases in players]
    for key, value in clock.items():
        prefix, colon, setting = key.rpartition(":")
        who = _alias(prefix)
        if not colon or who in ("p1", "p2"):
            out[key if not colon else f"{who}:{setting}"] = value
            continue
        seats = [i + 1 for i, names in enumerate(known) if who in names]
        if len(seats) != 1:
            raise ValueError(
                f"clock: {prefix!r} names {'both players' if seats else 'neither player'}; "
                "write a player's time as p1:reserve=…, p2:reserve=… or NAME:reserve=…"
            )
        out[f"p{seats[0]}:{setting}"] = value
    return out


def _alias(text: str) -> str:
    """How a player is matched in a clock prefix: lower case, without a leading `@` (a Discord mention is turned
    into the member's id by the Discord adapter before it reaches the host)."""
    return text.strip().lower().removeprefix("@")


@dataclass(order=True, frozen=True)
class Deadline:
    """A moment on the loop clock when something is due for the running seat."""

    at: float
    kind: ClockNotice
    seat: int = field(compare=False)


@dataclass
class Clocks:
    """Both players' clocks for one match."""

    tc: TimeControl
    reserve_left: dict[int, float]
    grace_used: dict[int, bool]
    credit: dict[int, float] = field(default_factory=lambda: {1: 0.0, 2: 0.0})
    running: int | None = None
    elapsed: float = 0.0
    since: float | None = None
    in_grace: bool = False
    fired: set[ClockNotice] = field(default_factory=set)

    @classmethod
    def new(cls, tc: TimeControl) -> Clocks:
        """Fresh clocks, nobody running."""
        if tc.kind == ClockKind.CORRESPONDENCE:  # the bank fills with the time fast moves leave unused
            return cls(tc, {1: 0.0, 2: 0.0}, {1: False, 2: False})
        return cls(tc, {1: tc.for_seat(1).reserve, 2: tc.for_seat(2).reserve}, {1: False, 2: False})

    # -- reading -------------------------------------------------------------------
    def action_elapsed(self, now: float) -> float:
        """Time used in the current action so far."""
        return self.elapsed + (now - self.since if self.since is not None else 0.0)

    @property
    def paused(self) -> bool:
        """A seat is on move but its clock is stopped."""
        return self.running is not None and self.since is None

    def limit(self) -> float:
        """Total action time the running seat may use before it loses."""
        seat = self.running
        if seat is None:
            return float("inf")
        tc = self.tc.for_seat(seat)
        if tc.kind in (ClockKind.MOVE_RESERVE, ClockKind.CORRESPONDENCE):
            return tc.move + self.reserve_left[seat]
        if self.in_grace:
            return tc.move + tc.grace
        return tc.move if self.grace_used[seat] else tc.move + tc.grace

    def schedule(self) -> list[tuple[float, ClockNotice]]:
        """(action elapsed, kind) of every announcement and the timeout of the running action."""
        seat = self.running
        if seat is None:
            return []
        tc = self.tc.for_seat(seat)
        out: list[tuple[float, ClockNotice]] = []
        if tc.kind == ClockKind.CORRESPONDENCE:
            total = tc.move + self.reserve_left[seat]
            if tc.remind > 0:
                out.append((tc.remind * total, ClockNotice.REMINDER))
            out.append((total, ClockNotice.TIMEOUT))
        elif tc.kind == ClockKind.MOVE_RESERVE:
            reserve = self.reserve_left[seat]
            for w in WARNINGS:
                if tc.move > w and reserve == 0:
                    out.append((tc.move - w, ClockNotice.warning(w)))
            if reserve > 0:
                for w in WARNINGS:
                    if tc.move > w:
                        out.append((tc.move - w, ClockNotice.warning(w, of_move=True)))
                out.append((tc.move, ClockNotice.RESERVE_STARTED))
                for w in WARNINGS:
                    if reserve > w:
                        out.append((tc.move + reserve - w, ClockNotice.warning(w)))
            out.append((tc.move + reserve, ClockNotice.TIMEOUT))
        else:
            for w in WARNINGS:
                if tc.move > w:
                    out.append((tc.move - w, ClockNotice.warning(w, of_move=True)))
            if self.grace_used[seat] and not self.in_grace:
                out.append((tc.move, ClockNotice.TIMEOUT))
            else:
                out.append((tc.move, ClockNotice.GRACE_STARTED))
                for w in (60.0, *WARNINGS):
                    if tc.grace > w:
                        out.append((tc.move + tc.grace - w, ClockNotice.warning(w)))
                out.append((tc.move + tc.grace, ClockNotice.TIMEOUT))
        return out

    def next_deadlines(self, now: float) -> list[Deadline]:
        """Upcoming deadlines on the loop clock, soonest first (none while paused)."""
        if self.running is None or self.since is None:
            return []
        start = self.since - self.elapsed
        return sorted(Deadline(start + e, kind, self.running) for e, kind in self.schedule() if kind not in self.fired)

    def remaining(self, seat: int, now: float) -> dict[str, float]:
        """What a seat has left: current action time and reserve (or grace)."""
        tc = self.tc.for_seat(seat)
        used = self.action_elapsed(now) if seat == self.running else 0.0
        if tc.kind in (ClockKind.MOVE_RESERVE, ClockKind.CORRESPONDENCE):
            reserve = self.reserve_left[seat] - max(0.0, used - tc.move)
            return {"move": max(0.0, tc.move - used), "reserve": max(0.0, reserve)}
        grace_left = 0.0
        if seat == self.running and self.in_grace:
            grace_left = max(0.0, tc.move + tc.grace - used)
        elif not self.grace_used[seat]:
            grace_left = tc.grace
        return {
            "move": max(0.0, tc.move - used),
            "grace": grace_left,
            "grace_used": float(self.grace_used[seat]),
        }

    # -- changing ------------------------------------------------------------------
    def start(self, seat: int, now: float, *, paused: bool = False) -> None:
        """Start a fresh action for `seat` (a grace already in progress is not carried over)."""
        self.running = seat
        self.elapsed = -self.credit.get(seat, 0.0)
        self.credit[seat] = 0.0
        self.since = None if paused else now
        self.in_grace = False
        self.fired = set()

    def stop(self, now: float) -> float:
        """Stop the running action, charge it, and return the time it used."""
        seat = self.running
        if seat is None:
            return 0.0
        used = self.action_elapsed(now)
        tc = self.tc.for_seat(seat)
        if tc.kind == ClockKind.MOVE_RESERVE:
            self.reserve_left[seat] = max(0.0, self.reserve_left[seat] - max(0.0, used - tc.move))
        elif tc.kind == ClockKind.CORRESPONDENCE:  # unused move time is saved, up to the cap; overrun is spent
            self.reserve_left[seat] = min(tc.bank, max(0.0, self.reserve_left[seat] + tc.move - max(0.0, used)))
        self.running = None
        self.since = None
        self.elapsed = 0.0
        self.in_grace = False
        self.fired = set()
        return max(0.0, used)

    def swap_seats(self) -> None:
        """The players changed seats before the first move: their time odds and clocks go with them."""
        self.tc = self.tc.swapped()
        self.reserve_left = {1: self.reserve_left[2], 2: self.reserve_left[1]}
        self.grace_used = {1: self.grace_used[2], 2: self.grace_used[1]}
        self.credit = {1: self.credit.get(2, 0.0), 2: self.credit.get(1, 0.0)}

    def fire(self, kind: ClockNotice) -> None:
        """Mark a deadline as handled; entering grace is recorded here."""
        kind = ClockNotice(kind)
        self.fired.add(kind)
        if kind == ClockNotice.GRACE_STARTED and self.running is not None:
            self.grace_used[self.running] = True
            self.in_grace = True

    def pause(self, now: float) -> None:
        """Freeze the running action."""
        if self.since is not None:
            self.elapsed = self.action_elapsed(now)
            self.since = None

    def resume(self, now: float) -> None:
        """Continue a frozen action."""
        if self.running is not None and self.since is None:
            self.since = now

    def adjust(self, seat: int, delta: float, now: float) -> None:
        """Give (`delta` > 0) or take away time: the reserve, or the current/next action's time."""
        if self.tc.kind == ClockKind.MOVE_RESERVE:
            self.reserve_left[seat] = max(0.0, self.reserve_left[seat] + delta)
            if seat == self.running:
                self.fired = {k for k in self.fired if k == ClockNotice.RESERVE_STARTED}
        elif seat == self.running:
            self.elapsed -= delta
            self.fired = set()
            if self.in_grace:
                self.fired.add(ClockNotice.GRACE_STARTED)
        else:
            self.credit[seat] = self.credit.get(seat, 0.0) + delta

    # -- storage -------------------------------------------------------------------
    def to_json(self, now: float) -> dict[str, Any]:
        """Snapshot at loop time `now` (the running action's elapsed time is frozen into it)."""
        reserve_left = {str(k): v for k, v in self.reserve_left.items()}
        grace_used = {str(k): v for k, v in self.grace_used.items()}
        credit = {str(k): v for k, v in self.credit.items()}
        elapsed = self.action_elapsed(now)
        fired = sorted(str(k) for k in self.fired)
        return {
            "tc": self.tc.to_json(),
            "reserve_left": reserve_left,
            "grace_used": grace_used,
            "credit": credit,
            "running": self.running,
            "elapsed": elapsed,
            "ticking": self.since is not None,
            "in_grace": self.in_grace,
            "fired": fired,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], now: float, extra_elapsed: float = 0.0) -> Clocks:
        """Re-arm a snapshot at loop time `now`; `extra_elapsed` is time that ran before a crash."""
        clocks = cls(
            TimeControl.from_json(data["tc"]),
            {int(k): float(v) for k, v in data["reserve_left"].items()},
            {int(k): bool(v) for k, v in data["grace_used"].items()},
            {int(k): float(v) for k, v in data.get("credit", {}).items()},
            data["running"],
            float(data["elapsed"]) + (extra_elapsed if data["ticking"] else 0.0),
            now if data["ticking"] else None,
            bool(data["in_grace"]),
            {ClockNotice(k) for k in data["fired"] if k in _NOTICES},
        )
        return clocks
