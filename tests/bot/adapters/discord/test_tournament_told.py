"""Issue 37 on a simulated Discord: a tournament told right. Withdrawals (mid-game and before check-in) said as
withdrawals in the channel, the rooms and the standings; the sign-up card closed at the start and a stale
Leave asking first; pairings that ping and link each room; public standings after every round and at the end;
a playing host refused; an elimination's rounds named."""

from __future__ import annotations

from typing import Any

import discord
import simcord

from bot.adapters.discord.tournament._card import card_text, signup_view
from bot.tournaments.rounds import Game
from tests.bot.adapters.discord.conftest import World, answer, bot_messages, bot_text
from tests.bot.adapters.discord.tournaments import CLOCK, resign_losers, sign_up, signup_card, tournament_service


def _pings(w: World, channel: simcord.ChannelHandle, member: simcord.MemberActor, words: str) -> list[discord.Message]:
    """The bot's messages here that notify `member` and contain `words`."""
    stored = w.env.backend.messages.get(channel.id, {})
    return [
        m
        for m in bot_messages(w, channel)
        if words in m.content and member.id in (getattr(stored.get(m.id), "ping_user_ids", None) or ())
    ]


def _names_in(p: object, entries: dict[int, Any]) -> tuple[str, str]:
    assert isinstance(p, Game)
    return entries[p.white].name, entries[p.black].name


def _room_of(w: World, room_id: int | None) -> simcord.ChannelHandle:
    (room,) = [th for th in w.lobby.threads if th.id == room_id]
    return room


async def test_a_swiss_told_right_withdrawal_mid_game_stale_card_pings_and_public_standings(world: World) -> None:
    w = world
    erin = w.guild.add_member(w.env.create_user("erin"))
    field = [w.alice, w.bob, w.dave, erin]
    tid = await sign_up(
        w, w.guild, w.lobby, w.carol, field, name="Told", game="boxes", format="swiss", rounds=2,
        options="rows=2 cols=2", clock=CLOCK, start="in 3 days",
    )  # fmt: skip
    assert "Starts by itself" in signup_card(w).content  # type: ignore[attr-defined]
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    await w.env.settle()
    card = signup_card(w)
    assert card.components == [], "the card loses Join and Leave at the start"  # type: ignore[attr-defined]
    assert "Starts by itself" not in card.content and "Sign-up is closed" in card.content  # type: ignore[attr-defined]

    service = tournament_service(w)
    games = [g for g in await service.games(tid) if g.round == 1 and isinstance(g.pairing, Game)]
    (pairings,) = [m for m in bot_messages(w, w.lobby) if "Round 1" in m.content]
    for g in games:
        assert f"<#{g.room_id}>" in pairings.content, "each board links its game's room"
    for player in field:
        assert f"<@{player.id}>" in pairings.content
        assert _pings(w, w.lobby, player, "Round 1"), f"{player.name} is pinged by the pairings"

    # a card left over from before (its buttons still on it): Leave asks first, naming the live game
    lobby = w.bot.get_channel(w.lobby.id)
    assert isinstance(lobby, discord.TextChannel)
    t = await service.get(tid)
    await lobby.send(card_text(t, await service.entries(tid)), view=signup_view(tid))
    stale = bot_messages(w, w.lobby)[-1]
    entries = {e.id: e for e in await service.entries(tid)}
    (dave_game,) = [g for g in games if "dave" in _names_in(g.pairing, entries)]
    p = dave_game.pairing
    assert isinstance(p, Game)
    opponent = entries[p.white if entries[p.black].name == "dave" else p.black].name
    asked = answer(await w.dave.click(stale, label="Leave"))
    assert asked.ephemeral and f"forfeits your live game against {opponent}" in asked.content
    assert f"board {dave_game.board}" in asked.content
    assert dave_game.match_id in w.bot.service.live, "nothing is forfeited by the first click"
    gone = answer(await w.dave.click(asked, label="Withdraw"))
    assert "You have left Told" in gone.content
    await w.env.settle()

    text = bot_text(w, w.lobby)
    assert "dave has withdrawn; their open games are forfeited." in text
    assert f"Board {dave_game.board}: {opponent} wins by forfeit (dave withdrew)." in text
    room = _room_of(w, dave_game.room_id)
    room_text = bot_text(w, room)
    assert f"{opponent} wins: dave withdrew from the tournament" in room_text, "the board says it was a withdrawal"
    assert "host's decision" not in room_text and "host's decision" not in text
    winner = next(a for a in field if a.name == opponent)
    assert _pings(w, room, winner, "dave has withdrawn from Told"), "the opponent is told in the room"

    table = answer(await w.bob.slash(w.lobby, "dm tournament standings", tournament=tid))
    assert "dave (withdrew)" in table.content

    await resign_losers(w, tid, field)
    lobby_messages = bot_messages(w, w.lobby)
    (after_one,) = [m for m in lobby_messages if "standings after round 1" in m.content]
    assert after_one.attachments and after_one.attachments[0].filename == "standings.png"
    assert "dave (withdrew)" in after_one.content
    (round_two,) = [m for m in lobby_messages if "Round 2" in m.content]
    assert after_one.id < round_two.id, "the table comes before the next pairings"
    await resign_losers(w, tid, field)
    (final,) = [m for m in bot_messages(w, w.lobby) if "final standings" in m.content]
    assert final.attachments and final.attachments[0].filename == "standings.png"
    assert "wins Told!" in bot_text(w, w.lobby)


