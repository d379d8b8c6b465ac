"""Confirm / Cancel before a resignation or a move that gives up the mover's play (Dots' `stop`), in Discord.

The host says which texts are grave (`MatchService.grave`) and never waits for anyone; the prompts are the host's
confirmations (`bot.host.confirm`: durable jobs, so a prompt outlives a restart). This face asks the player, shows
the prompt with two buttons whose custom ids name the prompt (`dmconfirm:<match>:<player>:<nonce>:<yes|no>`, so a
press is recognised after a restart), hands presses over and words what became of them. Only that player can
press; a press on a prompt no longer open changes nothing and is told so in one line. The prompt lapses after
`LAPSE_SECONDS` (its job's run edits it once); the clocks keep running and nobody is held meanwhile. A private
prompt (`/dm resign`) is edited through its command's interaction, known only to the process that asked: after a
restart its lapse is told when it is pressed. The terminal room asks nothing (its keywords act at once).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot import wording
from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import NO_PINGS, board_linked, respond
from bot.adapters.discord.errors import report_error
from bot.adapters.discord.render import markdown
from bot.host.confirm import LAPSE_S, Answer, Confirmations, Prompt
from bot.host.service import Grave
from bot.wording import reason_text

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

LAPSE_SECONDS = LAPSE_S
"""How long a Confirm / Cancel prompt stays open."""

Edit = Callable[..., Awaitable[Any]]


def confirm_id(match_id: int, player_id: str, nonce: int, confirm: bool) -> str:
    """`dmconfirm:<match>:<player>:<nonce>:<yes|no>`: one answer to one prompt."""
    return f"dmconfirm:{match_id}:{player_id}:{nonce}:{'yes' if confirm else 'no'}"


class ConfirmButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"dmconfirm:(?P<match>\d+):(?P<player>\d+):(?P<nonce>\d+):(?P<answer>yes|no)",
):
    """Confirm or Cancel on one prompt; rebuilt from its custom id after a restart."""

    def __init__(self, match_id: int, player_id: str, nonce: int, confirm: bool) -> None:
        label, style = (
            (wording.CONFIRM_LABEL, discord.ButtonStyle.danger)
            if confirm
            else (wording.CANCEL_LABEL, discord.ButtonStyle.secondary)
        )
        custom_id = confirm_id(match_id, player_id, nonce, confirm)
        super().__init__(discord.ui.Button[Any](label=label, style=style, custom_id=custom_id))
        self.match_id = match_id
        self.player_id = player_id
        self.nonce = nonce
        self.confirm = confirm

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> ConfirmButton:
        """Rebuild the button from a press."""
        return cls(int(match["match"]), match["player"], int(match["nonce"]), match["answer"] == "yes")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Hand the press to the prompts' face."""
        interaction.extras["match_id"] = self.match_id
        prompts = parts(interaction.client).prompts
        try:
            if prompts is None:
                raise LookupError("the game rooms are not loaded")
            await prompts.press(interaction, self.match_id, self.player_id, self.nonce, confirm=self.confirm)
        except Exception as exc:
            await report_error(interaction, exc)


def confirm_view(prompt: Prompt) -> discord.ui.View:
    """A persistent view with the prompt's Confirm and Cancel."""
    view = discord.ui.View(timeout=None)
    for confirm in (True, False):
        view.add_item(ConfirmButton(prompt.grave.match_id, prompt.player_id, prompt.nonce, confirm))
    return view


def _words(prompt: Prompt) -> tuple[str, str, str]:
    return prompt.grave.action, prompt.name, prompt.grave.text


