"""The command tree members see, as the loaded bot would sync it: every command, group, option, choice and
permission, compared with `tests/data/discord/command_tree.json` (a change to it is a change people see)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from discord import app_commands

from tests import DATA
from tests.bot.adapters.discord.conftest import World

EXPECTED = DATA / "discord" / "command_tree.json"
REGEN = os.environ.get("DMHOST_REGEN_TREE") == "1"


def _extras(command: app_commands.Command[Any, Any, Any] | app_commands.Group) -> dict[str, Any]:
    """What a subcommand's payload leaves out but the bot still holds: its checks, `guild_only`, autocompletes."""
    checks = [getattr(c, "__qualname__", repr(c)) for c in getattr(command, "checks", [])]
    shown: dict[str, Any] = {"checks": checks} if checks else {}
    if command.guild_only:
        shown["guild_only"] = True
    if isinstance(command, app_commands.Command):
        params = command._params.values()  # the callbacks themselves (the public `Parameter` says only True)
        completes = {p.name: p.autocomplete.__name__ for p in params if callable(p.autocomplete)}
        if completes:
            shown["autocomplete"] = completes
    if isinstance(command, app_commands.Group):
        inner = {c.name: _extras(c) for c in command.commands}
        if any(inner.values()):
            shown["commands"] = {name: extra for name, extra in inner.items() if extra}
    return shown


def tree_dump(world: World) -> dict[str, Any]:
    """Every global command of the loaded bot: its payload (`to_dict`) and its extras."""
    tree = world.bot.tree
    return {
        command.name: {"payload": command.to_dict(tree), "extras": _extras(command)} for command in tree.get_commands()
    }


async def test_the_command_tree_is_the_one_members_know(world: World) -> None:
    dump = tree_dump(world)
    if REGEN:  # pragma: no cover - DMHOST_REGEN_TREE=1 rewrites the expected tree after a wanted change
        EXPECTED.parent.mkdir(exist_ok=True)
        EXPECTED.write_text(json.dumps(dump, indent=1, ensure_ascii=False) + "\n")
    assert dump == json.loads(EXPECTED.read_text())


def test_the_cog_walks_every_command_it_declares_or_adds(tmp_path: Path) -> None:
    """`/dm host` and the rules' action commands join the cog's group when it is built; the cog still lists
    them as its own (discord.py's `walk_app_commands`), in the group's order."""
    from bot.adapters.discord.app import create_bot
    from bot.adapters.discord.commands import MatchCommands
    from bot.ops.apps import discord_app
    from bot.settings import Settings

    settings = Settings(_env_file=None, database_url=f"sqlite+aiosqlite:///{tmp_path / 'dm.db'}")  # type: ignore[call-arg]
    cog = MatchCommands(create_bot(settings, discord_app(settings), sync_commands=False))
    walked = [c.qualified_name for c in cog.walk_app_commands()]
    assert cog.app_command is not None
    assert walked == [c.qualified_name for c in cog.app_command.walk_commands()]
    assert {"dm host", "dm host award", "dm resign", "dm mulligan", "dm ready", "dm practice"} <= set(walked)
