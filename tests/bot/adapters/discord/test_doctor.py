"""`dmhost doctor` on a simulated Discord: privileged intents the portal has not enabled and permissions a
guild does not grant are named, with their fix; all fine exits 0. Plus the CLI's own refusals."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import discord
import pytest
import simcord
from simcord.backend.models.channel import Overwrite
from simcord.enums import OverwriteType

from bot.adapters.discord.app import make_intents
from bot.adapters.discord.doctor import PERMISSIONS, Connector, diagnose, discord_connector, run_doctor
from tests import DMHOST
from tests.bot.ops.test_cli_errors import refusing_discord  # noqa: F401  (fixture: a local Discord that says 401)


def everything_approved() -> discord.Intents:
    return discord.Intents.all()


def build_guilds(*, drop: str | None = None) -> Callable[[simcord.Env], None]:
    """Two guilds; in "Strict Club" neither the bot's role nor @everyone grants `drop` (when given)."""

    def build(env: simcord.Env) -> None:
        env.create_guild("Open Club").create_text_channel("general")
        strict = env.create_guild("Strict Club")
        strict.create_text_channel("general")
        if drop is not None:
            backend = env.backend
            guild = backend.get_guild(strict.id)
            for role in [r for r in guild.roles.values() if r.managed or r.id == strict.id]:  # bot's, @everyone
                perms = discord.Permissions(role.permissions)
                setattr(perms, drop, False)
                backend.edit_role(strict.id, role.id, {"permissions": perms.value})

    return build


def simcord_connector(approved: discord.Intents, build: Callable[[simcord.Env], None], log: list[str]) -> Connector:
    """A fresh simulated Discord per session; `approved` are the intents its developer portal enabled."""

    @contextlib.asynccontextmanager
    async def connect(intents: discord.Intents) -> AsyncIterator[discord.Client]:
        log.append(",".join(flag for flag, on in intents if on and flag in ("members", "message_content")))
        client = discord.Client(intents=intents)
        async with simcord.run(client, approved_intents=approved) as env:
            build(env)
            await env.settle()
            yield client

    return connect


async def test_one_intent_and_one_permission_missing() -> None:
    approved = discord.Intents.all()
    approved.message_content = False
    sessions: list[str] = []
    connect = simcord_connector(approved, build_guilds(drop="manage_threads"), sessions)
    out = io.StringIO()
    code = await run_doctor(connect, make_intents(), out)
    lines = out.getvalue().splitlines()
    assert code == 1, lines
    by_name = {line.split(": ", 1)[0]: line for line in lines}
    assert by_name["ok    login"].startswith("ok")
    assert by_name["FAIL  intent Message Content Intent"].endswith(
        "→ your application → Bot → Privileged Gateway Intents"
    )
    assert "ok    intent Server Members Intent" in by_name
    (strict,) = [line for line in lines if "Strict Club" in line and "Manage Events" not in line]
    (open_,) = [line for line in lines if "Open Club" in line and "Manage Events" not in line]
    assert strict.startswith("FAIL") and "missing Manage Threads" in strict and "fix:" in strict
    assert "Manage Threads in Server Settings → Roles" in strict
    assert "permissions=" in strict  # an invite link carrying the needed permissions
    assert "Send Messages" not in strict.split(" — fix")[0]  # only what is missing is named
    assert open_.startswith("ok")
    # one session with everything, then one per privileged intent, then one without them
    assert sessions == ["members,message_content", "message_content", "members", ""]


async def test_all_fine() -> None:
    connect = simcord_connector(everything_approved(), build_guilds(), [])
    checks = await diagnose(connect, make_intents())
    assert [c.ok for c in checks] == [True] * 8  # login, moves, two intents, per server: permissions, Manage Events
    out = io.StringIO()
    assert await run_doctor(connect, make_intents(), out) == 0
    assert all(line.startswith("ok") for line in out.getvalue().splitlines())
    assert f"all {len(PERMISSIONS)} permissions" in out.getvalue()


async def test_every_permission_is_checked() -> None:
    for flag, label in PERMISSIONS:
        checks = await diagnose(simcord_connector(everything_approved(), build_guilds(drop=flag), []), make_intents())
        (strict,) = [c for c in checks if "Strict Club" in c.name and "Manage Events" not in c.name]
        assert not strict.ok and strict.detail == f"missing {label}", (flag, strict)


async def test_manage_events_is_checked_and_says_what_it_is_for() -> None:
    connect = simcord_connector(everything_approved(), build_guilds(drop="manage_events"), [])
    out = io.StringIO()
    assert await run_doctor(connect, make_intents(), out) == 0  # optional: a note, not a failure
    lines = out.getvalue().splitlines()
    (strict,) = [line for line in lines if "Strict Club" in line and "Manage Events" in line]
    (open_,) = [line for line in lines if "Open Club" in line and "Manage Events" in line]
    assert strict.startswith("note") and "not granted (optional)" in strict
    assert "not listed in the server's Events tab" in strict
    assert strict.endswith("— to have it: give the bot's role `TestBot` Manage Events in Server Settings → Roles")
    assert open_.startswith("ok") and "granted: scheduled DMs (/dm event schedule) also appear" in open_
    (permissions,) = [line for line in lines if "Strict Club" in line and "Manage Events" not in line]
    assert permissions.startswith("ok")  # the permissions the bot needs are all there


