"""Whole tournaments on a simulated Discord: sign-up card and buttons, rounds in their own rooms, results
from the rooms, a withdrawal, standings and bracket pictures, the winner announced with the prize."""

from __future__ import annotations

import pytest
import simcord

from bot.tournaments.rounds import Game
from tests.bot.adapters.discord.conftest import World, answer, bot_text, confirm, now, resign
from tests.bot.adapters.discord.tournaments import (
    CLOCK,
    check_in,
    no_shows,
    open_matches,
    resign_losers,
    sign_up,
    signup_card,
    tournament_service,
)


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
        await player.click(signup_card(w), label="Join")
    twice = answer(await w.dave.click(signup_card(w), label="Join"))
    assert twice.ephemeral and "already joined" in twice.content
    assert "Players (3): alice, bob, dave" in signup_card(w).content  # type: ignore[attr-defined]
    await w.dave.click(signup_card(w), label="Leave")
    await w.dave.click(signup_card(w), label="Join")
    await w.carol.click(signup_card(w), label="Join")
    started = answer(await w.carol.slash(w.lobby, "dm tournament start", tournament=1))
    assert "has started" in started.content
    assert "Round 1" in bot_text(w, w.lobby)
    opened = await open_matches(w, 1)
    assert len(opened) == 2 and all(w.bot.service.live[m].channel_id != w.lobby.id for m, _ in opened)
    again = answer(await w.carol.slash(w.lobby, "dm tournament start", tournament=1))
    assert again.ephemeral and "already started" in again.content
    await resign_losers(w, 1)
    assert "Round 2" in bot_text(w, w.lobby), "round 1 ended in the rooms, so round 2 was paired"
    gone = answer(await w.dave.slash(w.lobby, "dm tournament withdraw", tournament=1))
    assert "You have left" in gone.content
    await w.env.settle()
    await resign_losers(w, 1)
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
        await player.click(signup_card(w), label="Join")
    await w.carol.slash(w.lobby, "dm tournament start", tournament=1)
    (semi,) = await open_matches(w, 1)
    r = answer(await w.carol.slash(w.lobby, "dm tournament result", tournament=1, board=2, result="1/2-1/2"))
    assert "Board 2" in r.content
    await w.env.settle()
    assert "replayed with colours swapped" in bot_text(w, w.lobby)
    (rematch,) = await open_matches(w, 1)
    assert (rematch[1].white, rematch[1].black) == (semi[1].black, semi[1].white)
    await resign_losers(w, 1)
    await resign_losers(w, 1)
    assert "wins DM Colosseum! Prize: glory." in bot_text(w, w.lobby)
    picture = answer(await w.alice.slash(w.lobby, "dm tournament bracket", tournament=1))
    assert picture.attachments and picture.attachments[0].filename == "bracket.png"


async def _assert_no_show(w: World, tid: int, lobby: simcord.ChannelHandle, absent: simcord.MemberActor) -> None:
    (g,) = await no_shows(w, tid)
    stored = await w.bot.service.record(g.match_id or 0)
    assert stored is not None and (stored.status, stored.result_reason) == ("finished", "no_show")
    assert absent.name in [name for _, name in stored.players.values()]
    assert f"({absent.name} did not check in)" in bot_text(w, lobby)


@pytest.mark.slow  # a whole tournament of twelve games
async def test_eight_players_swiss_in_three_rounds_with_a_withdrawal_and_a_no_show(world: World) -> None:
    w = world
    extra = [w.guild.add_member(w.env.create_user(f"gladiator{i}")) for i in range(4)]
    field = [w.alice, w.bob, w.carol, w.dave, *extra]
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        field,
        name="Colosseum",
        game="boxes",
        format="swiss",
        rounds=3,
        options="rows=2 cols=2",
        clock=CLOCK,
        no_show=1,
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    assert len(await open_matches(w, tid)) == 0, "the matches wait for their players"
    await check_in(w, tid, field, absent=extra[0])
    await _assert_no_show(w, tid, w.lobby, extra[0])
    await resign_losers(w, tid, field)
    await extra[3].slash(w.lobby, "dm tournament withdraw", tournament=tid)
    await w.env.settle()
    for _ in range(2):
        await check_in(w, tid, field)
        await resign_losers(w, tid, field)
    service = tournament_service(w)
    t = await service.get(tid)
    assert (t.status, t.round) == ("finished", 3)
    rounds = await service.rounds(tid)
    met = [frozenset((p.white, p.black)) for r in rounds for p in r if isinstance(p, Game)]
    assert len(met) == len(set(met)), "no repeat pairing"
    assert [len(r) for r in rounds] == [4, 4, 4], "round 3: three games and the bye of the odd field"
    assert "wins Colosseum!" in bot_text(w, w.lobby)


