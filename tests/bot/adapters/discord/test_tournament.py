"""Whole tournaments on a simulated Discord: sign-up card and buttons, rounds in their own rooms, results
from the rooms, a withdrawal, standings and bracket pictures, the winner announced with the prize."""

from __future__ import annotations

import simcord

from bot.tournaments.rounds import Game
from tests.bot.adapters.discord.conftest import World, answer, bot_messages, bot_text, confirm, resign


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


async def _resign_losers(
    w: World,
    tid: int,
    field: list[simcord.MemberActor] | None = None,
    *,
    lobby: simcord.ChannelHandle | None = None,
    white_wins: bool = True,
) -> None:
    """In each open match's room, the losing side types `resign`."""
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    entries = {e.id: e for e in await service.entries(tid)}
    actors = [*(field or []), w.alice, w.bob, w.carol, w.dave]
    for match_id, game in await _open_matches(w, tid):
        live = w.bot.service.live[match_id]
        (room,) = [t for t in (lobby or w.lobby).threads if t.id == live.channel_id]
        loser = entries[game.black if white_wins else game.white]
        (who,) = [a for a in actors if str(a.user.id) == loser.player_id][:1]
        await resign(who, room, text=True)
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


async def _sign_up(
    w: World,
    guild: simcord.GuildHandle,
    lobby: simcord.ChannelHandle,
    host: simcord.MemberActor,
    players: list[simcord.MemberActor],
    **create: object,
) -> int:
    reply = answer(await host.slash(lobby, "dm tournament create", **create))
    tid = int(reply.content.split()[1])
    card = next(m for m in bot_messages(w, lobby) if m.content.startswith(f"**Tournament {tid} "))
    for player in players:
        await player.click(card, label="Join")
    return tid


async def test_eight_players_swiss_in_three_rounds_with_a_withdrawal(world: World) -> None:
    w = world
    extra = [w.guild.add_member(w.env.create_user(f"gladiator{i}")) for i in range(4)]
    field = [w.alice, w.bob, w.carol, w.dave, *extra]
    tid = await _sign_up(
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
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    await _resign_losers(w, tid, field)
    await extra[3].slash(w.lobby, "dm tournament withdraw", tournament=tid)
    await w.env.settle()
    await _resign_losers(w, tid, field)
    await _resign_losers(w, tid, field)
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    t = await service.get(tid)
    assert (t.status, t.round) == ("finished", 3)
    rounds = await service.rounds(tid)
    met = [frozenset((p.white, p.black)) for r in rounds for p in r if isinstance(p, Game)]
    assert len(met) == len(set(met)), "no repeat pairing"
    assert [len(r) for r in rounds] == [4, 4, 4], "round 3: three games and the bye of the odd field"
    assert "wins Colosseum!" in bot_text(w, w.lobby)


async def test_a_restart_in_the_middle_of_a_round(world: World, settings: object) -> None:
    from tests.bot.adapters.discord.test_catch_up import come_back, go_away

    w = world
    tid = await _sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        [w.alice, w.bob, w.dave],
        name="Night",
        game="boxes",
        format="roundrobin",
        options="rows=2 cols=2",
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    ((match_id, game),) = await _open_matches(w, tid)
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    entries = {e.id: e for e in await service.entries(tid)}
    (room,) = [t for t in w.lobby.threads if t.id == w.bot.service.live[match_id].channel_id]
    await go_away(w)
    loser = next(a for a in (w.alice, w.bob, w.dave) if str(a.user.id) == entries[game.black].player_id)
    sent = await loser.send(room, "resign")  # read back when the bot returns, and confirmed then
    await come_back(w, settings)  # type: ignore[arg-type]
    await w.env.settle()
    await confirm(loser, room, sent)
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    t = await service.get(tid)
    assert t.round == 2, "the result that arrived while away ended round 1, and round 2 was paired once"
    assert [g.round for g in await service.games(tid)].count(2) == 2
    await _resign_losers(w, tid)
    await _resign_losers(w, tid)
    assert (await service.get(tid)).status == "finished"


async def test_two_servers_run_tournaments_at_once(world: World) -> None:
    w = world
    other = w.env.create_guild(name="Genius Club")
    other_lobby = other.create_text_channel("arena")
    host_role = other.create_role("Host")
    boss = other.add_member(w.env.create_user("boss"), roles=[host_role])
    others = [other.add_member(w.env.create_user(f"genius{i}")) for i in range(3)]
    first = await _sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        [w.alice, w.bob, w.dave],
        name="Here",
        game="boxes",
        format="elimination",
        options="rows=2 cols=2",
    )
    second = await _sign_up(
        w, other, other_lobby, boss, others, name="There", game="boxes", format="roundrobin", options="rows=2 cols=2"
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=first)
    await boss.slash(other_lobby, "dm tournament start", tournament=second)
    foreign = answer(await w.carol.slash(w.lobby, "dm tournament standings", tournament=second))
    assert foreign.ephemeral and "no tournament 2 in this server" in foreign.content
    for _ in range(3):
        await _resign_losers(w, second, others, lobby=other_lobby)
    await _resign_losers(w, first)
    await _resign_losers(w, first)
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    assert [(await service.get(t)).status for t in (first, second)] == ["finished", "finished"]
    assert "wins Here!" in bot_text(w, w.lobby) and "wins There!" in bot_text(w, other_lobby)
    assert "There" not in bot_text(w, w.lobby)


