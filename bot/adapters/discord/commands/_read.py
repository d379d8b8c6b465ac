"""`/dm help`, `/dm rules`, `/dm board` and `/dm status`: what anyone may read about the commands, the games
and the matches they can see."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.adapters.discord._shared import respond
from bot.adapters.discord.commands._common import MAX_EMBED, Matches, overview_of, title
from bot.adapters.discord.commands._help import command_card
from bot.adapters.discord.render import markdown
from bot.host.events import Refusal
from bot.host.rules.cards import card as rule_card
from bot.host.service import HostError
from bot.wording import help_moves_line, how_to_move, rule_keywords_line
from bot.wording.room import MOVES_BY_MESSAGE
from games import registry
from games.resources import move_example, moves_card

if TYPE_CHECKING:
    from bot.adapters.discord._parts import Parts
    from bot.settings import Settings


class Reading:
    """`/dm help`, `/dm rules`, `/dm board`, `/dm status`."""

    def __init__(self, matches: Matches, features: Parts, client: discord.Client, settings: Settings) -> None:
        self.matches = matches
        self.features = features
        self.client = client
        self.settings = settings

    async def help(self, interaction: discord.Interaction[Any], root: app_commands.Group) -> None:
        """The command card of `root` (`/dm`), read from the tree as it is loaded (groups joined by other cogs
        included)."""
        moves = help_moves_line(self.settings.message_content, self._me())
        await respond(interaction, markdown(command_card(root, moves)))

    def _me(self) -> str:
        """The bot's name as players mention it."""
        return self.client.user.display_name if self.client.user is not None else "dmhost"

    async def rules(self, interaction: discord.Interaction[Any], game: str) -> None:
        """The short "how to write moves" card in an embed, and the full rule card as `<game>-rules.md`."""
        key = game.strip().lower()
        if key not in registry.GAME_MODULES:
            raise HostError(Refusal("unknown_game", data={"game": game, "known": ", ".join(registry.GAME_MODULES)}))
        text = rule_card(key)
        if text is None:
            raise HostError(Refusal("no_rule_card", data={"title": title(key)}))
        card = moves_card(key) or text
        if not self.settings.message_content:  # plain messages are not read: a mention or `/move`
            how = how_to_move(False, self._me(), move_example(key) or "A1")
            card = card.replace(MOVES_BY_MESSAGE, how) if MOVES_BY_MESSAGE in card else f"{card}\n{how}"
        if (said := rule_keywords_line(key)) is not None:
            card = f"{card}\n{said}"
        if len(card) > MAX_EMBED:
            card = card[: MAX_EMBED - 40] + "\n… (the full card is attached)"
        embed = discord.Embed(title=f"Rules: {title(key)}", description=card)
        embed.set_footer(text=f"The full rule card is attached: {key}-rules.md")
        file = discord.File(io.BytesIO(text.encode()), filename=f"{key}-rules.md")
        await respond(interaction, embed=embed, file=file)

    async def board(self, interaction: discord.Interaction[Any], match: int | None) -> None:
        """The board picture with whose turn it is (only for you); the text board for a game without one."""
        live = self.matches.readable(interaction, match)
        content, files = overview_of(self.features).board_reply(live)
        await respond(interaction, markdown(content), files=files)

    async def status(self, interaction: discord.Interaction[Any], match: int | None) -> None:
        """Game, players, move number, whose turn, both clocks with the deadline, and the room."""
        live = self.matches.readable(interaction, match)
        await respond(interaction, markdown(overview_of(self.features).status_reply(live)))
