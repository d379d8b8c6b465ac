"""SimCord fixtures: the real bot (real service, real SQLite file) against a simulated Discord."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import discord
import pytest
import simcord

from bot.adapters.discord.app import DMHost, create_bot
from bot.ops.apps import discord_app
from bot.settings import Settings


@pytest.fixture
def settings(migrated_sqlite_url: str) -> Settings:
    """Long heartbeat (a 1 s heartbeat keeps SimCord's world from ever settling), no announcement delay, and
    no background analysis (a process per finished match; tests of the analysis turn it on)."""
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=migrated_sqlite_url,
        heartbeat_seconds=3600.0,
        announce_batch_seconds=0.0,
        analysis=False,
    )


@pytest.fixture(scope="session")
def solver_compiled() -> None:
    """The bot warms the solver up in a worker thread at start; done here first, once, so that SimCord
    (which waits for a bot's worker threads a few seconds at most) never waits for numba."""
    from games.solver import ensure_compiled

    ensure_compiled()


@pytest.fixture
def simcord_bot(settings: Settings, solver_compiled: None) -> DMHost:
    """The bot as `dmhost run` builds it, commands synced."""
    return create_bot(settings, discord_app(settings), sync_commands=True)


ADVANCE_BUDGET_S = 60.0
"""Real seconds one `advance_time` may take. SimCord budgets a whole advance of its clock by the settle timeout,
in real time: a day and a half of correspondence clock (jobs, heartbeats, reminders, each with its database
round trips) takes about 4 s here on an idle machine and more than 5 s with both cores busy."""


class _Env(simcord.Env):
    """SimCord's environment, whose advances of the clock are not held to the short settle timeout."""

    async def advance_time(self, seconds: float) -> None:
        horizon = self.settle_timeout
        self.settle_timeout = max(horizon, ADVANCE_BUDGET_S)
        try:
            await super().advance_time(seconds)
        finally:
            self.settle_timeout = horizon


@pytest.fixture
async def simcord_env(simcord_bot: DMHost) -> AsyncIterator[simcord.Env]:
    """SimCord's environment. Its settle timeout is also the horizon below which sleeps are waited for in
    real time, so it stays short: clocks and take-back windows in these tests are longer than it."""
    env = _Env(simcord_bot, settle_timeout=5.0)
    await env.start()
    try:
        yield env
    finally:
        await env.shutdown()
        env._raise_errors_since(env._errors_acknowledged)


@dataclass
class World:
    """One guild: a lobby channel, two players, a host (Host role), a spectator and a moderator."""

    env: simcord.Env
    guild: simcord.GuildHandle
    lobby: simcord.ChannelHandle
    alice: simcord.MemberActor
    bob: simcord.MemberActor
    carol: simcord.MemberActor
    dave: simcord.MemberActor

    @property
    def bot(self) -> DMHost:
        return self.env.bot  # type: ignore[return-value]


def make_world(env: simcord.Env, name: str = "Death Match Club", *, suffix: str = "") -> World:
    """A guild with its lobby, a `Host` role and four members (`suffix` on their names: several guilds)."""
    guild = env.create_guild(name=name)
    lobby = guild.create_text_channel("lobby")
    host_role = guild.create_role("Host")
    return World(
        env=env,
        guild=guild,
        lobby=lobby,
        alice=guild.add_member(env.create_user(f"alice{suffix}")),
        bob=guild.add_member(env.create_user(f"bob{suffix}")),
        carol=guild.add_member(env.create_user(f"carol{suffix}"), roles=[host_role]),
        dave=guild.add_member(env.create_user(f"dave{suffix}")),
    )


@pytest.fixture
async def world(simcord_env: simcord.Env) -> World:
    return make_world(simcord_env)


def now(w: World) -> float:
    """The bot's loop clock (SimCord's virtual time: what the host's clocks read)."""
    return w.env._virtual_time


def answer(result: simcord.InteractionResult) -> simcord.ResponseMessage:
    """What the invoking user finally saw: the last follow-up, else the response."""
    if result.followups:
        return result.followups[-1]
    assert result.response is not None, f"no answer: {result!r}"
    return result.response


def bot_messages(w: World, channel: simcord.ChannelHandle) -> list[discord.Message]:
    """Every message the bot posted in a channel (current content), oldest first."""
    return [m for m in channel.history() if w.bot.user is not None and m.author.id == w.bot.user.id]


def bot_text(w: World, channel: simcord.ChannelHandle) -> str:
    """All the bot's visible text in a channel, one message per line."""
    return "\n".join(m.content for m in bot_messages(w, channel))


def board_of(w: World, channel: simcord.ChannelHandle, match_id: int) -> discord.Message:
    """The one board message of a match."""
    boards = [m for m in bot_messages(w, channel) if f"**Match {match_id} · " in m.content]
    assert len(boards) == 1, [m.content for m in bot_messages(w, channel)]
    return boards[0]


async def start(
    w: World,
    game: str = "boxes",
    *,
    room: str = "channel",
    by: simcord.MemberActor | None = None,
    players: tuple[simcord.MemberActor, simcord.MemberActor] | None = None,
    **options: Any,
) -> tuple[int, simcord.ChannelHandle]:
    """`/dm start` by the host in the lobby (alice against bob unless `players` says otherwise); the match id
    and its room."""
    before = {t.id for t in w.lobby.threads}
    first, second = players or (w.alice, w.bob)
    result = await (by or w.carol).slash(
        w.lobby, "dm start", game=game, player1=first, player2=second, room=room, **options
    )
    if "already playing a live match" in answer(result).content:  # the double-booking warning: start anyway
        result = await (by or w.carol).click(answer(result), label="Start anyway")
    text = answer(result).content
    assert "has started" in text, text
    match_id = int(text.split()[1])
    if room == "channel":
        return match_id, w.lobby
    (thread,) = [t for t in w.lobby.threads if t.id not in before]
    return match_id, thread


async def play(w: World, room: simcord.ChannelHandle, moves: list[tuple[simcord.MemberActor, str]]) -> None:
    """Players post moves in turn."""
    for who, text in moves:
        await who.send(room, text)


async def confirm(
    who: simcord.MemberActor, room: simcord.ChannelHandle, sent: discord.Message
) -> simcord.InteractionResult:
    """`who` presses Confirm on the prompt that answered their message `sent` (a resignation, a Dots stop)."""
    prompt = next(
        m
        for m in room.history()
        if m.reference is not None and m.reference.message_id == sent.id and "Confirm" in str(m.components)
    )
    return await who.click(prompt, label="Confirm")


async def resign(
    who: simcord.MemberActor, room: simcord.ChannelHandle, *, text: bool = False, **options: Any
) -> simcord.InteractionResult:
    """`who` resigns by `/dm resign` (or by posting `resign`, with `text`) and confirms it; the Confirm click."""
    if text:
        sent = await who.send(room, "resign")
        return await confirm(who, room, sent)
    asked = answer(await who.slash(room, "dm resign", **options))
    assert "Confirm" in str(asked.components), asked.content
    return await who.click(asked, label="Confirm")
