"""Drive the real bot without Discord: dpytest for messages, real INTERACTION_CREATE payloads for
slash commands and buttons (answered through a recording webhook adapter instead of HTTP)."""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import discord.ext.test as dpytest
import discord.ext.test.backend as back
import discord.ext.test.factories as facts
import discord.webhook.async_ as webhook_async

from bot.app import DMHost, create_bot
from bot.discord.announce import Announcer
from bot.service import MatchService
from bot.settings import Settings
from bot.store import MatchStore

APP_ID = 424242424242424242
_ids = itertools.count(900_000_000_000_000_000)
ALL_PERMS = str(discord.Permissions.all().value)
NO_PERMS = str(discord.Permissions(send_messages=True, read_message_history=True, view_channel=True).value)


@dataclass
class Reply:
    """One answer the bot gave to an interaction (response or follow-up)."""

    kind: str
    interaction_id: int
    type: int | None
    data: dict[str, Any]
    files: list[tuple[str, bytes]] = field(default_factory=list)

    @property
    def content(self) -> str:
        return str(self.data.get("content") or "")

    @property
    def ephemeral(self) -> bool:
        return bool(int(self.data.get("flags") or 0) & 64)

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.data.get("embeds") or [])


def _payload(params_payload: dict[str, Any] | None, multipart: list[dict[str, Any]] | None) -> dict[str, Any]:
    if params_payload is not None:
        return dict(params_payload)
    for part in multipart or []:
        if part.get("name") == "payload_json":
            return dict(json.loads(part["value"]))
    return {}


def _files(files: Any) -> list[tuple[str, bytes]]:
    out = []
    for f in files or []:
        f.fp.seek(0)
        out.append((f.filename, f.fp.read()))
    return out


