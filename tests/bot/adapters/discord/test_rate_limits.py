"""Players who move as fast as they can: the bot's messages in their room stay within Discord's
per-channel limit of 5 messages (creates and edits) per 5 seconds."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, SupportsIndex

import pytest
import simcord

from bot.settings import Settings
from tests.bot.adapters.discord.conftest import World, start
from tests.bot.adapters.terminal.test_room_games import SETUPS, scripted_game

LIMIT, WINDOW = 5, 5.0
MESSAGE_WRITE = re.compile(r"^/channels/(\d+)/messages(/\d+)?$")


@pytest.fixture
def settings(migrated_sqlite_url: str) -> Settings:
    """As `dmhost run` has it (announcements folded over the default batch time), long heartbeat."""
    return Settings(_env_file=None, database_url=migrated_sqlite_url, heartbeat_seconds=3600.0)  # type: ignore[call-arg]


class Timed(list[Any]):
    """SimCord's request log, with the virtual time each request was made at."""

    def __init__(self, env: simcord.Env, items: list[Any]) -> None:
        super().__init__(items)
        self.env = env
        self.times: list[float] = [env._virtual_time] * len(items)

    def append(self, item: Any) -> None:
        self.times.append(self.env._virtual_time)
        super().append(item)

    def insert(self, index: SupportsIndex, item: Any) -> None:  # pragma: no cover - SimCord only appends
        raise AssertionError("the request log is only appended to")


def worst_window(log: Timed, start_at: int) -> tuple[int, list[float]]:
    """The most message creates/edits the bot made in one channel within any 5 s."""
    per_channel: dict[str, list[float]] = defaultdict(list)
    for entry, at in list(zip(log, log.times, strict=True))[start_at:]:
        m = MESSAGE_WRITE.match(entry.path)
        if m and entry.method in ("POST", "PATCH"):
            per_channel[m.group(1)].append(at)
    worst: tuple[int, list[float]] = (0, [])
    for times in per_channel.values():
        for i, t in enumerate(times):
            burst = [u for u in times[i:] if u < t + WINDOW]
            worst = max(worst, (len(burst), burst), key=lambda x: x[0])
    return worst


REPLY_SECONDS = 0.5
"""How soon a player answers the other's move: quicker than the announcer's batch (1 s), so a board update is due
after every batch and only the pacing keeps the room within the limit."""


async def post_at_once(w: World, who: simcord.MemberActor, room: simcord.ChannelHandle, text: str) -> None:
    """`who` posts `text`; it settles as soon as the bot has handled the post. SimCord waits in real time for a
    bot's timer due within its settle timeout: below the announcer's 1 s batch, the batch and the pacing after it
    are left to the simulated clock (`advance_time`), where they run at once. On a machine so loaded that the bot
    is still busy with the post when that short horizon passes, the post is settled as every other one is (the
    batch then runs out in real time: the player only answers later, which the limit must hold for too)."""
    horizon = w.env.settle_timeout
    w.env.settle_timeout = w.bot.settings.announce_batch_seconds / 2
    try:
        await who.send(room, text)
    except TimeoutError:
        w.env.settle_timeout = horizon
        await w.env.settle()
    finally:
        w.env.settle_timeout = horizon


@pytest.mark.parametrize("game", ["boxes", "trax"])
async def test_players_moving_as_fast_as_they_can_stay_within_the_channel_limit(world: World, game: str) -> None:
    w = world
    assert w.bot.settings.announce_batch_seconds == 1.0, "dmhost run's batch: paced flushes"
    lines, _outcome = scripted_game(game)
    options = " ".join(f"{k}={v}" for k, v in SETUPS[game]["opts"].items())
    match_id, room = await start(w, game, room="public", options=options, clock="move=600 reserve=600 takeback=0")
    log = Timed(w.env, list(w.env.backend.http_requests))
    w.env.backend.http_requests = log
    first = len(log)
    players = {"ann": w.alice, "ben": w.bob}
    for line in lines:
        name, text = line.split(": ", 1)
        await post_at_once(w, players[name], room, text)
        await w.env.advance_time(REPLY_SECONDS)  # the next move half a second later, on the simulated clock
    assert match_id not in w.bot.service.live, "the match is over"
    await w.env.advance_time(10)
    count, burst = worst_window(log, first)
    assert count <= LIMIT, f"{count} message writes within {WINDOW} s in one room at {burst}"
    posts = [e for e in log[first:] if MESSAGE_WRITE.match(e.path) and e.method in ("POST", "PATCH")]
    assert posts, "the board was updated"


MAX_REQUESTS_PER_MOVE = 1.2
CHAT_EVERY = 3
"""A spectator chats twice after every third move, so the board moves down more often than moves alone make it."""


@pytest.mark.parametrize("game", ["boxes", "trax", "pathing"])
async def test_whole_games_with_the_board_moving_down_stay_within_the_request_budget(world: World, game: str) -> None:
    w = world
    w.bot.settings.announce_batch_seconds = 0.0  # every move its own board update: the strictest count
    lines, _outcome = scripted_game(game)
    options = " ".join(f"{k}={v}" for k, v in SETUPS[game]["opts"].items())
    match_id, room = await start(w, game, room="public", options=options, clock="move=600 reserve=600 takeback=0")
    first_board = next(m for m in room.history() if f"**Match {match_id} · " in m.content)
    requests_before = len(w.env.http_requests)
    players = {"ann": w.alice, "ben": w.bob}
    moves = 0
    for line in lines:
        name, text = line.split(": ", 1)
        await players[name].send(room, text)
        moves += text not in ("confirm", "decline")
        if moves % CHAT_EVERY == 0:
            await w.dave.send(room, "what a move")
            await w.dave.send(room, "indeed")
    assert match_id not in w.bot.service.live, "the match is over"
    await w.env.advance_time(10)
    requests = len(w.env.http_requests) - requests_before
    moved = [m for m in room.history() if "the board has moved down" in m.content]
    # with 5 messages every 3 moves, 11 pile up within 7 moves: the board moves every 10 moves shown
    assert len(moved) >= moves // 11, f"the board moved down {len(moved)} times in {moves} moves"
    assert first_board.id in {m.id for m in moved}
    (board,) = [m for m in room.history() if f"**Match {match_id} · " in m.content]
    assert "Result:" in board.content
    print(f"{game}: {requests} requests for {moves} moves = {requests / moves:.3f} per move, moved {len(moved)}")
    assert (requests - 1) / moves <= MAX_REQUESTS_PER_MOVE  # one more for the match's end (the rating line)