async def go_away(w: World) -> None:
    """The bot process stops (its tournament timer with it, as `DMHost.close` stops it)."""
    from tests.bot.adapters.discord.test_catch_up import go_away as stop

    with w.env._bot_scope():
        await w.bot.get_cog("TournamentFeature").before_close()  # type: ignore[union-attr]
    await stop(w)


async def test_a_restart_in_the_middle_of_a_round(world: World, settings: object) -> None:
    from tests.bot.adapters.discord.test_catch_up import come_back

    w = world
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        [w.alice, w.bob, w.dave],
        name="Night",
        game="boxes",
        format="roundrobin",
        options="rows=2 cols=2",
        clock=CLOCK,
        no_show=1,
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    await check_in(w, tid, [])
    ((match_id, game),) = await open_matches(w, tid)
    service = tournament_service(w)
    entries = {e.id: e for e in await service.entries(tid)}
    (room,) = [t for t in w.lobby.threads if t.id == w.bot.service.live[match_id].channel_id]
    await go_away(w)
    loser = next(a for a in (w.alice, w.bob, w.dave) if str(a.user.id) == entries[game.black].player_id)
    sent = await loser.send(room, "resign")  # read back when the bot returns, and confirmed then
    await come_back(w, settings)  # type: ignore[arg-type]
    await w.env.settle()
    await confirm(loser, room, sent)
    service = tournament_service(w)
    t = await service.get(tid)
    assert t.round == 2, "the result that arrived while away ended round 1, and round 2 was paired once"
    assert [g.round for g in await service.games(tid)].count(2) == 2
    # round 2: one player checks in, the other does not; the bot goes away over the no-show deadline
    ((g2, p2),) = [(g, g.pairing) for g in await service.games(tid) if g.round == 2 and isinstance(g.pairing, Game)]
    assert isinstance(p2, Game)
    here = next(a for a in (w.alice, w.bob, w.dave) if str(a.user.id) == entries[p2.white].player_id)
    absent = next(a for a in (w.alice, w.bob, w.dave) if str(a.user.id) == entries[p2.black].player_id)
    (room2,) = [th for th in w.lobby.threads if th.id == g2.room_id]
    await here.send(room2, "here")
    await w.env.settle()
    await go_away(w)
    await w.env.advance_time(5 * 60)
    await come_back(w, settings)  # type: ignore[arg-type]
    await w.env.settle()
    service = tournament_service(w)
    assert not await no_shows(w, tid), "nobody is charged for the time the bot was away: the wait runs again"
    await w.env.advance_time(61)
    await w.env.settle()
    await _assert_no_show(w, tid, w.lobby, absent)
    assert (await service.get(tid)).round == 3
    # round 3: a player withdraws; the other wins by forfeit and the tournament ends
    ((p3),) = [g.pairing for g in await service.games(tid) if g.round == 3 and isinstance(g.pairing, Game)]
    assert isinstance(p3, Game)
    quitter = next(a for a in (w.alice, w.bob, w.dave) if str(a.user.id) == entries[p3.white].player_id)
    await quitter.slash(w.lobby, "dm tournament withdraw", tournament=tid)
    await w.env.settle()
    t = await service.get(tid)
    assert t.status == "finished" and "wins Night!" in bot_text(w, w.lobby)


async def test_two_servers_run_tournaments_at_once(world: World) -> None:
    w = world
    other = w.env.create_guild(name="Genius Club")
    other_lobby = other.create_text_channel("arena")
    host_role = other.create_role("Host")
    boss = other.add_member(w.env.create_user("boss"), roles=[host_role])
    others = [other.add_member(w.env.create_user(f"genius{i}")) for i in range(4)]
    first = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        [w.alice, w.bob, w.dave],
        name="Here",
        game="boxes",
        format="elimination",
        options="rows=2 cols=2",
        clock=CLOCK,
        no_show=1,
    )
    second = await sign_up(
        w,
        other,
        other_lobby,
        boss,
        others,
        name="There",
        game="boxes",
        format="roundrobin",
        options="rows=2 cols=2",
        clock=CLOCK,
        no_show=1,
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=first)
    await boss.slash(other_lobby, "dm tournament start", tournament=second)
    foreign = answer(await w.carol.slash(w.lobby, "dm tournament standings", tournament=second))
    assert foreign.ephemeral and "no tournament 2 in this server" in foreign.content
    stranger = answer(await w.alice.slash(w.lobby, "dm tournament withdraw", tournament=second))
    assert stranger.ephemeral and "no tournament 2 in this server" in stranger.content
    # both servers' first rounds at once: a no-show in each
    await check_in(w, first, [], absent=w.dave, wait=False)
    await check_in(w, second, others, lobby=other_lobby, absent=others[3])
    await _assert_no_show(w, second, other_lobby, others[3])
    await resign_losers(w, second, others, lobby=other_lobby)
    await others[0].slash(other_lobby, "dm tournament withdraw", tournament=second)
    await w.env.settle()
    service = tournament_service(w)
    while (await service.get(second)).status == "running":
        await check_in(w, second, others, lobby=other_lobby)
        await resign_losers(w, second, others, lobby=other_lobby)
    await w.bob.slash(w.lobby, "dm tournament withdraw", tournament=first)
    await w.env.settle()
    assert [(await service.get(t)).status for t in (first, second)] == ["finished", "finished"]
    assert "wins Here!" in bot_text(w, w.lobby) and "wins There!" in bot_text(w, other_lobby)
    assert "There" not in bot_text(w, w.lobby) and "genius" not in bot_text(w, w.lobby)
    assert len(await no_shows(w, first)) == 1 and len(await no_shows(w, second)) == 1


