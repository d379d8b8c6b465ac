"""The Discord features of one bot, typed: each feature puts itself here when it is built (and takes itself
out when it is unloaded), and the others reach it as `parts(bot).announcer` — never by looking a cog up by
its name, never by importing another feature's modules. A feature that is not loaded is None.

Each field is typed by what the other features may use of that feature (a `Protocol` here), not by the
feature's class: this module imports no feature, so no feature's imports, typing ones included, can
come back round to it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import discord

    from bot.adapters.practice import PracticeBot
    from bot.host.service import Grave, Live, MatchService
    from bot.schedule import Scheduler
    from bot.series import SeriesService
    from bot.store.matches import StoredMatch
    from bot.tournaments.service import TournamentService


class AnnouncerPart(Protocol):
    """The boards (`announce/`)."""

    @property
    def rooms(self) -> Mapping[int, Any]:
        """Each match's room: its board message, last position and drawing task."""

    board_notes: list[Callable[[int], str | None]]

    async def take_write(self, channel_id: int) -> None:
        """Wait for room within the channel's write limit."""

    def board_message_id(self, match_id: int) -> int | None:
        """The match's board message."""

    def linked(self, match_id: int, text: str) -> str:
        """`text` with a link to the match's board."""

    async def tell_untold(self) -> int:
        """Announce what this process's matches still owe (a reminder or result a dead process stored); how many."""


class CommandsPart(Protocol):
    """The `/dm` commands (`commands/`)."""

    def practice_bot(self) -> PracticeBot:
        """The practice opponent of this bot."""


class CorrespondencePart(Protocol):
    """Vacation and reminders (`correspondence/`)."""

    async def config(self, interaction: discord.Interaction[Any], vacation_days: int) -> None:
        """`/dm config vacation_days:`."""

    async def shown(self, guild_id: int) -> str:
        """The server's correspondence settings as `/dm config` shows them."""


class OverviewPart(Protocol):
    """Boards, status, histories and results (`overview/`)."""

    def board_reply(self, live: Live) -> tuple[str, list[discord.File]]:
        """`/dm board`'s body."""

    def status_reply(self, live: Live) -> str:
        """`/dm status`'s body."""

    def history_lines(
        self, matches: Sequence[StoredMatch], service: MatchService | None = None, web_url: str | None = None
    ) -> list[str]:
        """`/dm history`'s lines (with review links when the pages have a public address)."""

    def may_read_record(self, interaction: discord.Interaction[Any], stored: StoredMatch) -> bool:
        """Whether the user may read a match's record without being a host."""

    async def results_channel_for(self, guild_id: int | None, channel_id: int | None) -> discord.abc.Messageable | None:
        """Where a match's result is posted."""


class PromptsPart(Protocol):
    """Confirm / Cancel prompts (`room/`)."""

    async def ask_in_room(self, message: discord.Message, grave: Grave) -> None:
        """Ask in the room."""

    async def ask_privately(self, interaction: discord.Interaction[Any], grave: Grave) -> None:
        """Ask only the player who used a command."""

    async def press(
        self, interaction: discord.Interaction[Any], match_id: int, player_id: str, nonce: int, *, confirm: bool
    ) -> None:
        """A press on Confirm or Cancel."""


class SchedulePart(Protocol):
    """Scheduled matches (`schedule/`)."""

    async def config(
        self,
        interaction: discord.Interaction[Any],
        *,
        timezone: str | None,
        reminders: str | None,
        checkin: int | None,
        no_show: int | None,
    ) -> None:
        """`/dm config`'s scheduling settings."""

    @property
    def scheduler(self) -> Scheduler:
        """The scheduler of this bot."""


class SeriesPart(Protocol):
    """Series and rematches (`series/`)."""

    @property
    def series(self) -> SeriesService:
        """The series service of this bot."""

    async def rematch_click(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """A press on a rematch offer."""


class TournamentsPart(Protocol):
    """Tournaments (`tournament/`)."""

    @property
    def tournaments(self) -> TournamentService:
        """The tournament service of this bot."""

    @property
    def cards(self) -> dict[int, int]:
        """Each tournament's sign-up card message."""


@dataclass
class Parts:
    """The features loaded in this bot."""

    announcer: AnnouncerPart | None = None
    commands: CommandsPart | None = None
    correspondence: CorrespondencePart | None = None
    overview: OverviewPart | None = None
    prompts: PromptsPart | None = None
    schedule: SchedulePart | None = None
    series: SeriesPart | None = None
    tournaments: TournamentsPart | None = None


_NONE = Parts()
"""What a client that is not our bot has: nothing loaded."""


def parts(client: Any) -> Parts:
    """The features of the bot a client is (an interaction's `client`, a cog's `bot`)."""
    found = getattr(client, "parts", None)
    return found if isinstance(found, Parts) else _NONE