async def test_a_withdrawal_before_check_in_is_told_in_the_room_and_the_opponents_here_answered(world: World) -> None:
    w = world
    field = [w.alice, w.bob, w.dave, w.guild.add_member(w.env.create_user("erin"))]
    tid = await sign_up(
        w, w.guild, w.lobby, w.carol, field, name="Waiting", game="boxes", format="swiss", rounds=1,
        options="rows=2 cols=2", clock=CLOCK, no_show=5,
    )  # fmt: skip
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    await w.env.settle()
    service = tournament_service(w)
    entries = {e.id: e for e in await service.entries(tid)}
    (g,) = [
        g
        for g in await service.games(tid)
        if isinstance(g.pairing, Game) and "dave" in (entries[g.pairing.white].name, entries[g.pairing.black].name)
    ]
    p = g.pairing
    assert isinstance(p, Game) and g.match_id is None
    other = entries[p.white if entries[p.black].name == "dave" else p.black]
    opponent = next(a for a in field if str(a.user.id) == other.player_id)
    room = _room_of(w, g.room_id)
    card = next(m for m in bot_messages(w, room) if "Click **I'm here**" in m.content)
    assert "I'm here" in str(card.components)

    await w.dave.slash(w.lobby, "dm tournament withdraw", tournament=tid)
    await w.env.settle()
    assert "dave has withdrawn from Waiting" in bot_text(w, room) and "No check-in is needed" in bot_text(w, room)
    assert _pings(w, room, opponent, "wins this game by forfeit")
    card = next(m for m in bot_messages(w, room) if "Click **I'm here**" in m.content)
    assert card.components == [], "the pending check-in card is closed"
    await opponent.send(room, "here")
    await w.env.settle()
    assert "already decided" in bot_messages(w, room)[-1].content, "the opponent's `here` gets an answer"