@pytest.mark.slow  # a whole tournament of ten rounds
async def test_five_players_double_round_robin_with_byes_a_withdrawal_and_a_no_show(world: World) -> None:
    w = world
    rivals = [w.guild.add_member(w.env.create_user(f"rival{i}")) for i in range(2)]
    field = [w.alice, w.bob, w.dave, *rivals]
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        field,
        name="League",
        game="boxes",
        format="double-roundrobin",
        options="rows=2 cols=2",
        clock=CLOCK,
        no_show=1,
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    service = tournament_service(w)
    await check_in(w, tid, field, absent=rivals[0])
    await _assert_no_show(w, tid, w.lobby, rivals[0])
    await resign_losers(w, tid, field)
    for number in range(2, 11):
        if number == 6:  # half-way: rival1 leaves; what remains of theirs is forfeited
            await rivals[1].slash(w.lobby, "dm tournament withdraw", tournament=tid)
            await w.env.settle()
        await check_in(w, tid, field)
        await resign_losers(w, tid, field)
    t = await service.get(tid)
    assert (t.status, t.round) == ("finished", 10)
    rounds = await service.rounds(tid)
    games = [(p.white, p.black) for r in rounds for p in r if isinstance(p, Game)]
    assert len(games) == 20 and len(set(games)) == 20, "every pair twice, colours swapped"
    gone = next(e.id for e in await service.entries(tid) if e.withdrawn)
    assert sum(p.forfeit for r in rounds[5:] for p in r if isinstance(p, Game)) == 4, "the withdrawn player's games"
    assert all(gone in (p.white, p.black) for r in rounds[5:] for p in r if isinstance(p, Game) and p.forfeit)
    byes = [p.player for r in rounds for p in r if not isinstance(p, Game)]
    assert sorted(b for b in byes if b != gone) == sorted(s for s in t.seeds * 2 if s != gone)
    assert all(len([p for p in r if not isinstance(p, Game)]) <= 1 for r in rounds), "one bye a round at most"
    table = answer(await w.alice.slash(w.lobby, "dm tournament standings", tournament=tid))
    assert table.content.count("\n") == 5


async def test_six_players_elimination_byes_a_rematch_a_withdrawal_and_a_no_show(world: World) -> None:
    w = world
    seeds = [w.guild.add_member(w.env.create_user(f"seed{i}")) for i in range(3)]
    field = [w.alice, w.bob, w.dave, *seeds]
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        field,
        name="Cup",
        game="boxes",
        format="elimination",
        options="rows=2 cols=2",
        clock=CLOCK,
        no_show=1,
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    service = tournament_service(w)
    t = await service.get(tid)
    first = (await service.rounds(tid))[0]
    assert [p.player for p in first if not isinstance(p, Game)] == t.seeds[:2], "byes to seeds 1 and 2"
    await w.carol.slash(w.lobby, "dm tournament result", tournament=tid, board=2, result="1/2-1/2")
    await w.env.settle()
    assert "replayed with colours swapped" in bot_text(w, w.lobby)
    entries = {e.id: e for e in await service.entries(tid)}
    board4 = next(p for p in first if isinstance(p, Game) and p.result is None)
    absent = next(a for a in field if str(a.user.id) == entries[board4.black].player_id)
    await check_in(w, tid, field, absent=absent)  # board 4: a no-show; the rematch of board 2: both here
    await _assert_no_show(w, tid, w.lobby, absent)
    await resign_losers(w, tid, field)
    t = await service.get(tid)
    assert t.round == 2 and len((await service.rounds(tid))[0]) == 5, "two byes, two games and the rematch"
    semi = next(p for p in (await service.rounds(tid))[1] if isinstance(p, Game))
    quitter = next(a for a in field if str(a.user.id) == entries[semi.white].player_id)
    await quitter.slash(w.lobby, "dm tournament withdraw", tournament=tid)  # the other goes through by forfeit
    await w.env.settle()
    await check_in(w, tid, field)
    await resign_losers(w, tid, field)
    await check_in(w, tid, field)
    await resign_losers(w, tid, field)
    t = await service.get(tid)
    assert (t.status, t.round) == ("finished", 3)
    assert "wins Cup!" in bot_text(w, w.lobby)
    picture = answer(await w.alice.slash(w.lobby, "dm tournament bracket", tournament=tid))
    assert picture.attachments and picture.attachments[0].filename == "bracket.png"


