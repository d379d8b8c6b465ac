"""The walk of a posted move (issue #36): how often a legal move posted in a Discord game room goes back into
a module of `bot` it has already left, between `GameRoom.handle(message)` and the store's commit of the move.

How it is measured (`Walk`, with `sys.setprofile`):

- From the entry into `GameRoom.handle` until the move is durably stored: `MatchStore.write_batch` has returned
  (the group commit that holds the move's rows is done). Publishing to the subscribers comes after that and
  is not on the walk (they are above the core by design).
- Only the handler's own call tree counts: a Python function entered in a frame whose callers lead back to the
  handler's frame. Tasks it starts (the store's writer task, the match's timer task) are other walks.
- A coroutine resumed after an `await` is the same call going on, not a new entry: each frame counts once.
- Each entry is named by its module (`frame.f_globals["__name__"]`): every `bot.*` module by its own name,
  every module of `games` as the one stop `games` (the engine, entered through its `Ruleset`); the standard
  library and third-party code are not stops (and do not separate two entries into the same module).
- Consecutive entries into one module are one stop. A stop at a module the walk has already left is a return.

On failure the walk is printed stop by stop (module and the function that entered it)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any

import pytest

from bot.adapters.discord.room._cog import GameRoom
from bot.store.matches import MatchStore
from tests import ROOT
from tests.bot import conftest as host_fixtures
from tests.bot.adapters.discord import conftest as simcord_fixtures
from tests.bot.adapters.discord.conftest import World, start

# The SimCord world's fixtures, for this test outside tests/bot (beside the project-wide measures).
migrated_sqlite_url = host_fixtures.migrated_sqlite_url
sqlite_template = host_fixtures.sqlite_template
settings = simcord_fixtures.settings
solver_compiled = simcord_fixtures.solver_compiled
simcord_bot = simcord_fixtures.simcord_bot
simcord_env = simcord_fixtures.simcord_env
world = simcord_fixtures.world

MAX_RETURNS = 25
"""The target of issue #46 (after #36's 40): at most 25 returns on the measured walk of a posted move, the reply
and the provisional move alike (rules not in play in the match are not asked)."""


def stop_of(module: str) -> str | None:
    """The stop a module counts as (None: not a stop)."""
    if module.startswith("bot."):
        return module
    if module == "games" or module.startswith("games."):
        return "games"
    return None


@dataclass
class Walk:
    """The stops of one handler's call tree, up to the end of a given call (see the module docstring)."""

    handler: CodeType
    until: CodeType
    stops: list[tuple[str, str]] = field(default_factory=list)
    """(stop, qualified name of the function that entered it), consecutive entries into one stop collapsed."""
    done: bool = False
    _seen: set[int] = field(default_factory=set)
    _frames: list[FrameType] = field(default_factory=list)
    """The frames entered so far, kept alive so that no id in `_seen` is reused by a new frame."""
    _until: FrameType | None = None

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        if self.done:
            return
        if self._finished(frame, event):
            self.done = True
            return
        if event != "call" or id(frame) in self._seen or not self._below_handler(frame):
            return
        self._seen.add(id(frame))
        self._frames.append(frame)
        if frame.f_code is self.until and self._until is None:
            self._until = frame
        stop = stop_of(str(frame.f_globals.get("__name__", "")))
        if stop is not None and (not self.stops or self.stops[-1][0] != stop):
            self.stops.append((stop, frame.f_code.co_qualname))

    def _finished(self, frame: FrameType, event: str) -> bool:
        """The call `until` has returned: the first event below the handler whose callers no longer include it."""
        if self._until is None or event != "call" or not self._below_handler(frame):
            return False
        f: FrameType | None = frame
        while f is not None:
            if f is self._until:
                return False
            f = f.f_back
        return True

    def _below_handler(self, frame: FrameType) -> bool:
        f: FrameType | None = frame
        while f is not None:
            if f.f_code is self.handler:
                return True
            f = f.f_back
        return False

    @property
    def returns(self) -> list[int]:
        """The positions of the stops at a module the walk had already left."""
        seen: set[str] = set()
        out = []
        for i, (stop, _fn) in enumerate(self.stops):
            if stop in seen:
                out.append(i)
            seen.add(stop)
        return out

    def entered(self) -> dict[str, int]:
        """How many times the walk entered each module (stops), most first."""
        counts: dict[str, int] = {}
        for stop, _fn in self.stops:
            counts[stop] = counts.get(stop, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))

    def report(self) -> str:
        """The walk, one stop a line (`↩` marks a return), and the totals."""
        back = set(self.returns)
        lines = [f"{i:3} {'↩' if i in back else ' '} {stop:42} {fn}" for i, (stop, fn) in enumerate(self.stops)]
        counts = ", ".join(f"{m} {n}" for m, n in self.entered().items())
        return "\n".join([*lines, f"{len(self.stops)} stops, {len(back)} returns; entered: {counts}"])


@contextmanager
def walked(handler: CodeType, until: CodeType = MatchStore.write_batch.__code__) -> Iterator[Walk]:
    walk = Walk(handler, until)
    sys.setprofile(walk)
    try:
        yield walk
    finally:
        sys.setprofile(None)


@pytest.mark.parametrize(
    ("rules", "before", "move"),
    [
        pytest.param(None, ["A1-B1"], "A2-B2", id="final"),  # the reply: the mover's clock stops, the next turn starts
        pytest.param("takeback=10", [], "A1-B1", id="provisional"),  # the take-back window keeps it provisional
    ],
)
async def test_a_posted_move_returns_to_a_module_at_most_25_times(
    world: World, rules: str | None, before: list[str], move: str
) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", **({"rules": rules} if rules else {}))
    players = [w.alice, w.bob]
    for text in before:
        await players.pop(0).send(room, text)
    with walked(GameRoom.handle.__code__) as walk:
        await players[0].send(room, move)
    print(walk.report())
    assert w.bot.service.live[match_id].ply == len(before) + 1  # the move was played
    assert walk.done, walk.report()  # ... and the walk reached its commit
    assert walk.stops[0][0] == "bot.adapters.discord.room._cog"
    assert len(walk.returns) <= MAX_RETURNS, walk.report()
    said_in_architecture(rules, walk)


ARCHITECTURE = ROOT / "ARCHITECTURE.md"
FIGURES = re.compile(r"<!-- walk:(\w+) -->(\d+) stops, (\d+) returns<!-- /walk -->")


def said_in_architecture(rules: str | None, walk: Walk) -> None:
    """ARCHITECTURE.md quotes the walk's figures as this test measures them (`DMHOST_WRITE_WALK=1` rewrites them)."""
    case = "final" if rules is None else "provisional"
    text = ARCHITECTURE.read_text(encoding="utf-8")
    measured = f"<!-- walk:{case} -->{len(walk.stops)} stops, {len(walk.returns)} returns<!-- /walk -->"
    quoted = {m[1]: m[0] for m in FIGURES.finditer(text)}
    if os.environ.get("DMHOST_WRITE_WALK") == "1":
        ARCHITECTURE.write_text(text.replace(quoted[case], measured), encoding="utf-8")
        return
    assert quoted.get(case) == measured, (
        f"ARCHITECTURE.md says {quoted.get(case)!r}, the walk measures {measured!r}: "
        "run `DMHOST_WRITE_WALK=1 python -m pytest tests/test_move_walk.py -n 0` to write it"
    )
