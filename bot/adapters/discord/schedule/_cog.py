"""`/dm schedule`, `/dm reschedule`, `/dm cancel`, `/dm upcoming`, `/dm results`, and everything a
scheduled DM says in Discord: the event card, reminders, the room opening for check-in, the rulings, the
result with its prize, and the server's Guild Scheduled Event.

The commands join the `/dm` group (`/dm schedule`, not a group of their own). The scheduler core
(`bot.schedule`) does the work; this cog turns its events into messages with `bot.wording.schedule`."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import datetime as dt
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import (
    FIRST_CHOICES,
    NO_PINGS,
    ROOM_CHOICES,
    is_host,
    parse_pairs,
    pinging,
    require_host,
    respond,
)
from bot.adapters.discord.public import PUBLIC, answer_table
from bot.adapters.discord.render import Said, markdown
from bot.adapters.discord.schedule._views import view
from bot.host.match import PlayerRef
from bot.host.service import HostError
from bot.ratings.service import ADVANTAGE_MODES
from bot.schedule import Schedule, ScheduleError, ScheduleEvent, Scheduler, WhenError, parse_when
from bot.schedule.status import DONE, ScheduleEventKind, ScheduleStatus
from bot.schedule.when import iso
from bot.text import EMPTY, Text, name, verbatim
from bot.wording import schedule as words
from bot.wording.zone_note import zone_note
from games import registry

if TYPE_CHECKING:
    from bot.adapters.discord.app import DMHost

log = logging.getLogger(__name__)

EVENT_HOURS = 3
"""How long the server's Events entry lasts when the match has not ended it sooner."""
EVENT_OVER = "over"
"""`_edit_event`'s status for a DM that is over: its Events entry is ended (or cancelled, if not begun)."""
PERIODS = {"week": 7, "month": 31, "year": 366}
MAX_LINES = 20


def stamp(at: dt.datetime) -> str:
    """`<t:…:F> (<t:…:R>)`: every reader sees the time in their own zone, and how far it is."""
    return f"{discord.utils.format_dt(at, 'F')} ({discord.utils.format_dt(at, 'R')})"


def mention(player: PlayerRef) -> Text:
    """A ping for a Discord player, the name for anyone else."""
    return verbatim(f"<@{player.id}>") if player.id.isdigit() else name(player.name)


def named(player: PlayerRef) -> str:
    """A player's display name (no ping)."""
    return discord.utils.escape_markdown(player.name)


