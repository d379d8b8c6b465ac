"""Tables a host shows the server (issue 37): standings, pairings, bracket, leaderboard, results and upcoming
answer privately; a host can post them to the channel instead, with `public:` or with the button under the
private answer."""

from __future__ import annotations

import io
from typing import Any

import discord

from bot.adapters.discord._shared import NO_PINGS, is_host, require_host, respond

PUBLIC = "post it in this channel for everyone (hosts only)"
"""The `public:` option's description."""

POST_LABEL = "Post in the channel"


class PostPublicly(discord.ui.View):
    """The button under a host's private answer: the same table, posted in the channel."""

    def __init__(self, text: str, file: tuple[str, bytes] | None) -> None:
        super().__init__(timeout=600)
        self.text, self.file = text, file

    @discord.ui.button(label=POST_LABEL, style=discord.ButtonStyle.primary)
    async def post(self, interaction: discord.Interaction[Any], _button: discord.ui.Button[Any]) -> None:
        """Post it, once."""
        require_host(interaction)
        self.stop()
        await interaction.response.edit_message(view=None)
        channel = interaction.channel
        if isinstance(channel, discord.abc.Messageable):
            extra: dict[str, Any] = {}
            if self.file is not None:
                extra["file"] = discord.File(io.BytesIO(self.file[1]), self.file[0])
            await channel.send(self.text, allowed_mentions=NO_PINGS, **extra)


def _bytes(file: discord.File | None) -> tuple[str, bytes] | None:
    if file is None:
        return None
    fp = file.fp
    fp.seek(0)
    data = fp.read()
    fp.seek(0)
    return file.filename or "table.png", data


async def answer_table(
    interaction: discord.Interaction[Any], text: str, public: bool, *, file: discord.File | None = None
) -> None:
    """A table: in the channel for everyone when a host asks `public:`, else privately (with the button that
    posts it, for a host)."""
    extra: dict[str, Any] = {} if file is None else {"file": file}
    if public:
        require_host(interaction)
        await respond(interaction, text[:1990], ephemeral=False, **extra)
        return
    if is_host(interaction):
        extra["view"] = PostPublicly(text[:1990], _bytes(file))
    await respond(interaction, text[:1990], **extra)
