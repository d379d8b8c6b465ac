"""`dmhost doctor`: check a deployment before it goes live — the token, how moves are read (plain messages
with the Message Content Intent, or mentions and `/move` without it: `DMHOST_MESSAGE_CONTENT`), the privileged
intents, and in every guild the permissions the bot needs — one line per check, with the fix for each failure.

The checks run over a *connector*: given the gateway intents to ask for, it yields a logged-in, ready
`discord.Client`, and raises what discord.py raises when Discord says no (`LoginFailure` for the
token, `PrivilegedIntentsRequired` for an intent the developer portal has not enabled). In production
that is `discord_connector(token)`; tests hand in a client running on SimCord.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TextIO

import aiohttp
import discord

from bot.wording import doctor as words

Connector = Callable[[discord.Intents], AbstractAsyncContextManager[discord.Client]]

PRIVILEGED: tuple[tuple[str, str], ...] = (
    ("message_content", "Message Content Intent"),
    ("members", "Server Members Intent"),
)
"""Privileged intents the bot uses: (discord.Intents flag, name in the developer portal)."""

PERMISSIONS: tuple[tuple[str, str], ...] = (
    ("view_channel", "View Channels"),
    ("send_messages", "Send Messages"),
    ("send_messages_in_threads", "Send Messages in Threads"),
    ("create_public_threads", "Create Public Threads"),
    ("create_private_threads", "Create Private Threads"),
    ("manage_threads", "Manage Threads"),
    ("attach_files", "Attach Files"),
    ("embed_links", "Embed Links"),
    ("read_message_history", "Read Message History"),
)
"""Permissions the bot needs in a guild: (discord.Permissions flag, name in Discord's settings)."""

OPTIONAL: tuple[tuple[str, str, str, str], ...] = (
    (
        "manage_events",
        "Manage Events",
        words.EVENTS_GIVE,
        words.EVENTS_LOST,
    ),
)
"""Permissions a feature uses when granted and goes without otherwise: (flag, name, what it gives, what is
lost without it). A missing one is a note, not a failure."""

PORTAL = "https://discord.com/developers/applications"


def needed_permissions() -> discord.Permissions:
    """Every permission in `PERMISSIONS`, as one value (for an invite link)."""
    return discord.Permissions(**{flag: True for flag, _ in PERMISSIONS})


@dataclass(frozen=True)
class Check:
    """One verdict: what was checked, whether it passed, what was found, and how to fix a failure."""

    name: str
    ok: bool
    detail: str
    fix: str | None = None
    note: bool = False
    """Passed, but something optional is off (the line says what it costs and how to have it)."""

    def line(self) -> str:
        """The line `dmhost doctor` prints."""
        return words.line(self.name, self.ok, self.detail, self.fix, self.note)


def all_passed(checks: list[Check]) -> bool:
    """Whether every check passed (and there was at least one)."""
    return bool(checks) and all(c.ok for c in checks)


def invite_url(client: discord.Client) -> str | None:
    """An invite link that grants the bot every permission it needs (None before the id is known)."""
    app_id = client.application_id or (client.user.id if client.user else None)
    if app_id is None:
        return None
    return discord.utils.oauth_url(app_id, permissions=needed_permissions(), scopes=("bot", "applications.commands"))


async def check_guilds(client: discord.Client, rooms: Mapping[int, int] | None = None) -> list[Check]:
    """Per guild the bot is in: which of the needed permissions its roles do not grant; and, for a guild
    whose game-room channel is set (`rooms`: guild id → channel id, from `/dm config`), which of them
    that channel's permission overrides take away."""
    invite = invite_url(client)
    again = words.invite_again(invite)
    if not client.guilds:
        return [Check("servers", False, words.NO_SERVER, words.invite(invite))]
    checks = []
    for guild in sorted(client.guilds, key=lambda g: (g.name.lower(), g.id)):
        me = guild.me
        name = words.server(guild.name, guild.id)
        if me is None:
            checks.append(Check(name, False, words.NOT_VISIBLE, words.TRY_AGAIN))
            continue
        perms = me.guild_permissions
        missing = [label for flag, label in PERMISSIONS if not getattr(perms, flag)]
        role = me.top_role.name if not me.top_role.is_default() else words.ITS_ROLE
        if not missing:
            checks.append(Check(name, True, words.all_granted(len(PERMISSIONS))))
        else:
            checks.append(Check(name, False, words.missing(missing), words.grant(role, missing, again)))
        checks.extend(_check_optional(name, perms, role))
        room = (rooms or {}).get(guild.id)
        if room is not None:
            checks.append(_check_room(guild, me, room, perms, role))
    return checks


def _check_optional(name: str, perms: discord.Permissions, role: str) -> list[Check]:
    """One line per optional permission: granted (and what it gives), or a note on what goes without it."""
    checks = []
    for flag, label, gives, lost in OPTIONAL:
        if getattr(perms, flag):
            checks.append(Check(f"{name} {label}", True, words.granted(gives)))
        else:
            fix = words.grant(role, [label])
            checks.append(Check(f"{name} {label}", True, words.not_granted(lost), fix, note=True))
    return checks


def _check_room(
    guild: discord.Guild, me: discord.Member, channel_id: int, server: discord.Permissions, role: str
) -> Check:
    """The game-room channel set with `/dm config`: what its overrides take away from what the server
    grants (what the server lacks is said on the server's own line)."""
    name = words.room_channel(guild.name, guild.id)
    channel = guild.get_channel(channel_id)
    if channel is None:
        return Check(name, False, words.room_gone(channel_id), words.ROOM_GONE_FIX)
    perms = channel.permissions_for(me)
    taken = [label for flag, label in PERMISSIONS if getattr(server, flag) and not getattr(perms, flag)]
    if not taken:
        return Check(f"{name} #{channel.name}", True, words.ROOM_OK)
    return Check(
        f"{name} #{channel.name}",
        False,
        words.taken_away(taken),
        words.allow_in_channel(taken, role, channel.name),
    )


def _without_privileged(intents: discord.Intents) -> discord.Intents:
    base = discord.Intents(**dict(intents))
    for flag, _ in PRIVILEGED:
        setattr(base, flag, False)
    return base


def _login_failure(exc: BaseException) -> Check | None:
    if isinstance(exc, discord.LoginFailure):
        return Check("login", False, words.TOKEN_REFUSED, words.new_token(PORTAL))
    if isinstance(exc, discord.ConnectionClosed | discord.GatewayNotFound | discord.DiscordServerError):
        return Check("login", False, words.session_refused(exc), words.SESSION_REFUSED_FIX)
    if isinstance(exc, aiohttp.ClientError | OSError | asyncio.TimeoutError):
        return Check("login", False, words.unreachable(exc or type(exc).__name__), words.UNREACHABLE_FIX)
    return None


async def _connects(connect: Connector, intents: discord.Intents) -> bool:
    """Whether Discord accepts a gateway session with these intents (False: a privileged one is refused)."""
    try:
        async with connect(intents):
            return True
    except discord.PrivilegedIntentsRequired:
        return False


def _intent_checks(wanted: discord.Intents, enabled: dict[str, bool]) -> list[Check]:
    checks = []
    for flag, label in PRIVILEGED:
        if not getattr(wanted, flag):
            continue
        if enabled.get(flag, False):
            checks.append(Check(words.intent(label), True, words.ENABLED))
        else:
            first = words.WITHOUT_MESSAGE_CONTENT if flag == "message_content" else ""
            checks.append(Check(words.intent(label), False, words.NOT_ENABLED, first + words.turn_on(label, PORTAL)))
    return checks


def _moves_check(wanted: discord.Intents, client: discord.Client) -> Check:
    """How players hand in moves in this mode (`DMHOST_MESSAGE_CONTENT`), and what the other mode needs."""
    me = f"@{client.user.display_name}" if client.user is not None else "@dmhost"
    if wanted.message_content:
        return Check("moves", True, words.MOVES_READ)
    return Check("moves", True, words.moves_by_mention(me), words.MOVES_BY_MESSAGE_FIX, note=True)


def _login_ok(client: discord.Client) -> Check:
    who = str(client.user) if client.user else words.THE_BOT
    return Check("login", True, words.logged_in(who))


async def diagnose(connect: Connector, wanted: discord.Intents, rooms: Mapping[int, int] | None = None) -> list[Check]:
    """Every check, in order: login, each privileged intent of `wanted`, then one line per guild (two
    when its game-room channel is set: `rooms`, see `check_guilds`).

    One gateway session with everything the bot asks for when all is well; when Discord refuses a
    privileged intent, one session per privileged intent tells which, and the guild checks run on a
    session without them.
    """
    try:
        async with connect(wanted) as client:
            everything = {flag: True for flag, _ in PRIVILEGED}
            return [
                _login_ok(client),
                _moves_check(wanted, client),
                *_intent_checks(wanted, everything),
                *await check_guilds(client, rooms),
            ]
    except discord.PrivilegedIntentsRequired:
        pass
    except Exception as exc:
        failure = _login_failure(exc)
        if failure is None:
            raise
        return [failure]
    base = _without_privileged(wanted)
    enabled: dict[str, bool] = {}
    try:
        for flag, _ in PRIVILEGED:
            if getattr(wanted, flag):
                one = discord.Intents(**dict(base))
                setattr(one, flag, True)
                enabled[flag] = await _connects(connect, one)
        async with connect(base) as client:
            return [
                _login_ok(client),
                _moves_check(wanted, client),
                *_intent_checks(wanted, enabled),
                *await check_guilds(client, rooms),
            ]
    except Exception as exc:
        failure = _login_failure(exc)
        if failure is None:
            raise
        return [failure]


async def run_doctor(
    connect: Connector, wanted: discord.Intents, out: TextIO | None = None, rooms: Mapping[int, int] | None = None
) -> int:
    """Print one line per check; the exit code of `dmhost doctor`: 0 when all pass, 1 otherwise."""
    checks = await diagnose(connect, wanted, rooms)
    for check in checks:
        print(check.line(), file=out or sys.stdout)
    return 0 if all_passed(checks) else 1


def discord_connector(token: str, *, timeout: float = 60.0) -> Connector:
    """Sessions on the real Discord: log in with the token, open the gateway, wait until ready."""

    @contextlib.asynccontextmanager
    async def connect(intents: discord.Intents) -> AsyncIterator[discord.Client]:
        client = discord.Client(intents=intents, chunk_guilds_at_startup=False)
        runner: asyncio.Task[None] | None = None
        try:
            await client.login(token)
            runner = asyncio.create_task(client.connect(reconnect=False))
            ready = asyncio.create_task(client.wait_until_ready())
            done, _ = await asyncio.wait({runner, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if ready not in done:
                ready.cancel()
                if runner in done:
                    runner.result()  # raises what closed the gateway (PrivilegedIntentsRequired, …)
                    raise ConnectionError(words.GATEWAY_CLOSED)
                raise TimeoutError(words.not_ready(timeout))
            yield client
        finally:
            await client.close()
            if runner is not None:
                runner.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await runner

    return connect