def results_csv(rows: list[Schedule]) -> str:
    """The server's finished DMs for a host's own bookkeeping."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["date", "game", "player1", "player2", "winner", "reason", "prize", "schedule", "match"])
    for s in rows:
        winner = s.winner()
        writer.writerow(
            [
                iso(s.finished_at or s.at),
                s.game,
                s.players[0].name,
                s.players[1].name,
                winner.name if winner else "",
                s.result_reason or "",
                s.prize or "",
                s.id,
                s.match_id or "",
            ]
        )
    return out.getvalue()


class ScheduleCog(commands.Cog, name="ScheduleCog"):
    """Scheduled DMs on Discord."""

    def __init__(self, bot: DMHost, scheduler: Scheduler) -> None:
        parts(bot).schedule = self
        self.bot = bot
        self.scheduler = scheduler  # built (and subscribed) by the composition root (`bot.compose`)
        scheduler.starter, scheduler.advantage = self._start_match, self._rated_advantage
        self._prizes: dict[int, str] = {}
        """Match id → the prize of its DM (shown on the board)."""
        self._starting: dict[frozenset[str], str] = {}
        bot.app.bus.subscribe(self.on_schedule_event, topic=ScheduleEvent)
        self._started = False
        self._tail: asyncio.Task[None] | None = None

    # -- lifecycle -------------------------------------------------------------------
    async def _start_match(self, s: Schedule) -> int:
        """Start the match; its board shows the prize from its first drawing."""
        key = frozenset(p.id for p in s.players)
        if s.prize:
            self._starting[key] = s.prize
        try:
            match_id = await self.scheduler.create_match(s, s.host_id)
        finally:
            self._starting.pop(key, None)
        if s.prize:
            self._prizes[match_id] = s.prize
        return match_id

    async def _rated_advantage(self, s: Schedule) -> int | None:
        """`lower-rated` / `higher-rated`: the seat that chooses, from the ratings at the start."""
        ratings = getattr(self.bot, "ratings", None)
        if ratings is None or s.advantage not in ADVANTAGE_MODES:
            return None
        seat = await ratings.advantage_seat(s.guild_id, s.game, [p.id for p in s.players], s.advantage)
        return int(seat)

    def board_note(self, match_id: int) -> str | None:
        """The prize line under a scheduled DM's board header."""
        prize = self._prizes.get(match_id)
        if prize is None and self._starting:
            live = self.bot.service.live.get(match_id)
            if live is not None:
                prize = self._starting.get(frozenset(p.id for p in live.players.values()))
                if prize is not None:
                    self._prizes[match_id] = prize
        return None if prize is None else f"Prize: {discord.utils.escape_markdown(prize)}"

    async def config(
        self,
        interaction: discord.Interaction[Any],
        *,
        timezone: str | None,
        reminders: str | None,
        checkin: int | None,
        no_show: int | None,
    ) -> None:
        """`/dm config`'s scheduling settings (`schedule_config`), for the `/dm` commands."""
        from bot.adapters.discord.schedule._config import schedule_config

        await schedule_config(interaction, timezone=timezone, reminders=reminders, checkin=checkin, no_show=no_show)

    def attach_commands(self) -> None:
        """Put this cog's slash commands under `/dm` (they were added to the tree at the top level), and the
        prize line on the boards of scheduled DMs."""
        announcer = parts(self.bot).announcer
        if announcer is not None and self.board_note not in announcer.board_notes:
            announcer.board_notes.append(self.board_note)
        group = self.bot.tree.get_command("dm")
        if not isinstance(group, app_commands.Group):
            return  # without the /dm group the commands stay top-level
        # the scheduling commands are the `/dm event` group (README: the command tree)
        event = app_commands.Group(name="event", description="Scheduled Death Matches", parent=group)
        for command in self.__cog_app_commands__:
            self.bot.tree.remove_command(command.name)
            event.add_command(command)

    async def cog_unload(self) -> None:
        """Stop the timer task and take the commands off `/dm`."""
        if parts(self.bot).schedule is self:
            parts(self.bot).schedule = None
        await self.before_close()
        group = self.bot.tree.get_command("dm")
        if isinstance(group, app_commands.Group):
            group.remove_command("event")

    async def before_close(self) -> None:
        """The bot is closing: stop the timer task, then finish telling what is queued."""
        await self.scheduler.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.drain(), 10)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Once the database is migrated (the service started in setup_hook): start the timer task."""
        if not self._started:
            self._started = True
            await self.scheduler.start()
            for sched in await self.scheduler.listing(statuses=(ScheduleStatus.STARTED,)):
                if sched.prize and sched.match_id is not None:
                    self._prizes[sched.match_id] = sched.prize

    # -- helpers ---------------------------------------------------------------------
    async def _channel(self, channel_id: int | None) -> Any:
        if channel_id is None:
            return None
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            with contextlib.suppress(discord.HTTPException):
                channel = await self.bot.fetch_channel(channel_id)
        return channel

    async def _post(
        self, channel_id: int | None, text: Said | Text, *, ping: list[str] | None = None, **kwargs: Any
    ) -> Any:
        channel = await self._channel(channel_id)
        if channel is None:
            return None
        mentions = pinging(*ping) if ping else NO_PINGS
        try:
            return await channel.send(
                markdown(text)[:2000] if isinstance(text, Text) else text[:2000], allowed_mentions=mentions, **kwargs
            )
        except discord.HTTPException:
            log.warning("could not post in channel %s", channel_id)
            return None

    def _say(self, ev: ScheduleEvent) -> Text:
        return words.say(ev.kind, ev.schedule, ev.data, mention, stamp)

    @staticmethod
    def _players(s: Schedule) -> list[str]:
        return [p.id for p in s.players]

    # -- scheduler events → Discord --------------------------------------------------
    def on_schedule_event(self, ev: ScheduleEvent) -> None:
        """Queue the event: Discord is told in order, in the background, so a command's answer never waits
        for the messages and the server event it causes (an interaction must be answered within 3 s)."""
        previous = self._tail

        async def run() -> None:
            if previous is not None:
                with contextlib.suppress(Exception):
                    await previous
            try:
                await self.tell(ev)
            except Exception:
                log.exception("schedule %s: telling Discord about %s failed", ev.schedule.id, ev.kind)

        self._tail = asyncio.get_running_loop().create_task(run(), name=f"schedule-{ev.schedule.id}-{ev.kind}")

    async def drain(self) -> None:
        """Wait until every queued event has been told."""
        while self._tail is not None and not self._tail.done():
            await asyncio.wait([self._tail])

    async def tell(self, ev: ScheduleEvent) -> None:
        """Say it where it belongs, and keep the card and the server's event in step."""
        s = ev.schedule
        if s.guild_id is None:
            return
        room = s.room_id or s.channel_id
        players = self._players(s)
        host = [s.host_id] if s.host_id else []
        if ev.kind == ScheduleEventKind.SCHEDULED:
            card = await self._post(s.channel_id, words.card(s, mention, stamp))
            event_id = await self._create_event(s)
            await self.scheduler.set_discord(s.id, card_id=card.id if card else None, event_id=event_id)
        elif ev.kind in (ScheduleEventKind.RESCHEDULED, ScheduleEventKind.PROPOSED):
            buttons = {"view": view(s.id, "accept")} if ev.kind == ScheduleEventKind.PROPOSED else {}
            await self._post(s.channel_id, self._say(ev), ping=players, **buttons)
            if ev.kind == ScheduleEventKind.RESCHEDULED:
                await self._refresh_card(s)
                await self._edit_event(s, start=True)
        elif ev.kind == ScheduleEventKind.REMINDER:
            await self._post(room, self._say(ev), ping=players)
        elif ev.kind == ScheduleEventKind.CHECKIN_OPEN:
            room = await self._open_room(s)
            await self._post(room, self._say(ev), ping=players, view=view(s.id, "here"))
        elif ev.kind == ScheduleEventKind.CHECKED_IN:
            await self._post(room, self._say(ev))
        elif ev.kind == ScheduleEventKind.WAITING:
            missing = [s.player(seat).id for seat in ev.data["missing"]]
            await self._post(room, self._say(ev), ping=missing, view=view(s.id, "here", "extend", "startnow"))
        elif ev.kind == ScheduleEventKind.EXTENDED:
            await self._post(room, self._say(ev))
        elif ev.kind == ScheduleEventKind.STARTED:
            await self._post(room, self._say(ev), ping=players)
            await self._edit_event(s, status=discord.EventStatus.active)
        elif ev.kind in (ScheduleEventKind.FORFEITED, ScheduleEventKind.FINISHED, ScheduleEventKind.CANCELLED):
            text = self._say(ev)
            if ev.kind == ScheduleEventKind.FINISHED:
                await self._post(room, text, ping=players)
            else:  # a ruling or a cancel: both players are told and the host is pinged
                extra = " " + mention(PlayerRef(s.host_id, "host")) if s.host_id else EMPTY
                await self._post(room, text + extra, ping=players + host)
            if room != s.channel_id and ev.kind != ScheduleEventKind.CANCELLED:
                await self._post(s.channel_id, text)
            await self._refresh_card(s)
            await self._edit_event(s, status=EVENT_OVER)
        elif ev.kind == ScheduleEventKind.START_FAILED:
            await self._post(room, self._say(ev), ping=host)

    async def _refresh_card(self, s: Schedule) -> None:
        s = await self.scheduler.find(s.id) or s  # as it stands now (the card id may be newer than the event)
        if s.card_id is None or s.channel_id is None:
            return
        channel = await self._channel(s.channel_id)
        if channel is None:
            return
        card = words.card(s, mention, stamp)
        if s.public_status != ScheduleStatus.SCHEDULED:
            ending = words.result_line(s, mention) if s.public_status in DONE else EMPTY
            card += words.card_ending(s.public_status, ending)
        text = markdown(card)
        with contextlib.suppress(discord.HTTPException):
            await channel.get_partial_message(s.card_id).edit(content=text[:2000], allowed_mentions=NO_PINGS)

    async def _open_room(self, s: Schedule) -> int | None:
        """The room opens at check-in: a thread as `/dm start` would open it, or the channel itself."""
        guild = self.bot.get_guild(s.guild_id or 0)
        configured = self.bot.guild_settings.cached(s.guild_id)
        mode = s.room_mode or configured.room_mode or "public"
        if s.room_id is not None:
            return s.room_id
        if guild is None or mode == "channel":
            if s.channel_id is not None:
                await self.scheduler.set_room(s.id, s.channel_id)  # `here` typed in it checks in
            return s.channel_id
        parent = guild.get_channel(s.channel_id or 0)
        if mode == "public" and configured.room_channel_id is not None:
            parent = guild.get_channel(configured.room_channel_id) or parent
        if not isinstance(parent, discord.TextChannel):
            if s.channel_id is not None:
                await self.scheduler.set_room(s.id, s.channel_id)
            return s.channel_id
        kind = discord.ChannelType.public_thread if mode == "public" else discord.ChannelType.private_thread
        title = registry.TITLES.get(s.game, s.game)
        try:
            thread = await parent.create_thread(
                name=f"{title}: {s.players[0].name} vs {s.players[1].name}"[:100],
                type=kind,
                auto_archive_duration=10080,
                invitable=mode != "private",
            )
        except discord.HTTPException:
            log.warning("schedule %s: could not open a %s thread; using the channel", s.id, mode)
            if s.channel_id is not None:
                await self.scheduler.set_room(s.id, s.channel_id)
            return s.channel_id
        for member in dict.fromkeys([*self._players(s), *([s.host_id] if s.host_id else [])]):
            if member.isdigit():
                with contextlib.suppress(discord.HTTPException):
                    await thread.add_user(discord.Object(int(member)))
        await self.scheduler.set_room(s.id, thread.id)
        return thread.id

    # -- the server's Events tab -----------------------------------------------------
    async def _create_event(self, s: Schedule) -> int | None:
        guild = self.bot.get_guild(s.guild_id or 0)
        if guild is None or not guild.me.guild_permissions.manage_events:
            return None  # the bot may not: the card and reminders still say everything
        channel = guild.get_channel(s.channel_id or 0)
        where = f"#{channel.name}" if channel is not None else guild.name
        try:
            event = await guild.create_scheduled_event(
                name=f"DM #{s.id}: {s.players[0].name} vs {s.players[1].name}"[:100],
                start_time=s.at,
                end_time=s.at + dt.timedelta(hours=EVENT_HOURS),
                entity_type=discord.EntityType.external,
                privacy_level=discord.PrivacyLevel.guild_only,
                location=where[:100],
                description=self._event_text(s),
            )
        except discord.HTTPException:
            log.warning("schedule %s: could not create the server event", s.id)
            return None
        return event.id

    @staticmethod
    def _event_text(s: Schedule) -> str:
        return words.event_description(s.game, s.players[0].name, s.players[1].name, s.prize, s.note)[:1000]

    async def _edit_event(self, s: Schedule, *, start: bool = False, status: Any = None) -> None:
        s = await self.scheduler.find(s.id) or s
        guild = self.bot.get_guild(s.guild_id or 0)
        if guild is None or s.event_id is None:
            return
        try:
            event = await guild.fetch_scheduled_event(s.event_id)
            if start and event.status is discord.EventStatus.scheduled:
                await event.edit(start_time=s.at, end_time=s.at + dt.timedelta(hours=EVENT_HOURS))
            elif status is discord.EventStatus.active and event.status is discord.EventStatus.scheduled:
                await event.start()
            elif status == EVENT_OVER:
                if event.status is discord.EventStatus.active:
                    await event.end()
                elif event.status is discord.EventStatus.scheduled:
                    await event.cancel()
        except discord.HTTPException:
            log.warning("schedule %s: could not update the server event %s", s.id, s.event_id)

    # -- `here` typed in the room ----------------------------------------------------
    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """`here` in a DM's room checks the player in (the "I'm here" button's twin)."""
        if message.author.bot or message.guild is None or message.content.strip().lower().rstrip("!.") != "here":
            return
        waiting = await self.scheduler.waiting_in(message.channel.id)
        if not waiting:  # before check-in opens the room is not set: the DM's channel answers an early `here`
            mine = await self.scheduler.listing(
                guild_id=message.guild.id, statuses=(ScheduleStatus.SCHEDULED,), player_id=str(message.author.id)
            )
            waiting = [s for s in mine if s.room_id is None and s.channel_id == message.channel.id][:1]
        for s in waiting:
            if s.seat_of(str(message.author.id)) is None:
                continue
            try:
                await self.scheduler.check_in(s.id, str(message.author.id))
            except ScheduleError as exc:
                with contextlib.suppress(discord.HTTPException):
                    await message.reply(markdown(words.refusal(exc.code, exc.data, stamp)), allowed_mentions=NO_PINGS)
            return

    # -- commands ----------------------------------------------------------------------
    async def _at(self, interaction: discord.Interaction[Any], text: str) -> dt.datetime:
        settings = await self.scheduler.settings(interaction.guild_id)
        try:
            return parse_when(text, tz=settings.timezone, now=discord.utils.utcnow())
        except WhenError as exc:
            raise HostError(f"`at:` {str(exc).rstrip('.')}. {zone_note(str(settings.timezone))}") from None

    async def game_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """Implemented games whose id or title contains what was typed."""
        typed = current.strip().lower()
        return [
            app_commands.Choice(name=f"{registry.TITLES.get(g, g)} ({g})", value=g)
            for g in registry.ids()
            if typed in g or typed in registry.TITLES.get(g, g).lower()
        ][:25]

    @app_commands.command(name="schedule", description="Schedule a Death Match for a later time (hosts only)")
    @app_commands.describe(
        game="which game",
        player1="the first player",
        player2="the second player",
        at="when: `2026-12-05 20:00` (server zone), `<t:…>`, `in 2h`, `tomorrow 20:00`…",
        first="who moves first, or who gets the advantage of choosing",
        options="game options as key=value pairs, e.g. `rows=2 cols=2`",
        clock="clock overrides in seconds, e.g. `move=90 reserve=600`",
        room="where the room opens at check-in",
        rules="house rules, e.g. `draw=on clock=grace`",
        prize="what the winner gets, e.g. `15 garnets`",
        note="anything players should know",
    )
    @app_commands.autocomplete(game=game_autocomplete)
    @app_commands.choices(
        first=FIRST_CHOICES,
        room=ROOM_CHOICES,
    )
    @app_commands.guild_only()
    async def schedule(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        player1: discord.Member,
        player2: discord.Member,
        at: str,
        first: str = "1",
        options: str = "",
        clock: str = "",
        room: str | None = None,
        rules: str = "",
        prize: str | None = None,
        note: str | None = None,
    ) -> None:
        """Check everything (refusals are private), store the DM, answer with its time."""
        require_host(interaction)
        if player1.bot or player2.bot:
            raise HostError(words.BOTS_CANNOT_PLAY)
        when = await self._at(interaction, at)
        opts, clk, house = parse_pairs(options, "options"), parse_pairs(clock, "clock"), parse_pairs(rules, "rules")
        configured = self.bot.guild_settings.cached(interaction.guild_id)
        clk = {**configured.clock_for(game.strip().lower()), **clk}
        seat_first, advantage = (1, first[1]) if first in ("a1", "a2") else (2 if first == "2" else 1, None)
        if first in ADVANTAGE_MODES:
            seat_first, advantage = 1, first  # decided from the ratings when the DM starts
        try:
            s = await self.scheduler.add(
                game.strip().lower(),
                [PlayerRef(str(m.id), m.display_name) for m in (player1, player2)],
                when,
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                options=opts,
                clock=clk,
                rules=house,
                first=seat_first,
                advantage=advantage,
                room_mode=room,
                prize=prize,
                note=note,
                host_id=str(interaction.user.id),
            )
        except ScheduleError as exc:
            raise HostError(words.refusal(exc.code, exc.data, stamp)) from None
        await respond(interaction, words.scheduled(s, mention, stamp), ephemeral=False)

    @app_commands.command(name="reschedule", description="Move a scheduled DM (hosts), or propose a new time (players)")
    @app_commands.describe(dm="the scheduled DM's number", at="the new time")
    @app_commands.guild_only()
    async def reschedule(self, interaction: discord.Interaction[Any], dm: app_commands.Range[int, 1], at: str) -> None:
        """A host moves it at once; a player of the DM proposes, and the other player (or a host) accepts."""
        when = await self._at(interaction, at)
        user = str(interaction.user.id)
        try:
            s = await self.scheduler.get(dm, interaction.guild_id)
            if is_host(interaction):
                await self.scheduler.reschedule(s.id, when, user, guild_id=interaction.guild_id)
                text = words.moved(s.id, stamp(when))
            elif s.seat_of(user) is not None:
                await self.scheduler.propose(s.id, user, when, guild_id=interaction.guild_id)
                text = words.proposed(s.id, stamp(when))
            else:
                raise HostError(words.ONLY_HOST_OR_PLAYER)
        except ScheduleError as exc:
            raise HostError(words.refusal(exc.code, exc.data, stamp)) from None
        await respond(interaction, markdown(text))

    @app_commands.command(name="cancel", description="Call a scheduled DM off (hosts only)")
    @app_commands.describe(dm="the scheduled DM's number")
    @app_commands.guild_only()
    async def cancel(self, interaction: discord.Interaction[Any], dm: app_commands.Range[int, 1]) -> None:
        """Cancel before it begins; everyone concerned is told in the channel."""
        require_host(interaction)
        try:
            s = await self.scheduler.cancel(dm, str(interaction.user.id), guild_id=interaction.guild_id)
        except ScheduleError as exc:
            raise HostError(words.refusal(exc.code, exc.data, stamp)) from None
        await respond(interaction, markdown(words.cancelled(s.id)))

    @app_commands.command(name="upcoming", description="The scheduled DMs of this server, soonest first")
    @app_commands.describe(public=PUBLIC)
    @app_commands.guild_only()
    async def upcoming(self, interaction: discord.Interaction[Any], public: bool = False) -> None:
        """Each DM not begun yet: number, time, players, game, prize, who checked in (`public`: a host posts
        it in the channel)."""
        rows = await self.scheduler.upcoming(interaction.guild_id, limit=MAX_LINES)
        if not rows:
            await answer_table(interaction, words.nothing_scheduled(), public)
            return
        lines = [markdown(words.UPCOMING_TITLE), *(markdown(words.status_line(s, named, stamp)) for s in rows)]
        await answer_table(interaction, "\n".join(lines), public)

    @app_commands.command(name="results", description="Finished DMs of this server (winner, reason, prize)")
    @app_commands.describe(
        player="only this player's DMs",
        period="only the last week, month or year",
        export="attach a CSV file",
        public=PUBLIC,
    )
    @app_commands.choices(
        period=[app_commands.Choice(name=f"the last {p}", value=p) for p in PERIODS]
        + [app_commands.Choice(name="all time", value="all")]
    )
    @app_commands.guild_only()
    async def results(
        self,
        interaction: discord.Interaction[Any],
        player: discord.Member | None = None,
        period: str = "all",
        export: bool = False,
        public: bool = False,
    ) -> None:
        """Newest first; `export:` adds every matching DM as CSV; `public`: a host posts it in the channel."""
        since = discord.utils.utcnow() - dt.timedelta(days=PERIODS[period]) if period in PERIODS else None
        rows = await self.scheduler.results(
            interaction.guild_id, player_id=str(player.id) if player else None, since=since
        )
        if not rows:
            await answer_table(interaction, words.no_results(), public)
            return
        lines = [markdown(words.RESULTS_TITLE)]
        for s in rows[:MAX_LINES]:
            title = registry.TITLES.get(s.game, s.game)
            finished = discord.utils.format_dt(s.finished_at or s.at, "d")
            line = f"{finished} #{s.id} {title}: {named(s.players[0])} vs {named(s.players[1])} — "
            lines.append(markdown(line + words.result_line(s, named)))
        if len(rows) > MAX_LINES:
            lines.append(markdown(words.more_results(len(rows) - MAX_LINES)))
        file = None
        if export:
            file = discord.File(io.BytesIO(results_csv(rows).encode()), filename="dm-results.csv")
        await answer_table(interaction, "\n".join(lines), public, file=file)