async def test_a_host_who_plays_cannot_decide_their_board_and_a_decision_names_its_host(world: World) -> None:
    w = world
    field = [w.alice, w.bob, w.carol, w.dave]
    tid = await sign_up(
        w, w.guild, w.lobby, w.carol, field, name="Trust", game="boxes", format="swiss", rounds=1,
        options="rows=2 cols=2", clock=CLOCK,
    )  # fmt: skip
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    await w.env.settle()
    service = tournament_service(w)
    entries = {e.id: e for e in await service.entries(tid)}
    games = [g for g in await service.games(tid) if isinstance(g.pairing, Game)]

    def plays(g: object, name: str) -> bool:
        p = g.pairing  # type: ignore[attr-defined]
        return name in (entries[p.white].name, entries[p.black].name)

    (own,) = [g for g in games if plays(g, "carol")]
    (other,) = [g for g in games if not plays(g, "carol")]
    refused = answer(
        await w.carol.slash(w.lobby, "dm tournament result", tournament=tid, board=own.board, result="1-0")
    )
    assert refused.ephemeral and "You play in this match, so you cannot decide it" in refused.content
    assert own.match_id in w.bot.service.live
    done = answer(await w.carol.slash(w.lobby, "dm tournament result", tournament=tid, board=other.board, result="1-0"))
    assert "decided by carol" in done.content
    await w.env.settle()
    assert "wins by carol's decision (host)" in bot_text(w, _room_of(w, other.room_id))


async def test_an_elimination_names_its_semi_finals_and_final(world: World) -> None:
    w = world
    field = [w.alice, w.bob, w.dave, w.guild.add_member(w.env.create_user("erin"))]
    tid = await sign_up(
        w, w.guild, w.lobby, w.carol, field, name="Cup", game="boxes", format="elimination",
        options="rows=2 cols=2", clock=CLOCK,
    )  # fmt: skip
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    await w.env.settle()
    assert "Semi-final" in bot_text(w, w.lobby)
    picture = answer(await w.alice.slash(w.lobby, "dm tournament bracket", tournament=tid))
    assert picture.attachments and picture.attachments[0].filename == "bracket.png"
    assert picture.content.splitlines()[1].startswith("Semi-final: ")
    assert picture.content.splitlines()[2] == "Final: TBD vs TBD", "the path ahead, before round 2"
    await _tables_posted_by_a_host(w, tid)
    await resign_losers(w, tid, field)
    assert any(m.content.startswith("**Cup**\nFinal") for m in bot_messages(w, w.lobby))
    assert "Round 2" not in bot_text(w, w.lobby)
    await resign_losers(w, tid, field)
    assert "wins Cup!" in bot_text(w, w.lobby)
    assert any("final standings" in m.content for m in bot_messages(w, w.lobby))


async def _tables_posted_by_a_host(w: World, tid: int) -> None:
    """Issue 37: a host shows any table to the server, with `public:` or the button under the private answer;
    a member may not post, and gets no button."""
    refused = answer(await w.alice.slash(w.lobby, "dm tournament pairings", tournament=tid, public=True))
    assert refused.ephemeral and not [m for m in bot_messages(w, w.lobby) if m.content.startswith("**Cup** — ")]
    assert "Post in the channel" not in str(
        answer(await w.alice.slash(w.lobby, "dm tournament standings", tournament=tid)).components
    )
    posted = answer(await w.carol.slash(w.lobby, "dm tournament bracket", tournament=tid, public=True))
    assert not posted.ephemeral
    (bracket,) = [m for m in w.lobby.history(viewer=w.dave) if m.attachments and "Final: TBD vs TBD" in m.content]
    assert bracket.attachments[0].filename == "bracket.png"
    posted = answer(await w.carol.slash(w.lobby, "dm tournament pairings", tournament=tid, public=True))
    assert not posted.ephemeral and any(m.content.startswith("**Cup** — Semi-final") for m in w.lobby.history())
    private = answer(await w.carol.slash(w.lobby, "dm tournament standings", tournament=tid))
    assert private.ephemeral and "Post in the channel" in str(private.components)
    await w.carol.click(private, label="Post in the channel")
    await w.env.settle()
    (table,) = [m for m in w.lobby.history(viewer=w.dave) if m.content.startswith("**Cup** — round 1")]
    assert table.attachments and table.attachments[0].filename == "standings.png"