class RecordingAdapter:
    """Stands in for discord.py's webhook adapter: records every interaction answer."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self.replies: list[Reply] = []

    def _message(self, data: dict[str, Any]) -> dict[str, Any]:
        channel = self.harness.channel
        return {
            "id": str(next(_ids)),
            "channel_id": str(channel.id),
            "type": 0,
            "content": data.get("content") or "",
            "author": _user(self.harness.bot.user, bot=True),
            "attachments": [],
            "embeds": data.get("embeds") or [],
            "mentions": [],
            "mention_roles": [],
            "pinned": False,
            "mention_everyone": False,
            "tts": False,
            "timestamp": "2024-01-01T00:00:00+00:00",
            "edited_timestamp": None,
            "flags": data.get("flags") or 0,
            "components": data.get("components") or [],
        }

    async def create_interaction_response(self, interaction_id: int, token: str, *, params: Any, **_: Any) -> Any:
        data = _payload(params.payload, params.multipart)
        inner = dict(data.get("data") or {})
        self.replies.append(Reply("response", int(interaction_id), data.get("type"), inner, _files(params.files)))
        return {"interaction": {"id": str(interaction_id), "type": 2}, "resource": None}

    async def execute_webhook(
        self, webhook_id: int, token: str, *, payload: Any = None, multipart: Any = None, files: Any = None, **kw: Any
    ) -> Any:
        data = _payload(payload, multipart)
        self.replies.append(Reply("followup", 0, None, data, _files(files)))
        return self._message(data) if kw.get("wait") else None

    async def edit_original_interaction_response(
        self,
        application_id: int,
        token: str,
        *,
        payload: Any = None,
        multipart: Any = None,
        files: Any = None,
        **_: Any,
    ) -> Any:
        data = _payload(payload, multipart)
        self.replies.append(Reply("edit", 0, None, data, _files(files)))
        return self._message(data)

    async def get_original_interaction_response(self, *_: Any, **__: Any) -> Any:
        return self._message({})

    async def delete_original_interaction_response(self, *_: Any, **__: Any) -> None:
        return None


def _user(user: Any, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user.id),
        "username": user.name,
        "discriminator": "0001",
        "avatar": None,
        "global_name": None,
        "bot": bot,
    }


def _member(member: discord.Member, permissions: str, roles: list[int]) -> dict[str, Any]:
    return {
        "user": _user(member),
        "roles": [str(r) for r in roles],
        "joined_at": "2024-01-01T00:00:00+00:00",
        "deaf": False,
        "mute": False,
        "flags": 0,
        "permissions": permissions,
    }


class Harness:
    """One bot on a real database, configured with dpytest: three members and one text channel."""

    def __init__(self, bot: DMHost) -> None:
        self.bot = bot
        self.adapter = RecordingAdapter(self)
        self.sent_components: dict[int, list[dict[str, Any]]] = {}
        self._token: Any = None
        self.hosts: set[int] = set()

    # -- setup --------------------------------------------------------------------------
    @classmethod
    async def start(cls, db_url: str, *, fixed: bool = False, **settings: Any) -> Harness:
        """Build the bot like `dmhost run` does (minus the gateway), then run its setup hook."""
        settings.setdefault("announce_batch_seconds", 0.5)
        cfg = Settings(_env_file=None, token=None, database_url=db_url, **settings)  # type: ignore[call-arg]
        service = MatchService(MatchStore(db_url), heartbeat_seconds=cfg.heartbeat_seconds)
        bot = create_bot(cfg, service=service, sync_commands=False)
        h = cls(bot)
        dpytest.configure(bot, members=["alice", "bob", "carol"])
        config = dpytest.get_config()
        h.guild = config.guilds[0]
        h.channel = config.channels[0]
        h.alice, h.bob, h.carol = config.members
        if fixed:
            # the same guild, room and players in every bot built with fixed=True (restart tests)
            h.guild = back.make_guild("Fixed Guild", id_num=1_100_000_000_000_000_000)
            h.channel = back.make_text_channel("room", h.guild, id_num=1_100_000_000_000_000_001)
            members = []
            for i, name in enumerate(("alice", "bob", "carol")):
                user = back.make_user(name, "0001", id_num=1_100_000_000_000_000_010 + i)
                members.append(back.make_member(user, h.guild))
            h.alice, h.bob, h.carol = members
            back.make_member(back.get_state().user, h.guild)
        h.host_role = back.make_role("Host", h.guild)
        bot._connection._command_tree = bot.tree
        bot._connection.application_id = APP_ID
        h._patch_send()
        h._token = webhook_async.async_context.set(h.adapter)  # type: ignore[arg-type]
        h.messages()  # dpytest's queue of sent messages outlives a test: start empty
        await bot._async_setup_hook()
        await bot.setup_hook()
        h.announcer.pictures = False  # dpytest cannot edit a message's attachments; see the picture test
        return h

    async def stop(self) -> None:
        """Flush announcements, stop timers, close the database (the bot object is then discarded)."""
        await self.settle()
        await self.bot.service.close()
        await self.bot.service.store.close()
        if self._token is not None:
            webhook_async.async_context.reset(self._token)
            self._token = None

    def _patch_send(self) -> None:
        """Remember the components of every message the bot sends (dpytest drops them)."""
        http = self.bot.http
        original = http.send_message
        sent = self.sent_components

        async def send_message(channel_id: int, *, params: Any) -> Any:
            channel = sys._getframe(1).f_locals.get("channel")  # noqa: F841  (dpytest reads its caller's locals)
            data = await original(channel_id, params=params)
            sent[int(data["id"])] = list((params.payload or _payload(None, params.multipart)).get("components") or [])
            return data

        http.send_message = send_message  # type: ignore[method-assign]

    @property
    def announcer(self) -> Announcer:
        cog = self.bot.get_cog("Announcer")
        assert isinstance(cog, Announcer)
        return cog

    async def settle(self) -> None:
        """Let dpytest events run and every batched announcement go out."""
        await dpytest.run_all_events()
        await self.announcer.drain()
        await dpytest.run_all_events()

    # -- the message path -----------------------------------------------------------------
    async def say(self, member: discord.Member, text: str) -> discord.Message:
        """A member posts in the room."""
        return await dpytest.message(text, channel=self.channel, member=member)

    def messages(self) -> list[discord.Message]:
        """Everything the bot has sent since the last call (oldest first)."""
        out = []
        while not dpytest.sent_queue.empty():
            out.append(dpytest.sent_queue.get_nowait())
        return out

    async def delete(self, message: discord.Message) -> None:
        back.delete_message(message)
        await dpytest.run_all_events()

    async def edit(self, message: discord.Message, content: str) -> None:
        data = facts.dict_from_message(message)
        data.update(
            content=content,
            edited_timestamp="2024-01-01T00:00:01+00:00",
            guild_id=str(self.guild.id),
            channel_id=str(message.channel.id),
            type=0,
        )
        self.bot._connection.parse_message_update(data)
        await dpytest.run_all_events()

    # -- interactions -------------------------------------------------------------------------
    def _base(self, kind: int, member: discord.Member, data: dict[str, Any], host: bool) -> dict[str, Any]:
        host = host or member.id in self.hosts
        return {
            "id": str(next(_ids)),
            "application_id": str(APP_ID),
            "type": kind,
            "token": "token",
            "version": 1,
            "guild_id": str(self.guild.id),
            "channel_id": str(self.channel.id),
            "channel": {"id": str(self.channel.id), "type": 0, "guild_id": str(self.guild.id), "name": "room"},
            "member": _member(member, ALL_PERMS if host else NO_PERMS, []),
            "data": data,
            "locale": "en-US",
            "guild_locale": "en-US",
            "app_permissions": ALL_PERMS,
            "attachment_size_limit": 8_000_000,
            "entitlements": [],
            "authorizing_integration_owners": {},
            "context": 0,
        }

    def _options(self, options: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        opts: list[dict[str, Any]] = []
        resolved: dict[str, Any] = {"users": {}, "members": {}}
        for name, value in options.items():
            if isinstance(value, discord.Member):
                opts.append({"name": name, "type": 6, "value": str(value.id)})
                resolved["users"][str(value.id)] = _user(value)
                member = _member(value, NO_PERMS, [])
                member.pop("user")
                resolved["members"][str(value.id)] = member
            elif isinstance(value, bool):
                opts.append({"name": name, "type": 5, "value": value})
            elif isinstance(value, int):
                opts.append({"name": name, "type": 4, "value": value})
            else:
                opts.append({"name": name, "type": 3, "value": str(value)})
        return opts, resolved

    async def _dispatch(self, payload: dict[str, Any]) -> list[Reply]:
        before = len(self.adapter.replies)
        tasks = asyncio.all_tasks()
        self.bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        # wait for the command / button handler discord.py started (timer tasks live on, skip them)
        handlers = [t for t in asyncio.all_tasks() - tasks if not t.get_name().startswith("match-")]
        await asyncio.gather(*handlers, return_exceptions=True)
        await self.settle()
        return self.adapter.replies[before:]

    async def slash(
        self, member: discord.Member, sub: str, *, host: bool = False, as_role: bool = False, **options: Any
    ) -> list[Reply]:
        """`/dm <sub> option=value …` as `member` (host: with Manage Server; as_role: with the Host role)."""
        opts, resolved = self._options(options)
        data = {
            "id": str(next(_ids)),
            "name": "dm",
            "type": 1,
            "options": [{"name": sub, "type": 1, "options": opts}],
            "resolved": resolved,
        }
        payload = self._base(2, member, data, host)
        if as_role:
            payload["member"]["roles"] = [str(self.host_role.id)]
        return await self._dispatch(payload)

    async def autocomplete(self, member: discord.Member, sub: str, option: str, typed: str) -> list[Reply]:
        """Typing into an autocompleted option."""
        data = {
            "id": str(next(_ids)),
            "name": "dm",
            "type": 1,
            "options": [
                {"name": sub, "type": 1, "options": [{"name": option, "type": 3, "value": typed, "focused": True}]}
            ],
        }
        return await self._dispatch(self._base(4, member, data, False))

    def buttons(self) -> dict[str, int]:
        """custom_id → id of the message carrying it, for every button the bot has posted."""
        out = {}
        for message_id, rows in self.sent_components.items():
            for row in rows:
                for comp in row.get("components", []):
                    if "custom_id" in comp:
                        out[comp["custom_id"]] = message_id
        return out

    async def click(self, member: discord.Member, custom_id: str) -> list[Reply]:
        """Click a button the bot posted (the clicked message carries the component, as on Discord)."""
        known = self.buttons()
        if custom_id in known:
            message_id = known[custom_id]
        else:  # a button posted by an earlier process (restart): the message is only known to Discord
            message_id = next(_ids)
            rows = [{"type": 1, "components": [{"type": 2, "style": 2, "label": "x", "custom_id": custom_id}]}]
            self.sent_components[message_id] = rows
        message = {
            "id": str(message_id),
            "channel_id": str(self.channel.id),
            "type": 0,
            "content": "",
            "author": _user(self.bot.user, bot=True),
            "attachments": [],
            "embeds": [],
            "mentions": [],
            "mention_roles": [],
            "pinned": False,
            "mention_everyone": False,
            "tts": False,
            "timestamp": "2024-01-01T00:00:00+00:00",
            "edited_timestamp": None,
            "flags": 0,
            "components": self.sent_components[message_id],
        }
        payload = self._base(3, member, {"custom_id": custom_id, "component_type": 2}, False)
        payload["message"] = message
        return await self._dispatch(payload)


def text_of(messages: list[discord.Message]) -> str:
    """All contents, one per line."""
    return "\n".join(m.content or "" for m in messages)


def cleanup_dat_files(folder: Path) -> None:
    """dpytest writes attachments to dpytest_N.dat in the working directory."""
    for f in folder.glob("dpytest_*.dat"):
        f.unlink()