async def test_five_players_double_round_robin_with_byes(world: World) -> None:
    w = world
    field = [w.alice, w.bob, w.dave, *(w.guild.add_member(w.env.create_user(f"rival{i}")) for i in range(2))]
    tid = await _sign_up(
        w,
        w.guild,
        w.lobby,
        w.carol,
        field,
        name="League",
        game="boxes",
        format="double-roundrobin",
        options="rows=2 cols=2",
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    for _ in range(10):
        await _resign_losers(w, tid, field)
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    t = await service.get(tid)
    assert (t.status, t.round) == ("finished", 10)
    rounds = await service.rounds(tid)
    games = [(p.white, p.black) for r in rounds for p in r if isinstance(p, Game)]
    assert len(games) == 20 and len(set(games)) == 20, "every pair twice, colours swapped"
    byes = [p.player for r in rounds for p in r if not isinstance(p, Game)]
    assert sorted(byes) == sorted(t.seeds * 2), "each player sits out once a cycle"
    table = answer(await w.alice.slash(w.lobby, "dm tournament standings", tournament=tid))
    assert table.content.count("\n") == 5


async def test_six_players_elimination_byes_to_the_top_seeds(world: World) -> None:
    w = world
    field = [w.alice, w.bob, w.dave, *(w.guild.add_member(w.env.create_user(f"seed{i}")) for i in range(3))]
    tid = await _sign_up(
        w, w.guild, w.lobby, w.carol, field, name="Cup", game="boxes", format="elimination", options="rows=2 cols=2"
    )
    await w.carol.slash(w.lobby, "dm tournament start", tournament=tid)
    service = w.bot.get_cog("TournamentFeature").tournaments  # type: ignore[union-attr]
    t = await service.get(tid)
    first = (await service.rounds(tid))[0]
    assert [p.player for p in first if not isinstance(p, Game)] == t.seeds[:2], "byes to seeds 1 and 2"
    await w.carol.slash(w.lobby, "dm tournament result", tournament=tid, board=2, result="1/2-1/2")
    await w.env.settle()
    await _resign_losers(w, tid, field)
    await _resign_losers(w, tid, field)
    await _resign_losers(w, tid, field)
    await _resign_losers(w, tid, field)
    t = await service.get(tid)
    assert (t.status, t.round) == ("finished", 3)
    assert len((await service.rounds(tid))[0]) == 5, "two byes, two games and the rematch"


async def test_a_member_who_left_the_server_is_refused_at_the_start(world: World) -> None:
    w = world
    tid = await _sign_up(
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
