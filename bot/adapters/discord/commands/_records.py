"""`/dm log` and `/dm history`: a match's full record (files within the upload limit) and a player's recent
matches."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.adapters.discord._pages import page_file, page_link
from bot.adapters.discord._shared import NO_PINGS, require_host, respond, same_guild
from bot.adapters.discord.commands._common import MAX_EMBED, Matches, overview_of, title
from bot.adapters.discord.render import markdown
from bot.host.events import EventKind, Refusal
from bot.host.service import HostError, MatchService
from bot.records.analysis_store import load_analysis
from bot.records.matchlog import build_log, format_log
from bot.records.review import build_review
from bot.types import MatchStatus
from bot.wording import state_words
from bot.wording.commands import no_history

if TYPE_CHECKING:
    from bot.adapters.discord._parts import Parts
    from bot.records.analysis_worker import AnalysisWorker
    from bot.settings import Settings

MAX_FILES = 10
HISTORY_SCAN = 100
HISTORY_SHOWN = 15
DEFAULT_UPLOAD_LIMIT = 10 * 1024 * 1024


def upload_limit(interaction: discord.Interaction[Any]) -> int:
    """The most a message may carry here: the guild's upload limit (and the interaction's, if smaller)."""
    limits = [interaction.guild.filesize_limit] if interaction.guild is not None else [DEFAULT_UPLOAD_LIMIT]
    own = getattr(interaction, "attachment_size_limit", None)
    if isinstance(own, int) and own > 0:
        limits.append(own)
    return min(limits)


class Records:
    """`/dm log` and `/dm history`: what is kept of the matches, for whoever may read it."""

    def __init__(
        self,
        service: MatchService,
        matches: Matches,
        features: Parts,
        client: discord.Client,
        settings: Settings,
        analysis: Callable[[], AnalysisWorker | None],
    ) -> None:
        self.service = service
        self.matches = matches
        self.features = features
        self.client = client
        self.settings = settings
        self.analysis = analysis
        """Asked for the background analysis at each `/dm log` (None before the bot starts it, or when it is off)."""

    def _practice_ids(self) -> set[str]:
        """The player ids of the practice opponent (this bot, and the terminal room's)."""
        ids = {"local:dmhost-bot"}
        if self.client.user is not None:
            ids.add(str(self.client.user.id))
        return ids

    async def _match_of_room(self, interaction: discord.Interaction[Any]) -> int:
        """The match `/dm log` is about without an id: the one running in this channel, else the latest played
        here (the user's own first): a finished match's room keeps its record at hand."""
        try:
            return self.matches.find(interaction, None).id
        except HostError as exc:
            if exc.refusal.code != "no_match_here" or interaction.channel_id is None:
                raise
        user = str(interaction.user.id)
        found = await self.service.latest_in_room(interaction.channel_id, user)
        found = found if found is not None else await self.service.latest_in_room(interaction.channel_id)
        if found is None:
            raise HostError(Refusal("no_match_played_here"))
        return found

    async def log(self, interaction: discord.Interaction[Any], match: int | None) -> None:
        """Summary embed, the whole log as text and JSON, the animated replay, the SGF record (Dots) and
        the solver's verdicts (Boxes, Pathing), within the upload limit (frames or files dropped, with a note)."""
        match_id = match if match is not None else await self._match_of_room(interaction)
        interaction.extras["match_id"] = match_id
        stored = await self.service.record(match_id)
        if stored is None or not same_guild(stored.guild_id, interaction.guild_id):
            raise HostError(Refusal("no_match_in_server", data={"match": match_id}))
        overview = overview_of(self.features)
        if not overview.may_read_record(interaction, stored):  # players, hosts and whoever can read the room
            require_host(interaction)
        data = build_log(stored)
        outcome = str(data["result"]["words"])
        embed = discord.Embed(title=f"Match {stored.id}: {title(stored.game)}")
        players = data["players"]
        embed.add_field(
            name="Players", value=markdown(f"{players['1']['name']} vs {players['2']['name']}"), inline=False
        )
        embed.add_field(name="Status", value=state_words(stored.status))
        embed.add_field(name="Result", value=outcome)
        embed.add_field(name="Moves", value=str(len(data["moves"])))
        embed.add_field(name="Illegal attempts", value=str(sum(e["kind"] == EventKind.ILLEGAL for e in data["events"])))
        logs = [
            (f"match-{stored.id}.txt", format_log(data).encode()),
            (f"match-{stored.id}.json", json.dumps(data, indent=2).encode()),
        ]
        await interaction.response.defer(ephemeral=True, thinking=True)
        limit = upload_limit(interaction)
        link = page_link(self.settings.web_url, stored.id)
        analysis = await load_analysis(self.service.store, stored.id)
        worker = self.analysis()
        if analysis is None and stored.status == MatchStatus.FINISHED and worker is not None:
            worker.enqueue(stored.id)  # not stored yet (a restart in between): the background worker does it
        if link is not None:
            embed.add_field(name="Review page", value=link, inline=False)
        elif (page := await page_file(stored, limit - sum(len(b) for _, b in logs), analysis)) is not None:
            logs.append(page)
        review = await asyncio.to_thread(build_review, stored, limit, sum(len(b) for _, b in logs), analysis=analysis)
        if review.notes:
            embed.add_field(name="Left out", value="\n".join(review.notes)[:1000], inline=False)
        files = [discord.File(io.BytesIO(b), filename=name) for name, b in [*logs, *review.files]][:MAX_FILES]
        await respond(interaction, embed=embed, files=files)

    async def history(
        self, interaction: discord.Interaction[Any], player: discord.Member | None, practice: bool
    ) -> None:
        """The last matches in this server, newest first (practice matches only when asked for)."""
        who = player or interaction.user
        found = await self.service.history(str(who.id), limit=HISTORY_SCAN)
        practice_ids = self._practice_ids()
        matches = [
            m
            for m in found
            if (interaction.guild_id is None or m.guild_id in (None, interaction.guild_id))
            and (practice or not any(pid in practice_ids for pid, _ in m.players.values()))
        ][:HISTORY_SHOWN]
        if not matches:
            await respond(interaction, markdown(no_history(who.display_name)))
            return
        lines = overview_of(self.features).history_lines(matches, self.service, self.settings.web_url)
        embed = discord.Embed(
            title=f"Matches of {who.display_name}", description=markdown("\n".join(lines))[:MAX_EMBED]
        )
        await respond(interaction, embed=embed, allowed_mentions=NO_PINGS)
