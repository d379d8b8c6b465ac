"""`/dm tournament …`: the commands, each handing its request to the tournament service and answering briefly."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import discord
from discord import app_commands

from bot.adapters.discord._pages import page_link
from bot.adapters.discord._parts import parts
from bot.adapters.discord._shared import NO_PINGS, require_host, respond
from bot.adapters.discord._trust import refuse_own_match
from bot.adapters.discord.public import PUBLIC, answer_table
from bot.adapters.discord.render import Said, markdown
from bot.adapters.discord.tournament._card import card_text, feature_of, gone_from, own, service_of, signup_view
from bot.adapters.discord.tournament._told import marked_names, players_of_board, round_title, standings_message
from bot.host.service import HostError
from bot.schedule.when import WhenError, parse_when
from bot.tournaments.rounds import Format
from bot.wording import tournament_told as told
from bot.wording.overview import review_link
from bot.wording.review import page_reply
from bot.wording.tournaments import pairing_lines
from bot.wording.zone_note import zone_note

TournamentId = app_commands.Range[int, 1]
Minutes = app_commands.Range[int, 1, 60 * 24 * 7]


def _pairs(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in (text or "").split():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise HostError(f"`{item}` is not key=value")
        out[key.strip().lower()] = value.strip()
    return out


def read_start(text: str, tz: str | None) -> dt.datetime:
    """A start time as `/dm event schedule at:` reads it; a refusal with an example and the server's zone."""
    try:
        return parse_when(text, tz=tz, now=discord.utils.utcnow())
    except WhenError as exc:
        text = str(exc)
        raise HostError(text[:1].upper() + text[1:].rstrip(".") + ". " + zone_note(tz)) from None


async def _server_zone(interaction: discord.Interaction[Any]) -> str | None:
    """The server's time zone for reading times (set with `/dm config timezone:`), if the scheduler runs."""
    cog = parts(interaction.client).schedule
    scheduler = cog.scheduler if cog is not None else None
    if scheduler is None or interaction.guild_id is None:
        return None
    return str((await scheduler.settings(interaction.guild_id)).timezone)