async def test_check_in_before_an_automatic_start(world: World) -> None:
    w = world
    late = w.guild.add_member(w.env.create_user("sleepy"))
    field = [w.alice, w.bob, w.dave, late]
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        field,
        name="Dawn",
        game="boxes",
        format="roundrobin",
        options="rows=2 cols=2",
        start="in 1h",
        checkin=15,
    )
    card = signup_card(w)
    assert "Starts by itself <t:" in card.content and "Check-in from" in card.content  # type: ignore[attr-defined]
    early = answer(await w.alice.click(card, label="I'm here"))
    assert early.ephemeral and "opens at" in early.content
    await w.env.advance_time(46 * 60)
    await w.alice.click(signup_card(w), label="I'm here")
    await w.bob.click(signup_card(w), label="I'm here")
    await w.dave.send(w.lobby, "here")
    await w.carol.send(w.lobby, "here")  # not in the field: ignored
    await w.env.settle()
    assert "alice ✓" in signup_card(w).content and "sleepy ✓" not in signup_card(w).content  # type: ignore[attr-defined]
    assert "dave ✓" in signup_card(w).content, "a typed `here` redraws the card too"  # type: ignore[attr-defined]
    twice = answer(await w.bob.click(signup_card(w), label="I'm here"))
    assert twice.ephemeral and "already checked in" in twice.content
    await w.env.advance_time(14 * 60 + 2)  # the start time: nobody types anything
    await w.env.settle()
    service = tournament_service(w)
    t = await service.get(tid)
    assert (t.status, len(t.seeds)) == ("running", 3)
    assert "Dawn** has started with 3 players. Out for not checking in: sleepy." in bot_text(w, w.lobby)
    assert len(await open_matches(w, tid)) == 1, "three players: one game and a bye"


async def test_elimination_seeded_by_rating(world: World) -> None:
    w = world

    async def rated_win(winner: simcord.MemberActor, loser: simcord.MemberActor) -> None:
        text = answer(
            await w.carol.slash(
                w.lobby,
                "dm start",
                game="boxes",
                player1=winner,
                player2=loser,
                options="rows=2 cols=2",
                room="channel",
            )
        ).content
        assert "has started" in text, text
        await resign(loser, w.lobby)
        await w.env.settle()

    await rated_win(w.dave, w.alice)
    await rated_win(w.dave, w.bob)
    await rated_win(w.bob, w.alice)
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        [w.alice, w.bob, w.carol, w.dave],
        name="Seeded",
        game="boxes",
        format="elimination",
        options="rows=2 cols=2",
        seeding="rating",
        rated=True,
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    service = tournament_service(w)
    t = await service.get(tid)
    by_entry = {e.id: e.player_id for e in await service.entries(tid)}
    ratings = w.bot.ratings  # type: ignore[attr-defined]
    expected = await ratings.seed_order(w.guild.id, "boxes", list(by_entry.values()))
    assert [by_entry[s] for s in t.seeds] == expected
    assert expected[0] == str(w.dave.user.id) and expected[-1] == str(w.alice.user.id)
    first = {
        frozenset((by_entry[p.white], by_entry[p.black])) for p in (await service.rounds(tid))[0] if isinstance(p, Game)
    }
    assert frozenset((str(w.dave.user.id), str(w.alice.user.id))) in first, "seed 1 meets seed 4"
    before = await ratings.standing(w.guild.id, "boxes", str(w.dave.user.id))
    await resign_losers(w, tid)
    after = await ratings.standing(w.guild.id, "boxes", str(w.dave.user.id))
    assert before is not None and after is not None and after.games == before.games + 1, "a rated tournament game"


