"""Tables a host shows the server (issue 37): standings, pairings, bracket, leaderboard, profile, results and
upcoming answer privately; a host can post them to the channel instead, with `public:` or with the button under
the private answer."""

from __future__ import annotations

import io
from typing import Any

import discord

from bot.adapters.discord._shared import NO_PINGS, is_host, require_host, respond
from bot.adapters.discord.render import Said, markdown
from bot.text import Text

PUBLIC = "post it in this channel for everyone (hosts only)"
"""The `public:` option's description."""

POST_LABEL = "Post in the channel"


class PostPublicly(discord.ui.View):
    """The button under a host's private answer: the same table, posted in the channel."""

    def __init__(self, text: Said | None, file: tuple[str, bytes] | None, embed: dict[str, Any] | None = None) -> None:
        super().__init__(timeout=600)
        self.text, self.file, self.embed = text, file, embed

    @discord.ui.button(label=POST_LABEL, style=discord.ButtonStyle.primary)
    async def post(self, interaction: discord.Interaction[Any], _button: discord.ui.Button[Any]) -> None:
        """Post it, once."""
        require_host(interaction)
        self.stop()
        await interaction.response.edit_message(view=None)
        channel = interaction.channel
        if isinstance(channel, discord.abc.Messageable):
            await channel.send(self.text, allowed_mentions=NO_PINGS, **_extra(self.file, self.embed))


def _extra(file: tuple[str, bytes] | None, embed: dict[str, Any] | None) -> dict[str, Any]:
    """A fresh `discord.File` (they are single-use) and embed for one more message."""
    extra: dict[str, Any] = {}
    if file is not None:
        extra["file"] = discord.File(io.BytesIO(file[1]), file[0])
    if embed is not None:
        extra["embed"] = discord.Embed.from_dict(embed)
    return extra


def _bytes(file: discord.File | None) -> tuple[str, bytes] | None:
    if file is None:
        return None
    fp = file.fp
    fp.seek(0)
    data = fp.read()
    fp.seek(0)
    return file.filename or "table.png", data


async def answer_table(
    interaction: discord.Interaction[Any],
    text: str | Text | None,
    public: bool,
    *,
    file: discord.File | None = None,
    embed: discord.Embed | None = None,
    own: str | None = None,
) -> None:
    """A table: in the channel for everyone when a host asks `public:`, else privately (with the button that
    posts it, for a host). `text` and/or `embed`, with an optional file; `own` is the embed's footer about the
    caller (their place), said only in the private answer. A table mentions nobody: all of it is rendered as
    words (`markdown`), what was rendered already included."""
    extra: dict[str, Any] = {} if file is None else {"file": file}
    if embed is not None:
        extra["embed"] = embed
    shown = None if text is None else Said(markdown(text)[:1990])
    if public:
        require_host(interaction)
        await respond(interaction, shown, ephemeral=False, **extra)
        return
    if is_host(interaction):
        posted: dict[str, Any] | None = None if embed is None else dict(embed.to_dict())
        extra["view"] = PostPublicly(shown, _bytes(file), posted)
    if embed is not None and own is not None:
        embed.set_footer(text=own)
    await respond(interaction, shown, **extra)