class TournamentGroup(app_commands.Group):
    """`/dm tournament …`; each command hands its request to the tournament service and answers briefly."""

    def __init__(self, parent: app_commands.Group) -> None:
        super().__init__(name="tournament", description="Tournaments of Death Matches", parent=parent)

    @app_commands.command(name="create", description="Open a tournament for sign-up here (hosts only)")
    @app_commands.describe(
        name="what it is called",
        game="which game",
        format="how players are paired",
        rounds="Swiss only: how many rounds (default: log2 of the field)",
        options="game options as key=value pairs, e.g. `rows=2 cols=2`",
        clock="clock overrides in seconds, e.g. `move=90 reserve=600`",
        rules="house rules, e.g. `draw=on`",
        prize="what the winner gets",
        rated="whether results feed ratings",
        max_players="the most players who may join",
        signup_minutes="sign-up closes this many minutes from now",
        half_point_bye="a bye is worth ½ instead of 1",
        start="it starts by itself then, e.g. `in 2h`, `saturday 20:00` (the server's zone)",
        checkin="players check in during this many minutes before the start; whoever does not is out",
        no_show="each game: a player still absent this many minutes after its start loses by no-show",
        round_every="a round starts every this many minutes (or when the one before ends, if later)",
        seeding="seed order: sign-up order (default) or rating",
        missed="a player who misses a game (no-show): plays on (default), or is withdrawn unless they confirm",
    )
    @app_commands.choices(
        format=[app_commands.Choice(name=f.value, value=f.value) for f in Format],
        seeding=[
            app_commands.Choice(name="sign-up order", value="joined"),
            app_commands.Choice(name="rating", value="rating"),
        ],
        missed=[
            app_commands.Choice(name="plays on", value="play_on"),
            app_commands.Choice(name="withdrawn unless they confirm (lichess)", value="withdraw"),
        ],
    )
    @app_commands.guild_only()
    async def create(
        self,
        interaction: discord.Interaction[Any],
        name: app_commands.Range[str, 1, 100],
        game: str,
        format: str,
        rounds: app_commands.Range[int, 1, 50] | None = None,
        options: str | None = None,
        clock: str | None = None,
        rules: str | None = None,
        prize: app_commands.Range[str, 1, 200] | None = None,
        rated: bool = False,
        max_players: app_commands.Range[int, 2, 1024] | None = None,
        signup_minutes: app_commands.Range[int, 1, 60 * 24 * 30] | None = None,
        half_point_bye: bool = False,
        start: app_commands.Range[str, 1, 100] | None = None,
        checkin: Minutes | None = None,
        no_show: Minutes | None = None,
        round_every: Minutes | None = None,
        seeding: str = "joined",
        missed: str = "play_on",
    ) -> None:
        require_host(interaction)
        service = service_of(interaction)
        starts_at = read_start(start, await _server_zone(interaction)) if start else None
        closes = None
        if signup_minutes is not None:
            closes = discord.utils.utcnow() + dt.timedelta(minutes=signup_minutes)
        tid = await service.create(
            name,
            game,
            format,
            rounds=rounds,
            options=_pairs(options),
            clock=_pairs(clock),
            rules=_pairs(rules),
            rated=rated,
            prize=prize,
            bye_points=0.5 if half_point_bye else 1.0,
            max_players=max_players,
            signup_closes_at=closes,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            by=str(interaction.user.id),
            starts_at=starts_at,
            checkin_s=None if checkin is None else checkin * 60,
            no_show_s=None if no_show is None else no_show * 60,
            round_every_s=None if round_every is None else round_every * 60,
            seeding=seeding,
            missed=None if missed == "play_on" else missed,
        )
        t = await service.get(tid)
        sent = await interaction.response.send_message(
            card_text(t, []), view=signup_view(tid, t.checkin_s is not None), allowed_mentions=NO_PINGS
        )
        if isinstance(sent.resource, discord.Message):  # its id: edited as a channel message, not by the token
            feature_of(interaction).cards[tid] = sent.resource.id

    @app_commands.command(name="start", description="Close sign-up, pair round 1 and open its matches (hosts only)")
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        require_host(interaction)
        t = await own(interaction, tournament)
        service = service_of(interaction)
        guild = interaction.guild
        gone = [] if guild is None else gone_from(guild, [e for e in await service.entries(t.id) if not e.withdrawn])
        if gone:
            raise HostError(told.left_the_server([e.name for e in gone]))
        await interaction.response.defer(ephemeral=True, thinking=True)
        await service.start_tournament(t.id, by=str(interaction.user.id))
        await respond(interaction, markdown(told.has_started(t.name)))

    @app_commands.command(name="remove", description="Take a player out of a tournament (hosts only)")
    @app_commands.guild_only()
    async def remove(
        self, interaction: discord.Interaction[Any], tournament: TournamentId, player: discord.User
    ) -> None:
        require_host(interaction)
        t = await own(interaction, tournament)
        await service_of(interaction).leave(t.id, str(player.id), by=str(interaction.user.id))
        await respond(interaction, markdown(told.is_out(player.display_name, t.name)))

    @app_commands.command(name="standings", description="The table, as a picture and as text")
    @app_commands.describe(public=PUBLIC)
    @app_commands.guild_only()
    async def standings(
        self, interaction: discord.Interaction[Any], tournament: TournamentId, public: bool = False
    ) -> None:
        t = await own(interaction, tournament)
        text, picture = await standings_message(service_of(interaction), t, f"**{t.name}** — round {t.round}")
        page = page_link(getattr(getattr(interaction.client, "settings", None), "web_url", None), t.id, "tournament")
        if page is not None:  # every game of the table is on the tournament's page
            text = Said(f"{text}\n{review_link(page)}")
        await answer_table(interaction, text, public, file=picture)

    @app_commands.command(name="pairings", description="The pairings of a round (default: the current one)")
    @app_commands.describe(public=PUBLIC)
    @app_commands.guild_only()
    async def pairings(
        self,
        interaction: discord.Interaction[Any],
        tournament: TournamentId,
        round: app_commands.Range[int, 1] | None = None,
        public: bool = False,
    ) -> None:
        t = await own(interaction, tournament)
        service = service_of(interaction)
        number = round or t.round
        rounds = await service.rounds(t.id)
        if not 1 <= number <= len(rounds):
            raise HostError(told.paired_so_far(t.name, len(rounds)))
        lines = pairing_lines(number, rounds[number - 1], await marked_names(service, t.id))
        lines[0] = f"**{t.name}** — {round_title(t, number)}"
        await answer_table(interaction, "\n".join(lines), public)

    @app_commands.command(name="bracket", description="The elimination bracket as a picture")
    @app_commands.describe(public=PUBLIC)
    @app_commands.guild_only()
    async def bracket(
        self, interaction: discord.Interaction[Any], tournament: TournamentId, public: bool = False
    ) -> None:
        from bot.wording.tournament_pictures import bracket_lines, bracket_png

        t = await own(interaction, tournament)
        if t.format is not Format.ELIMINATION:
            raise HostError(told.no_bracket(t.name, t.format.value))
        service = service_of(interaction)
        rounds, names = await service.rounds(t.id), await marked_names(service, t.id)
        png = bracket_png(t.name, rounds, names, t.rounds or 1)
        text = "\n".join([f"**{t.name}**", *map(markdown, bracket_lines(rounds, names, t.rounds or 1))])
        await answer_table(interaction, text, public, file=discord.File(io.BytesIO(png), "bracket.png"))

    @app_commands.command(name="stay", description="You missed a game: confirm you play on (not withdrawn)")
    @app_commands.guild_only()
    async def stay(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        t = await own(interaction, tournament)
        await service_of(interaction).stay(t.id, str(interaction.user.id))
        await respond(interaction, markdown(told.staying(t.name)))

    @app_commands.command(name="page", description="The address of a tournament's review page")
    @app_commands.guild_only()
    async def page(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        t = await own(interaction, tournament)
        base = getattr(getattr(interaction.client, "settings", None), "web_url", None)
        await respond(
            interaction, markdown(page_reply(f"The review page of {t.name}", page_link(base, t.id, "tournament")))
        )

    @app_commands.command(name="withdraw", description="Leave a tournament (what remains is forfeited)")
    @app_commands.guild_only()
    async def withdraw(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        t = await own(interaction, tournament)
        await service_of(interaction).leave(t.id, str(interaction.user.id), by=str(interaction.user.id))
        await respond(interaction, markdown(told.you_left(t.name)))

    @app_commands.command(name="result", description="Adjudicate a running game or override a result (hosts only)")
    @app_commands.choices(result=[app_commands.Choice(name=r, value=r) for r in ("1-0", "0-1", "1/2-1/2")])
    @app_commands.guild_only()
    async def result(
        self,
        interaction: discord.Interaction[Any],
        tournament: TournamentId,
        board: app_commands.Range[int, 1],
        result: str,
        round: app_commands.Range[int, 1] | None = None,
    ) -> None:
        require_host(interaction)
        t = await own(interaction, tournament)
        service = service_of(interaction)
        refuse_own_match(interaction, await players_of_board(service, t, board, round))
        await service.adjudicate(t.id, board, result, str(interaction.user.id), round)
        await respond(interaction, markdown(told.board_decided(board, result, interaction.user.display_name)))

    @app_commands.command(name="pause", description="Pair no new round until resumed (hosts only)")
    @app_commands.guild_only()
    async def pause(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        require_host(interaction)
        t = await own(interaction, tournament)
        await service_of(interaction).pause(t.id, str(interaction.user.id))
        await respond(interaction, markdown(told.paused(t.name)))

    @app_commands.command(name="resume", description="Pair rounds again (hosts only)")
    @app_commands.guild_only()
    async def resume(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        require_host(interaction)
        t = await own(interaction, tournament)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await service_of(interaction).resume(t.id, str(interaction.user.id))
        await respond(interaction, markdown(told.goes_on(t.name)))

    @app_commands.command(name="cancel", description="End a tournament without a winner (hosts only)")
    @app_commands.guild_only()
    async def cancel(self, interaction: discord.Interaction[Any], tournament: TournamentId) -> None:
        require_host(interaction)
        t = await own(interaction, tournament)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await service_of(interaction).cancel(t.id, str(interaction.user.id))
        await respond(interaction, markdown(told.cancelled(t.name)))
