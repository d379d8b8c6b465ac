"""The path of a posted move through the host goes down, never back up for words: from the room's handler
(the Discord game room on SimCord, and the terminal room) to the store's commit, no call chain enters a
module of `bot` that is already further up that chain (the issue found 70 of 85 stops returning to a file
already visited, because the core went back up to the announcer for sentences).

Measured with `sys.setprofile`: at every function entry below the handler, the chain of `bot` modules
from the handler to that function (consecutive frames of one module counted once; library frames in
between skipped) must not hold a module twice. Tracing stops where the store commits: what follows is
publishing to subscribers, which are above the core by design."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from bot.adapters.discord.room._cog import GameRoom
from bot.adapters.terminal.room import Room
from bot.compose import build_host
from bot.store.matches import MatchStore
from tests.bot.adapters.discord.conftest import World, start
from tests.bot.conftest import room_config, typed


class DownPath:
    """A profiler recording, for every call made below `handler`, the chain of `bot` modules above it."""

    def __init__(self, handler: CodeType, stop: CodeType | None) -> None:
        self.handler = handler
        self.stop = stop
        self.reached_stop = False
        self.visited: list[str] = []
        """Modules in the order first entered."""
        self.returns: list[list[str]] = []
        """Chains that enter a module already higher up in them."""

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or self.reached_stop:
            return
        chain = self._chain(frame)
        if chain is None:
            return
        if len(set(chain)) != len(chain):
            self.returns.append(chain)
        for module in chain:
            if module not in self.visited:
                self.visited.append(module)
        if frame.f_code is self.stop:
            self.reached_stop = True

    def _chain(self, frame: FrameType) -> list[str] | None:
        """The `bot` modules from the handler down to `frame`, consecutive repeats collapsed (None: not below it)."""
        modules: list[str] = []
        f: FrameType | None = frame
        while f is not None:
            module = str(f.f_globals.get("__name__", ""))
            if module.startswith("bot.") and (not modules or modules[-1] != module):
                modules.append(module)
            if f.f_code is self.handler:
                return modules[::-1]
            f = f.f_back
        return None


@contextmanager
def traced(handler: CodeType, stop: CodeType | None = MatchStore.write_batch.__code__) -> Iterator[DownPath]:
    path = DownPath(handler, stop)
    sys.setprofile(path)
    try:
        yield path
    finally:
        sys.setprofile(None)


def assert_down(path: DownPath, adapter: str) -> None:
    assert path.reached_stop, path.visited
    assert path.returns == []
    assert path.visited[0] == adapter
    assert path.visited.index("bot.host.texts") < path.visited.index("bot.store.matches")  # the walk of a text
    assert "bot.wording" not in path.visited  # no sentence is made on the way down


async def test_a_move_posted_on_discord_goes_down_to_the_commit(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules="takeback=0 draw=on")
    await w.alice.send(room, "A1-B1")
    with traced(GameRoom.handle.__code__) as path:
        await w.bob.send(room, "A2-B2")
    assert w.bot.service.live[match_id].ply == 2
    assert_down(path, "bot.adapters.discord.room._cog")


async def run_room(tmp_path: Path, lines: list[str], stop: CodeType | None) -> DownPath:
    queue = typed(*lines)
    config = room_config(tmp_path, rules={"takeback": "0", "draw": "on"})
    room = Room(config, build_host(config.db_url), out=io.StringIO())
    runner = asyncio.ensure_future(room.run(queue))
    while (live := room.service.live.get(room.match_id or -1)) is None or live.ply < len(lines):
        await asyncio.sleep(0.01)
    with traced(Room.handle_line.__code__, stop) as path:
        await room.handle_line("bob: A2-B2")
    queue.put_nowait(None)
    assert await runner == 0
    return path


async def test_a_move_typed_in_the_terminal_room_goes_down_to_the_commit(tmp_path: Path) -> None:
    path = await run_room(tmp_path, ["alice: A1-B1\n"], MatchStore.write_batch.__code__)
    assert_down(path, "bot.adapters.terminal.room")


async def test_the_measure_sees_a_return_upwards(tmp_path: Path) -> None:
    """Past the commit the service publishes to the room's own listener: the room module is entered again
    below itself, and the measure says so."""
    path = await run_room(tmp_path, ["alice: A1-B1\n"], None)
    assert any(chain[0] == chain[-1] == "bot.adapters.terminal.room" for chain in path.returns), path.returns