class ConfirmPrompts(commands.Cog, name="Prompts"):
    """Asks players to confirm grave texts, answers their presses and shows lapses (the service is the host's)."""

    def __init__(self, bot: DMHost, confirmations: Confirmations) -> None:
        parts(bot).prompts = self
        self.bot = bot
        self.confirmations = confirmations  # built by the composition root (`bot.compose.build_app`)
        confirmations.lapsed = self._lapsed
        self._private: dict[str, Edit] = {}
        """Private prompts asked in this process: how to edit each (its command's interaction)."""
        self._started = False

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Run the prompts' lapses from now on (those due while the bot was away are shown now)."""
        if not self._started:
            self._started = True
            self.confirmations.start()

    async def cog_unload(self) -> None:
        """Stop running lapses here (the prompts stay stored)."""
        if parts(self.bot).prompts is self:
            parts(self.bot).prompts = None
        self.confirmations.stop()

    async def before_close(self) -> None:
        """Called by the bot before the service closes."""
        self.confirmations.stop()

    # -- asking ---------------------------------------------------------------------------------
    async def ask_in_room(self, message: discord.Message, grave: Grave) -> None:
        """Answer a player's grave message in the room with the prompt (their clock keeps running)."""
        guild_id = message.guild.id if message.guild is not None else None
        prompt = await self.confirmations.ask(
            grave, str(message.author.id), message.id, guild_id=guild_id, message_id=str(message.id),
            channel_id=message.channel.id,
        )  # fmt: skip
        question = wording.confirm_question(grave.action, prompt.name, grave.text, self.confirmations.lapse_s)
        content = board_linked(self.bot, grave.match_id, question)
        try:
            sent = await message.reply(
                content, view=confirm_view(prompt), allowed_mentions=NO_PINGS, mention_author=False
            )
        except discord.HTTPException:
            await self.confirmations.drop(prompt)
            log.warning("match %s: could not ask to confirm message %s", grave.match_id, message.id)
            return
        await self.confirmations.shown(prompt, sent.id)

    async def ask_privately(self, interaction: discord.Interaction[Any], grave: Grave) -> None:
        """Answer a command (`/dm resign`) with the prompt, seen only by the player who used it."""
        prompt = await self.confirmations.ask(
            grave, str(interaction.user.id), interaction.id, guild_id=interaction.guild_id
        )
        self._private[prompt.key] = interaction.edit_original_response
        content = wording.confirm_question(grave.action, prompt.name, grave.text, self.confirmations.lapse_s)
        await respond(interaction, markdown(content), view=confirm_view(prompt))

    # -- answers and lapses ---------------------------------------------------------------------
    async def press(
        self, interaction: discord.Interaction[Any], match_id: int, player_id: str, nonce: int, *, confirm: bool
    ) -> None:
        """A press on Confirm or Cancel: the prompt is answered once, by its player, while it is open."""
        answered = await self.confirmations.answer(
            match_id, player_id, nonce, str(interaction.user.id), confirm=confirm
        )
        prompt, kind = answered.prompt, answered.kind
        if prompt is not None and kind != Answer.NOT_YOURS:
            self._private.pop(prompt.key, None)
        if kind == Answer.NOT_YOURS and prompt is not None:
            await respond(interaction, markdown(wording.confirm_only(prompt.name)))
            return
        if kind in (Answer.LAPSED, Answer.CLOSED) or prompt is None:
            # a button no longer open (lapsed, answered, or left by a restart): it goes, one line says why
            line = (
                wording.confirm_lapsed(*_words(prompt), self.confirmations.lapse_s)
                if kind == Answer.LAPSED and prompt is not None
                else wording.confirm_closed()
            )
            await interaction.response.edit_message(view=None)
            await respond(interaction, markdown(line))
            return
        if kind == Answer.CANCELLED:
            text = wording.confirm_cancelled(*_words(prompt))
        elif kind == Answer.DONE:
            text = wording.confirm_done(*_words(prompt))
        elif kind == Answer.MOVED_ON or answered.result is None:
            text = wording.confirm_moved_on(prompt.grave.text)
        else:
            text = reason_text(answered.result) or wording.confirm_moved_on(prompt.grave.text)
        await interaction.response.edit_message(content=markdown(text), view=None)

    async def _lapsed(self, prompt: Prompt) -> None:
        """A prompt's job ran: the prompt says it lapsed, without its buttons (once: the job runs once)."""
        edit = self._private.pop(prompt.key, None)
        if edit is None and prompt.channel_id is not None and prompt.prompt_id is not None:
            channel = self.bot.get_channel(prompt.channel_id)
            partial = getattr(channel, "get_partial_message", None)
            edit = partial(prompt.prompt_id).edit if partial is not None else None
        if edit is None:
            return  # a private prompt asked before a restart: a press on it says it lapsed
        try:
            await edit(content=wording.confirm_lapsed(*_words(prompt), self.confirmations.lapse_s), view=None)
        except discord.HTTPException:
            log.warning("match %s: could not mark a confirmation as lapsed", prompt.grave.match_id)


async def ask_in_room(bot: DMHost, message: discord.Message, grave: Grave) -> None:
    """Answer a player's grave message in the room with the prompt (`ConfirmPrompts.ask_in_room`)."""
    prompts = parts(bot).prompts
    if prompts is None:
        raise LookupError("the confirmation prompts are not loaded")
    await prompts.ask_in_room(message, grave)


async def ask_privately(bot: DMHost, interaction: discord.Interaction[Any], grave: Grave) -> None:
    """Answer a command with the prompt, seen only by its player (`ConfirmPrompts.ask_privately`)."""
    prompts = parts(bot).prompts
    if prompts is None:
        raise LookupError("the confirmation prompts are not loaded")
    await prompts.ask_privately(interaction, grave)


__all__ = ["LAPSE_SECONDS", "ConfirmButton", "ConfirmPrompts", "ask_in_room", "ask_privately", "confirm_view"]
