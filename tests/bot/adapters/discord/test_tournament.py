"""Whole tournaments on a simulated Discord: sign-up card and buttons, rounds in their own rooms, results
from the rooms, a withdrawal, standings and bracket pictures, the winner announced with the prize."""

from __future__ import annotations

import simcord

from bot.tournaments.rounds import Game
from tests.bot.adapters.discord.conftest import World, answer, bot_messages, bot_text


def _card(w: World) -> object:
    (card,) = [m for m in bot_messages(w, w.lobby) if m.content.startswith("**Tournament ")]
    return card


async def _open_matches(w: World, tid: int) -> list[tuple[int, Game]]:
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    t = await service.get(tid)
    return [
        (g.match_id, g.pairing)
        for g in await service.games(tid)
        if g.round == t.round and isinstance(g.pairing, Game) and g.pairing.result is None and g.match_id
    ]


def _actor(w: World, player_id: str) -> simcord.MemberActor:
    for actor in (w.alice, w.bob, w.carol, w.dave):
        if str(actor.user.id) == player_id:
            return actor
    raise AssertionError(player_id)


async def _resign_losers(w: World, tid: int, white_wins: bool = True) -> None:
    """In each open match's room, the losing side types `resign`."""
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    entries = {e.id: e for e in await service.entries(tid)}
    for match_id, game in await _open_matches(w, tid):
        live = w.bot.service.live[match_id]
        (room,) = [t for t in w.lobby.threads if t.id == live.channel_id]
        loser = entries[game.black if white_wins else game.white]
        await _actor(w, loser.player_id).send(room, "resign")
    await w.env.settle()


async def test_a_swiss_on_discord_from_sign_up_to_the_prize(world: World) -> None:
    w = world
    created = answer(
        await w.carol.slash(
            w.lobby,
            "dm tournament create",
            name="Zero's Gambit",
            game="boxes",
            format="swiss",
            rounds=2,
            options="rows=2 cols=2",
            prize="a crown",
        )
    )
    assert created.content.startswith("**Tournament 1 · Zero's Gambit**") and "Prize: a crown" in created.content
    refused = answer(await w.alice.slash(w.lobby, "dm tournament create", name="Mine", game="boxes", format="swiss"))
    assert refused.ephemeral and "Only a host" in refused.content
    for player in (w.alice, w.bob, w.dave):
        await player.click(_card(w), label="Join")
    twice = answer(await w.dave.click(_card(w), label="Join"))
    assert twice.ephemeral and "already joined" in twice.content
    assert "Players (3): alice, bob, dave" in _card(w).content  # type: ignore[attr-defined]
    await w.dave.click(_card(w), label="Leave")
    await w.dave.click(_card(w), label="Join")
    await w.carol.click(_card(w), label="Join")
    started = answer(await w.carol.slash(w.lobby, "dm tournament start", tournament=1))
    assert "has started" in started.content
    assert "Round 1" in bot_text(w, w.lobby)
    opened = await _open_matches(w, 1)
    assert len(opened) == 2 and all(w.bot.service.live[m].channel_id != w.lobby.id for m, _ in opened)
    again = answer(await w.carol.slash(w.lobby, "dm tournament start", tournament=1))
    assert again.ephemeral and "already started" in again.content
    await _resign_losers(w, 1)
    assert "Round 2" in bot_text(w, w.lobby), "round 1 ended in the rooms, so round 2 was paired"
    gone = answer(await w.dave.slash(w.lobby, "dm tournament withdraw", tournament=1))
    assert "You have left" in gone.content
    await w.env.settle()
    await _resign_losers(w, 1)
    assert "wins Zero's Gambit! Prize: a crown." in bot_text(w, w.lobby)
    table = answer(await w.bob.slash(w.lobby, "dm tournament standings", tournament=1))
    assert "Zero's Gambit" in table.content and table.attachments and table.attachments[0].filename == "standings.png"
    late = answer(await w.alice.slash(w.lobby, "dm tournament withdraw", tournament=1))
    assert late.ephemeral and "is over" in late.content


async def test_an_elimination_with_a_drawn_game_replayed_and_a_bracket(world: World) -> None:
    w = world
    await w.carol.slash(
        w.lobby,
        "dm tournament create",
        name="DM Colosseum",
        game="boxes",
        format="elimination",
        options="rows=2 cols=2",
        prize="glory",
    )
    for player in (w.alice, w.bob, w.dave):
        await player.click(_card(w), label="Join")
    await w.carol.slash(w.lobby, "dm tournament start", tournament=1)
    (semi,) = await _open_matches(w, 1)
    r = answer(await w.carol.slash(w.lobby, "dm tournament result", tournament=1, board=2, result="1/2-1/2"))
    assert "Board 2" in r.content
    await w.env.settle()
    assert "replayed with colours swapped" in bot_text(w, w.lobby)
    (rematch,) = await _open_matches(w, 1)
    assert (rematch[1].white, rematch[1].black) == (semi[1].black, semi[1].white)
    await _resign_losers(w, 1)
    await _resign_losers(w, 1)
    assert "wins DM Colosseum! Prize: glory." in bot_text(w, w.lobby)
    picture = answer(await w.alice.slash(w.lobby, "dm tournament bracket", tournament=1))
    assert picture.attachments and picture.attachments[0].filename == "bracket.png"
