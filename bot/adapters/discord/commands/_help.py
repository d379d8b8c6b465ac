"""`/dm help`: the command tree as members meet it, read from the tree itself (so it cannot fall behind)."""

from __future__ import annotations

from discord import app_commands

from bot.wording.commands import MOVES_LINE

MAX_ENTRIES = 18
"""Entries per command or group we allow ourselves (Discord allows 25): each keeps room to grow."""

GROUP_ORDER = ("host", "event", "tournament", "ratings")
"""The groups in the order the card lists them: running a match, then events, then the tables."""


def command_card(root: app_commands.Group, moves: str | None = None) -> str:
    """One line for `/dm`'s own commands, then one per group with what it is for and its commands; last, where
    moves are written (`moves`: the bot's own line, `bot.wording.help_moves_line`)."""
    direct = [c for c in root.commands if not isinstance(c, app_commands.Group)]
    groups = {c.name: c for c in root.commands if isinstance(c, app_commands.Group)}
    ordered = [groups[n] for n in GROUP_ORDER if n in groups] + [g for n, g in groups.items() if n not in GROUP_ORDER]
    lines = [
        f"**/{root.name}** — play and watch: " + " ".join(f"`{c.name}`" for c in direct),
    ]
    for group in ordered:
        names = " ".join(f"`{c.name}`" for c in group.commands)
        lines.append(f"**/{root.name} {group.name}** — {_lower_first(group.description)}: {names}")
    lines.append(moves or MOVES_LINE)
    return "\n".join(lines)


def entries(group: app_commands.Group) -> int:
    """How many entries a command group holds (subcommands and subgroups)."""
    return len(group.commands)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text else text


def walk_groups(root: app_commands.Group) -> list[app_commands.Group]:
    """The root and every group below it."""
    found: list[app_commands.Group] = [root]
    for command in root.commands:
        if isinstance(command, app_commands.Group):
            found.extend(walk_groups(command))
    return found


__all__ = ["MAX_ENTRIES", "command_card", "entries", "walk_groups"]
