"""What hosts and spectators look at: `/dm live`, `/dm moves`, the bodies of `/dm status`, `/dm board`,
`/dm history`, and each result posted where people look (the room's parent channel or the server's
results channel)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.adapters.discord.overview._cog import (
    Overview,
    board_reply,
    history_lines,
    may_read_record,
    room_link,
    status_reply,
)

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

__all__ = ["Overview", "board_reply", "history_lines", "may_read_record", "room_link", "setup", "status_reply"]


async def setup(bot: DMHost) -> None:
    """Load the overview (after `/dm`, whose group it adds `live` and `moves` to)."""
    await bot.add_cog(Overview(bot))
