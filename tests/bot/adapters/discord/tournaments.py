"""What the tests of tournaments on a simulated Discord share: the sign-up, the card, the check-in, the rounds'
open matches and their results, and the tournament service behind the feature."""

from __future__ import annotations

import simcord

from bot.tournaments.rounds import Game
from bot.tournaments.service import StoredGame, TournamentService
from tests.bot.adapters.discord.conftest import World, answer, bot_messages, resign

CLOCK = "move=600 reserve=600"
"""Clocks longer than the one-minute no-show wait, so open matches are not lost on time while a no-show is ruled."""


def tournament_service(w: World) -> TournamentService:
    """The tournament service the Discord feature uses."""
    feature = w.bot.get_cog("TournamentFeature")
    assert feature is not None
    return feature.tournaments  # type: ignore[attr-defined,no-any-return]


async def sign_up(
    w: World,
    guild: simcord.GuildHandle,
    lobby: simcord.ChannelHandle,
    host: simcord.MemberActor,
    players: list[simcord.MemberActor],
    **create: object,
) -> int:
    """`host` creates a tournament (`create`: the command's options) in `lobby`, and `players` click Join on its
    card; its id."""
    reply = answer(await host.slash(lobby, "dm tournament create", **create))
    tid = int(reply.content.split()[1])
    card = next(m for m in bot_messages(w, lobby) if m.content.startswith(f"**Tournament {tid} "))
    for player in players:
        await player.click(card, label="Join")
    return tid


def signup_card(w: World) -> object:
    """The sign-up card in the lobby (the one tournament there)."""
    (card,) = [m for m in bot_messages(w, w.lobby) if m.content.startswith("**Tournament ")]
    return card


async def check_in(
    w: World,
    tid: int,
    field: list[simcord.MemberActor],
    *,
    lobby: simcord.ChannelHandle | None = None,
    absent: simcord.MemberActor | None = None,
    wait: bool = True,
) -> None:
    """In every room of the round still waiting, White clicks I'm here and Black types `here`; `absent` does
    neither, and a minute later (unless not `wait`) loses by no-show."""
    service = tournament_service(w)
    t = await service.get(tid)
    entries = {e.id: e for e in await service.entries(tid)}
    actors = [*field, w.alice, w.bob, w.carol, w.dave]
    for g in await service.games(tid):
        p = g.pairing
        if g.round != t.round or not isinstance(p, Game) or p.result is not None or g.match_id is not None:
            continue
        (room,) = [th for th in (lobby or w.lobby).threads if th.id == g.room_id]
        card = next(m for m in bot_messages(w, room) if "Click **I'm here**" in m.content)
        for seat, entry in enumerate((p.white, p.black)):
            who = next(a for a in actors if str(a.user.id) == entries[entry].player_id)
            if who is absent:
                continue
            if seat == 0:
                await who.click(card, label="I'm here")
            else:
                await who.send(room, "here")
    await w.env.settle()
    if absent is not None and wait:
        await w.env.advance_time(61)
        await w.env.settle()


async def open_matches(w: World, tid: int) -> list[tuple[int, Game]]:
    service = tournament_service(w)
    t = await service.get(tid)
    return [
        (g.match_id, g.pairing)
        for g in await service.games(tid)
        if g.round == t.round and isinstance(g.pairing, Game) and g.pairing.result is None and g.match_id
    ]


async def resign_losers(
    w: World,
    tid: int,
    field: list[simcord.MemberActor] | None = None,
    *,
    lobby: simcord.ChannelHandle | None = None,
    white_wins: bool = True,
) -> None:
    """In each open match's room, the losing side types `resign`."""
    service = tournament_service(w)
    entries = {e.id: e for e in await service.entries(tid)}
    actors = [*(field or []), w.alice, w.bob, w.carol, w.dave]
    for match_id, game in await open_matches(w, tid):
        live = w.bot.service.live[match_id]
        (room,) = [t for t in (lobby or w.lobby).threads if t.id == live.channel_id]
        loser = entries[game.black if white_wins else game.white]
        (who,) = [a for a in actors if str(a.user.id) == loser.player_id][:1]
        await resign(who, room, text=True)
    await w.env.settle()


async def no_shows(w: World, tid: int) -> list[StoredGame]:
    return [
        g
        for g in await tournament_service(w).games(tid)
        if isinstance(g.pairing, Game) and g.pairing.forfeit and g.match_id
    ]
