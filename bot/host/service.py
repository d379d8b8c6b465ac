"""The match service: runs matches of any registered game, keeps clocks, stores everything.

No Discord and no sentences here. Adapters hand in a room's message (`post`: room, player, text), or
`(match, player, text)` (`submit`), or an action, and listen to `HostEvent`s; refusals come back as `Refusal`
values. `bot.wording` words both. The subscriber API (`subscribe`) is described in `bot.host.events`.
Each match has one `asyncio.Lock`: texts are processed in arrival order, and only the first legal
move of a turn counts. House rules (`bot.host.rules`) answer hooks with effects; `bot.host.effects` applies them
in one place: the match changes, the log is committed, then the room hears about it, then timers re-arm.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Collection
from typing import Any

from bot.host.actions import HostActions
from bot.host.core import Committer, Hosting, loop_now
from bot.host.deadlines import DeadlineJobs
from bot.host.events import (
    Grave,
    HostError,
    HostEvent,
    Ignored,
    Outcome,
    PlayerRef,
    Posted,
    Refusal,
    SubmitResult,
)
from bot.host.idle import Hosted
from bot.host.idle_matches import IdleMatches
from bot.host.lifecycle import Startup
from bot.host.match import Live, keyword
from bot.host.notices import Outbox
from bot.host.openings import Openings
from bot.host.rules import Provisional
from bot.host.subscribers import Outlet
from bot.host.texts import TextWalk
from bot.host.timers import Timers
from bot.store.matches import MatchStore, StoredMatch

__all__ = [
    "Grave",
    "HostError",
    "HostEvent",
    "Ignored",
    "Live",
    "MatchService",
    "Outcome",
    "PlayerRef",
    "Posted",
    "Refusal",
    "SubmitResult",
    "keyword",
]


class MatchService:
    """Hosts matches; one instance per process (or per shard). A façade: each public action is one call into a
    collaborator, every one of them an object given what it needs here — the shared state (`hosting`,
    `bot.host.core.Hosting`), the commit path (`commits`, `Committer`), the timers (`timers`,
    `bot.host.timers`), idle correspondence matches and their deadline jobs (`idle`, `bot.host.idle_matches`),
    start-up and closing (`startup`, `bot.host.lifecycle`), the walk of a posted text (`walk`,
    `bot.host.texts`), opening matches (`openings`, `bot.host.openings`), the other actions (`actions`,
    `bot.host.actions`) and the notices owed (`outbox`, `bot.host.notices`)."""

    def __init__(
        self,
        store: MatchStore,
        *,
        instance: str | None = None,
        heartbeat_seconds: float = 1.0,
        owns_guild: Callable[[int | None], bool] | None = None,
        wall: Callable[[], dt.datetime] | None = None,
    ) -> None:
        # The two edges back: a look-up of an idle match builds it (`Hosted` → `IdleMatches.build`), and every
        # commit re-arms the timers that commit (`Committer` → `Timers.rearm`); both are bound late, here.
        self.hosting = hosting = Hosting(
            store,
            wake=lambda match_id: self.idle.build(match_id),
            instance=instance,
            heartbeat_seconds=heartbeat_seconds,
            owns_guild=owns_guild,
            wall=wall,
        )
        self.commits = Committer(hosting, rearm=lambda live: self.timers.rearm(live))
        self.timers = Timers(hosting, self.commits)
        self.idle = IdleMatches(hosting, self.commits, self.timers)
        self.startup = Startup(hosting, self.commits, self.timers, self.idle)
        self.walk = TextWalk(hosting, self.commits, self.timers)
        self.openings = Openings(hosting, self.commits, self.timers)
        self.actions = HostActions(hosting, self.commits, self.walk, self.idle)
        self.outbox = Outbox(hosting)
        # The actions with long signatures are their collaborator's own bound methods: one signature to keep.
        self.post = self.walk.post
        """A message posted in a room, as a room that can ask first hands it in (`TextWalk.post`)."""
        self.create_match = self.openings.create_match
        """Create and start a match (`Openings.create_match`)."""
        self.record_forfeit = self.openings.record_forfeit
        """Store a match that was never played as won by seat `winner` (`Openings.record_forfeit`)."""

    # -- the shared state (`Hosting`) ------------------------------------------------
    @property
    def store(self) -> MatchStore:
        """The matches' store."""
        return self.hosting.store

    @property
    def wall(self) -> Callable[[], dt.datetime]:
        """The wall clock (aware UTC) that players' message times are read against."""
        return self.hosting.wall

    @property
    def instance(self) -> str:
        """This process (its heartbeat's name, its jobs' claims)."""
        return self.hosting.instance

    @property
    def heartbeat_seconds(self) -> float:
        """How often this process writes its heartbeat."""
        return self.hosting.heartbeat_seconds

    @property
    def live(self) -> Hosted:
        """The matches hosted here (idle correspondence matches built on look-up)."""
        return self.hosting.live

    @property
    def deadlines(self) -> DeadlineJobs:
        """Correspondence deadlines as durable jobs (`bot.host.deadlines`)."""
        return self.hosting.deadlines

    @property
    def caught_up(self) -> asyncio.Event:
        """Cleared by an adapter that first reads what was posted while no host ran (`rule_overdue` sets it)."""
        return self.hosting.caught_up

    @property
    def ended_here(self) -> dict[tuple[int, str], tuple[int, Any]]:
        """(room, player id) → the match that ended there last for that player, and its ruleset."""
        return self.hosting.ended_here

    @property
    def owns_guild(self) -> Callable[[int | None], bool]:
        """Whether this process hosts a guild's matches (its shard's lease)."""
        return self.hosting.owns_guild

    @owns_guild.setter
    def owns_guild(self, owns: Callable[[int | None], bool]) -> None:
        self.hosting.owns_guild = owns

    @property
    def outlet(self) -> Outlet:
        """Where every committed event goes (the composition root's bus sets itself here)."""
        return self.hosting.outlet

    @outlet.setter
    def outlet(self, outlet: Outlet) -> None:
        self.hosting.outlet = outlet

    @property
    def tells(self) -> bool:
        """Whether a face tells this service's notices: then they are owed durably (`bot.host.notices`)."""
        return self.hosting.tells

    @tells.setter
    def tells(self, tells: bool) -> None:
        self.hosting.tells = tells

    @property
    def room_privacy(self) -> Callable[[int | None], bool | None] | None:
        """Set by a face that knows its rooms: whether a room is private (stored with each match it opens)."""
        return self.hosting.room_privacy

    @room_privacy.setter
    def room_privacy(self, private: Callable[[int | None], bool | None] | None) -> None:
        self.hosting.room_privacy = private

    @staticmethod
    def now() -> float:
        """The event loop's clock."""
        return loop_now()

    async def drained(self) -> None:
        """Wait until every after-commit listener of the bus has handled the events committed so far."""
        await self.hosting.outlet.drained()

    # -- life (`Startup`, `Hosting.abandon`) ---------------------------------------------
    async def start(self, select: Callable[[StoredMatch], bool] | None = None) -> list[int]:
        """Migrate, then resume every unfinished match this process owns (`Startup.start`)."""
        return await self.startup.start(select)

    async def resume_owned(self, select: Callable[[StoredMatch], bool] | None = None) -> list[int]:
        """Resume every unfinished match this process owns and does not host yet (`Startup.resume_owned`)."""
        return await self.startup.resume_owned(select)

    async def rule_overdue(self) -> None:
        """Rule now on every deadline that passed while no host ran (`Startup.rule_overdue`)."""
        await self.startup.rule_overdue()

    def abandon(self) -> list[int]:
        """Let go, without writing, every match this process no longer owns; the ids let go."""
        return self.hosting.abandon()

    async def close(self) -> None:
        """Stop timers and the heartbeat; matches stay resumable in the database (`Startup.close`)."""
        await self.startup.close()

    # -- look-ups (`IdleMatches`, `TextWalk`) --------------------------------------------------
    async def wake(self, match_id: int) -> Live | None:
        """A hosted match, built if it was idle, its `resumed` event published (None: not hosted here)."""
        return await self.idle.wake(match_id)

    def rooms(self) -> list[int]:
        """The rooms (channel ids) of every match hosted here, without building any."""
        return self.idle.rooms()

    def player_matches(self, player_id: str, guild_id: int | None) -> list[Live]:
        """A player's matches hosted here in a guild (all guilds for None), oldest first."""
        return self.idle.player_matches(player_id, guild_id)

    def live_in_guild_awake(self, guild_id: int | None) -> list[Live]:
        """The built matches of a guild (all for None), oldest first."""
        return self.idle.live_in_guild_awake(guild_id)

    def live_in_guild(self, guild_id: int | None) -> list[Live]:
        """The matches hosted right now in a guild (all for None), oldest first (idle ones built)."""
        return self.idle.live_in_guild(guild_id)

    def matches_in_channel(self, channel_id: int) -> list[Live]:
        """Live matches whose room is this channel (idle ones built)."""
        return self.walk.matches_in_channel(channel_id)

    def match_for(self, channel_id: int, player_id: str, guild_id: int | None) -> Live | None:
        """The player's match in this room; with several, the one where it is their turn."""
        return self.walk.match_for(channel_id, player_id, guild_id)

    # -- players' texts (`TextWalk`) --------------------------------------------------------

    async def submit(
        self,
        match_id: int,
        player_id: str,
        text: str,
        *,
        message_id: str | None = None,
        posted_at: dt.datetime | None = None,
    ) -> SubmitResult:
        """Take a player's text: a move, a host keyword, or chat (`TextWalk.submit`)."""
        return await self.walk.submit(match_id, player_id, text, message_id=message_id, posted_at=posted_at)

    def grave(self, match_id: int, player_id: str, text: str) -> Grave | None:
        """Whether a player's text, taken now, would end their match or their play (`TextWalk.grave`)."""
        return self.walk.grave(match_id, player_id, text)

    # -- opening matches (`Openings`) -----------------------------------------------------

    # -- reading -------------------------------------------------------------------
    def get(self, match_id: int) -> Live:
        """A live match, or HostError."""
        return self.actions.get(match_id)

    def pending_move(self, match_id: int) -> Provisional | None:
        """The provisional move of a running match, if it has one."""
        live = self.live.get(match_id)
        return None if live is None else live.provisional()

    def played_by_machine(self, match_id: int, player_id: str) -> None:
        """The practice opponent plays this player's seat here (`tournament play`: bots in every seat): its
        moves are final at once, as the practice opponent's always are (no take-back window to wait out). Held
        in memory only; a process that plays the match again says so again."""
        live = self.live.get(match_id)
        seat = None if live is None else live.seat_of(player_id)
        if live is not None and seat is not None:
            live.machines.add(seat)

    async def history(self, player_id: str, limit: int = 20) -> list[StoredMatch]:
        """A player's recent matches, newest first."""
        return await self.store.history(player_id, limit=limit)

    def over_for(self, channel_id: int, player_id: str, text: str) -> int | None:
        """The match that ended last in this room for this player, when `text` reads as a move of its game
        (asked once `post` found no match of theirs here: a move posted after the end is answered, not taken
        for chat); else None. Remembered in memory for the latest ends (`core.ENDED_KEPT`)."""
        found = self.ended_here.get((channel_id, player_id))
        if found is None:
            return None
        match_id, ruleset = found
        try:
            return match_id if ruleset.looks_like_move(text.strip()) else None
        except Exception:
            return None

    async def latest_in_room(self, channel_id: int, player_id: str | None = None) -> int | None:
        """The newest match of a room, running or over (`player_id`: the newest that player played there)."""
        return await self.store.latest_in_channel(channel_id, player_id)

    async def record(self, match_id: int) -> StoredMatch | None:
        """A match as stored, with its whole log (running or over), or None when there is no such match."""
        return await self.store.load(match_id, with_events=True)

    async def channel_of(self, match_id: int) -> int | None:
        """The room of a match, running or over."""
        live = self.live.get(match_id)
        if live is not None:
            return live.channel_id
        stored = await self.store.load(match_id)
        return None if stored is None else stored.channel_id

    # -- players' and hosts' actions (`HostActions`) ------------------------------------------
    async def act(self, match_id: int, player_id: str, action: str) -> SubmitResult:
        """A player's action from a button or a command: `resign`, or one a rule of the match declares
        (`ready`, `here`, `offer_draw`, ...; `NAME:via` says how, e.g. `NAME:button`). Refused: HostError."""
        return await self.actions.act(match_id, player_id, action)

    async def resign(self, match_id: int, player_id: str) -> SubmitResult:
        """A player gives up."""
        return await self.actions.resign(match_id, player_id)

    async def withdraw(self, match_id: int, player_id: str, *, message_id: str | None = None, via: str) -> SubmitResult:
        """Withdraw a provisional move through the rule that declares it (`HostActions.withdraw`)."""
        return await self.actions.withdraw(match_id, player_id, message_id=message_id, via=via)

    async def withdraw_message(
        self, channel_id: int, message_id: str, author_id: str | None, via: str
    ) -> SubmitResult | None:
        """Withdraw the provisional move posted in message `message_id` of this room, if there is one."""
        return await self.actions.withdraw_message(channel_id, message_id, author_id, via)

    async def pause(self, match_id: int, by: str) -> None:
        """Stop both clocks and every timer of the match (the rules' too)."""
        await self.actions.pause(match_id, by)

    async def resume(self, match_id: int, by: str) -> None:
        """Continue after a pause: the clocks and timers go on from where they stood."""
        await self.actions.resume(match_id, by)

    async def abort(self, match_id: int, by: str) -> None:
        """End without a result."""
        await self.actions.abort(match_id, by)

    async def adjust_time(self, match_id: int, seat: int, seconds: float, by: str) -> None:
        """Add (positive) or remove (negative) time for a seat."""
        await self.actions.adjust_time(match_id, seat, seconds, by)

    async def award(self, match_id: int, seat: int | None, by: str) -> None:
        """The host declares the result (seat None: a draw)."""
        await self.actions.award(match_id, seat, by)

    async def set_away(self, player_id: str, guild_id: int | None, until: dt.datetime | None) -> list[int]:
        """Correspondence vacation until `until` (None: over now) in the player's matches here in the guild
        (`HostActions.set_away`); the ids of the matches changed."""
        return await self.actions.set_away(player_id, guild_id, until)

    # -- notices owed (`Outbox`) ---------------------------------------------------------
    async def untold(self, match_ids: Collection[int]) -> list[HostEvent]:
        """The notices of these matches committed but not told yet, as events to tell again (`late`)."""
        return await self.outbox.untold(match_ids)

    async def untold_here(self) -> list[HostEvent]:
        """The notices of the guilds this process hosts committed but not told yet, oldest first."""
        return await self.outbox.untold_here()

    async def told(self, *events: HostEvent) -> None:
        """A face told these events: their notices are owed no more."""
        await self.outbox.told(*events)
