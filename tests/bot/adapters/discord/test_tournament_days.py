"""A tournament of a round a day on a simulated Discord over simulated days (issue 48, points 5-6): the players
are pinged before a round's games start (1 h and 10 min before: the 24 h ping would come with the pairings
themselves), a later round's games wait for both players when there is no no-show rule (no clock runs for
someone away), a no-show is told once, and the results in the channel name the cup, round and board."""

from __future__ import annotations

import simcord

from bot.tournaments.rounds import Game
from tests.bot.adapters.discord.conftest import World, bot_messages, bot_text
from tests.bot.adapters.discord.tournaments import (
    CLOCK,
    check_in,
    open_matches,
    resign_losers,
    sign_up,
    signup_card,
    tournament_service,
)

HOUR, DAY = 3600, 86400


def soon_pings(w: World) -> list[str]:
    """The pings before a round in the channel."""
    return [m.content for m in bot_messages(w, w.lobby) if m.content.startswith("**Daily Cup**: round ")]


async def test_a_round_a_day_pings_before_it_starts_and_waits_for_both_players(world: World) -> None:
    w = world
    erin = w.guild.add_member(w.env.create_user("erin"))
    field = [w.alice, w.bob, w.dave, erin]
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        field,
        name="Daily Cup",
        game="boxes",
        format="swiss",
        rounds=2,
        options="rows=2 cols=2",
        clock=CLOCK,
        start="in 1h",
        checkin=15,
        round_every=1440,
    )
    card = signup_card(w).content  # type: ignore[attr-defined]
    assert "A round a day" in card and "1440" not in card
    await w.env.advance_time(46 * 60)
    for player in field:
        await player.click(signup_card(w), label="I'm here")  # type: ignore[arg-type]
    await w.env.advance_time(14 * 60 + 2)  # the start: round 1's games open at once (everyone checked in)
    assert len(await open_matches(w, tid)) == 2
    await resign_losers(w, tid, field)  # round 2 is paired now, for a day after the start
    service = tournament_service(w)
    t = await service.get(tid)
    assert t.round == 2
    assert not soon_pings(w)  # the 24 h ping would come with the pairings: left out
    await w.env.advance_time(DAY - 58 * 60)  # just under an hour before round 2
    (hour_before,) = soon_pings(w)
    assert hour_before.startswith("**Daily Cup**: round 2 starts <t:")
    assert all(f"<@{p.id}>" in hour_before for p in field)
    assert "Click **I'm here**" in hour_before
    await w.env.advance_time(50 * 60)  # ten minutes before
    assert len(soon_pings(w)) == 2
    await w.env.advance_time(11 * 60)  # round 2's time: its games wait for both players
    assert await open_matches(w, tid) == []
    games = [g for g in await service.games(tid) if g.round == 2 and isinstance(g.pairing, Game)]
    entries = {e.id: e for e in await service.entries(tid)}
    first = games[0]
    assert isinstance(first.pairing, Game)
    white = next(p for p in field if str(p.id) == entries[first.pairing.white].player_id)
    black = next(p for p in field if str(p.id) == entries[first.pairing.black].player_id)
    (room,) = [th for th in w.lobby.threads if th.id == first.room_id]
    card_in_room = next(m for m in bot_messages(w, room) if "Click **I'm here**" in m.content)
    assert "loses this game by no-show" not in card_in_room.content  # no no-show rule: nobody loses for being late
    await white.click(card_in_room, label="I'm here")
    await w.env.advance_time(5 * HOUR)  # black is away all morning: no clock runs, nothing is lost
    assert first.id not in {g.id for g in await service.games(tid) if g.match_id}
    await black.send(room, "here")
    await w.env.settle()
    (opened,) = [g for g in await service.games(tid) if g.id == first.id]
    assert opened.match_id and opened.match_id in w.bot.service.live


async def test_a_no_show_is_told_once_and_results_name_the_cup_and_round(world: World) -> None:
    w = world
    extra = [w.guild.add_member(w.env.create_user(f"gladiator{i}")) for i in range(2)]
    field: list[simcord.MemberActor] = [w.alice, w.bob, *extra]
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        field,
        name="Spring Cup",
        game="boxes",
        format="swiss",
        rounds=1,
        options="rows=2 cols=2",
        clock=CLOCK,
        no_show=1,
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    await check_in(w, tid, field, absent=extra[0])
    told = [m.content for m in bot_messages(w, w.lobby) if "no-show" in m.content]
    assert len(told) == 1, told  # once, in one wording
    assert told[0].startswith("**Spring Cup**, round 1 board ")
    await resign_losers(w, tid, field)
    posted = [m.content for m in bot_messages(w, w.lobby) if "wins by resignation" in m.content]
    assert len(posted) == 1 and posted[0].startswith("**Spring Cup**, round 1 board "), posted
    assert "wins Spring Cup!" in bot_text(w, w.lobby)


async def _missed_game_cup(w: World) -> tuple[int, list[simcord.MemberActor]]:
    """Four players, two rounds, `missed:withdraw` (lichess's rule); round 1 played with gladiator0 absent."""
    extra = [w.guild.add_member(w.env.create_user(f"gladiator{i}")) for i in range(2)]
    field: list[simcord.MemberActor] = [w.alice, w.bob, *extra]
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        field,
        name="Lichess Cup",
        game="boxes",
        format="swiss",
        rounds=2,
        options="rows=2 cols=2",
        clock=CLOCK,
        no_show=1,
        missed="withdraw",
    )
    assert "withdrawn unless they confirm" in signup_card(w).content  # type: ignore[attr-defined]
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    await check_in(w, tid, field, absent=extra[0])
    (told,) = [m.content for m in bot_messages(w, w.lobby) if "no-show" in m.content]
    assert told.endswith(
        f"gladiator0 is withdrawn before the next round unless they confirm they play on: "
        f"`/dm tournament stay tournament:{tid}`."
    )
    return tid, field


async def test_a_missed_game_withdraws_the_player_who_does_not_confirm(world: World) -> None:
    w = world
    tid, field = await _missed_game_cup(w)
    await resign_losers(w, tid, field)  # round 1 over: round 2 is paired without gladiator0
    assert "gladiator0 is withdrawn: they missed their round 1 game and did not confirm they play on." in bot_text(
        w, w.lobby
    )
    assert "forfeited" not in bot_text(w, w.lobby)
    rounds = await tournament_service(w).rounds(tid)
    assert len(rounds) == 2 and sum(isinstance(p, Game) for p in rounds[1]) == 1  # a game and a bye


async def test_a_missed_game_and_a_confirmation_play_on(world: World) -> None:
    w = world
    tid, field = await _missed_game_cup(w)
    absent = field[2]
    stays = await absent.slash(w.lobby, "dm tournament stay", tournament=tid)
    assert stays.response is not None and stays.response.content == (
        "Noted: you play on in Lichess Cup and are paired in the next round."
    )
    assert "gladiator0 plays on after missing their round 1 game." in bot_text(w, w.lobby)
    again = await w.bob.slash(w.lobby, "dm tournament stay", tournament=tid)
    assert (
        again.response is not None
        and again.response.content == "You have missed no game of Lichess Cup: you play on anyway."
    )
    await resign_losers(w, tid, field)
    rounds = await tournament_service(w).rounds(tid)
    assert len(rounds) == 2 and sum(isinstance(p, Game) for p in rounds[1]) == 2  # everyone paired again