async def test_a_no_show_in_a_rated_tournament_is_rated_and_in_a_casual_one_is_not(world: World) -> None:
    w = world
    ratings = w.bot.ratings  # type: ignore[attr-defined]
    for name, rated, (here, absent) in (("Rated", True, (w.alice, w.bob)), ("Casual", False, (w.dave, w.carol))):
        tid = await sign_up(
            w,
            w.guild,
            w.lobby,
            w.carol,
            [here, absent],
            name=name,
            game="boxes",
            format="roundrobin",
            options="rows=2 cols=2",
            no_show=1,
            rated=rated,
        )
        await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
        await check_in(w, tid, [here, absent], absent=absent)
        await _assert_no_show(w, tid, w.lobby, absent)
        assert f"wins {name}!" in bot_text(w, w.lobby)
    won = await ratings.standing(w.guild.id, "boxes", str(w.alice.user.id))
    lost = await ratings.standing(w.guild.id, "boxes", str(w.bob.user.id))
    assert won is not None and lost is not None and (won.wins, lost.losses) == (1, 1), "rated when it was ruled"
    assert await ratings.standing(w.guild.id, "boxes", str(w.dave.user.id)) is None, "casual: not rated"


async def test_a_member_who_left_the_server_is_refused_at_the_start(world: World) -> None:
    w = world
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        [w.alice, w.bob, w.dave],
        name="Gone",
        game="boxes",
        format="roundrobin",
        options="rows=2 cols=2",
    )
    w.guild.remove_member(w.dave)
    await w.env.settle()
    refused = answer(await w.carol.slash(w.lobby, "dm tournament start", tournament=tid))
    assert refused.ephemeral and "dave left the server" in refused.content
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    assert (await service.get(tid)).status == "signup"
    out = answer(await w.carol.slash(w.lobby, "dm tournament remove", tournament=tid, player=w.dave.user))
    assert "is out of Gone" in out.content
    assert "has started" in answer(await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)).content


async def test_a_member_who_left_the_server_is_out_at_the_automatic_start(world: World) -> None:
    w = world
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        [w.alice, w.bob, w.dave],
        name="Dusk",
        game="boxes",
        format="roundrobin",
        options="rows=2 cols=2",
        start="in 1h",
    )
    w.guild.remove_member(w.dave)
    await w.env.settle()
    await w.env.advance_time(60 * 60 + 2)  # the start time: nobody types anything
    await w.env.settle()
    service = tournament_service(w)
    t = await service.get(tid)
    assert (t.status, len(t.seeds)) == ("running", 2)
    dave = next(e for e in await service.entries(tid) if e.player_id == str(w.dave.user.id))
    assert dave.withdrawn and dave.id not in t.seeds
    assert "Dusk** has started with 2 players. Out for leaving the server: dave." in bot_text(w, w.lobby)
    ((_, game),) = await open_matches(w, tid)
    assert dave.id not in (game.white, game.black)


async def test_a_typed_here_redraws_the_card_within_the_channels_write_pacing(world: World) -> None:
    w = world
    tid = await sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        [w.alice, w.bob, w.dave],
        name="Paced",
        game="boxes",
        format="roundrobin",
        options="rows=2 cols=2",
        start="in 1h",
        checkin=30,
    )
    await w.env.advance_time(31 * 60)
    feature = w.bot.get_cog("TournamentFeature")
    feature.cards.clear()  # type: ignore[union-attr]  # as after a restart: the card is found in the channel
    await w.alice.send(w.lobby, "here")
    await w.env.settle()
    assert "alice ✓" in signup_card(w).content  # type: ignore[attr-defined]
    w.bot.settings.announce_batch_seconds = 1.0  # the announcer paces the channel's writes, as in production
    w.env.settle_timeout = 1.0  # the pacing's wait (up to 5 s) is a timer to advance to, not work to settle
    announcer = w.bot.get_cog("Announcer")
    announcer.writes[w.lobby.id] = [now(w)] * 4  # type: ignore[union-attr]  # the channel's writes are used up
    await w.bob.send(w.lobby, "here")
    await w.dave.send(w.lobby, "here")
    await w.env.advance_time(1)
    card = signup_card(w).content  # type: ignore[attr-defined]
    assert "bob ✓" not in card and "dave ✓" not in card, "no write before the channel has room"
    await w.env.advance_time(5)
    card = signup_card(w).content  # type: ignore[attr-defined]
    assert "bob ✓" in card and "dave ✓" in card, "one redraw shows both"
    assert len(announcer.writes[w.lobby.id]) == 5, "that one edit is counted in the channel's writes"  # type: ignore[union-attr]
    assert (await tournament_service(w).get(tid)).status == "signup"