async def test_a_bot_in_no_server() -> None:
    checks = await diagnose(simcord_connector(everything_approved(), lambda env: None, []), make_intents())
    assert checks[-1].name == "servers" and not checks[-1].ok and "invite" in (checks[-1].fix or "")


@pytest.mark.usefixtures("refusing_discord")
async def test_the_real_connector_reports_a_refused_token() -> None:
    checks = await diagnose(discord_connector("revoked.token.value", timeout=10), make_intents())
    (login,) = checks
    assert login.name == "login" and not login.ok
    assert "refused the token" in login.detail and "DMHOST_TOKEN" in (login.fix or "")


def _doctor(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("DMHOST_")}
    return subprocess.run([*DMHOST, "doctor"], capture_output=True, text=True, cwd=tmp_path, env={**base, **env})


@pytest.mark.slow  # a `dmhost doctor` process
def test_cli_without_a_token_fails_the_token_check(tmp_path: Path) -> None:
    # docs/cli.md: one line per check with its fix, exit 1 when one fails; a missing token is the first.
    proc = _doctor(tmp_path, {})
    assert proc.returncode == 1 and "Traceback" not in proc.stdout + proc.stderr
    (line,) = proc.stdout.splitlines()
    assert line.startswith("FAIL  token:") and "fix:" in line and "DMHOST_TOKEN" in line


@pytest.mark.slow  # a `dmhost doctor` process
def test_cli_with_a_bad_token_and_no_network(tmp_path: Path) -> None:
    """No network here: the login check fails with its fix (with a network, Discord refuses the token)."""
    proc = _doctor(tmp_path, {"DMHOST_TOKEN": "obviously.bad.token"})
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    (line,) = proc.stdout.splitlines()
    assert line.startswith("FAIL  login:") and "fix:" in line
    assert not list(tmp_path.glob("*.db"))  # reading the game-room channels created no database


def build_rooms(*, deny: str | None = None) -> Callable[[simcord.Env], None]:
    """One guild, "Game Club", with a `lobby` channel and a `games` channel whose overrides deny the
    bot's role `deny` (when given) while the server grants it."""

    def build(env: simcord.Env) -> None:
        guild = env.create_guild("Game Club")
        guild.create_text_channel("lobby")
        channel = guild.create_text_channel("games")
        if deny is not None:
            (bot_role,) = [r for r in env.backend.get_guild(guild.id).roles.values() if r.managed]
            denied = discord.Permissions(**{deny: True}).value
            env.backend.set_overwrite(channel.id, Overwrite(bot_role.id, OverwriteType.ROLE, deny=denied))

    return build


async def _rooms_of(connect: Connector, channel: str) -> dict[int, int]:
    async with connect(discord.Intents.default()) as client:
        (guild,) = client.guilds
        (ch,) = [c for c in guild.text_channels if c.name == channel]
        return {guild.id: ch.id}


async def test_overrides_of_the_game_room_channel_that_take_a_permission_away_are_named() -> None:
    build = build_rooms(deny="send_messages")
    connect = simcord_connector(everything_approved(), build, [])
    rooms = await _rooms_of(connect, "games")
    out = io.StringIO()
    code = await run_doctor(connect, make_intents(), out, rooms=rooms)
    lines = out.getvalue().splitlines()
    assert code == 1, lines
    (server,) = [line for line in lines if "Game Club" in line and "game-room" not in line and "Events" not in line]
    (room,) = [line for line in lines if "game-room channel #games" in line]
    assert server.startswith("ok")  # the server grants everything; the channel takes Send Messages away
    assert room.startswith("FAIL") and "take away Send Messages" in room
    assert "Send Messages in Threads" not in room.split(" — fix")[0]  # only what the channel takes away
    assert "#games → Edit Channel → Permissions" in room


async def test_a_game_room_channel_without_harmful_overrides_passes() -> None:
    connect = simcord_connector(everything_approved(), build_rooms(), [])
    rooms = await _rooms_of(connect, "games")
    checks = await diagnose(connect, make_intents(), rooms)
    (room,) = [c for c in checks if "game-room" in c.name]
    assert room.ok and room.name.endswith("#games")
    assert all(c.ok for c in checks)


async def test_a_game_room_channel_that_is_gone_is_a_failure_with_its_fix() -> None:
    connect = simcord_connector(everything_approved(), build_rooms(), [])
    rooms = {gid: 4242 for gid in await _rooms_of(connect, "games")}
    checks = await diagnose(connect, make_intents(), rooms)
    (room,) = [c for c in checks if "game-room" in c.name]
    assert not room.ok and "id 4242" in room.detail and "/dm config" in (room.fix or "")


async def test_the_configured_rooms_are_read_from_the_database_and_nothing_is_created(tmp_path: Path) -> None:
    from bot.ops.cli import configured_rooms
    from bot.store.guilds import GuildSettingsStore
    from bot.store.matches import MatchStore

    db = tmp_path / "dmhost.db"
    store = MatchStore(f"sqlite+aiosqlite:///{db}")
    await store.open()
    try:
        guilds = GuildSettingsStore(store.engine)
        await guilds.update(11, room_channel_id=101)
        await guilds.update(12, room_mode="private")  # no channel set: not checked
    finally:
        await store.close()
    assert await configured_rooms(str(db)) == {11: 101}
    missing = tmp_path / "none.db"
    with pytest.raises(Exception, match="no database"):
        await configured_rooms(str(missing))
    assert not missing.exists()
