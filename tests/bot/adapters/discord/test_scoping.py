"""Each server sees only its own matches, and one player in two matches of one room reaches the right one."""

from __future__ import annotations

from tests.bot.adapters.discord.conftest import World, answer, start


async def test_another_server_can_neither_change_nor_read_a_match(world: World) -> None:
    w = world
    match_id, room = await start(w, room="public")
    await w.alice.send(room, "A1-B1")
    other = w.env.create_guild(name="Elsewhere")
    lounge = other.create_text_channel("lounge")
    erin = other.add_member(w.env.create_user("erin"), roles=[other.create_role("Host")])
    frank = other.add_member(w.env.create_user("frank"))
    for actor, command, options in [
        (erin, "dm host abort", {"match": match_id}),
        (erin, "dm host pause", {"match": match_id}),
        (erin, "dm host award", {"match": match_id}),
        (erin, "dm log", {"match": match_id}),
        (frank, "dm board", {"match": match_id}),
        (frank, "dm status", {"match": match_id}),
    ]:
        r = answer(await actor.slash(lounge, command, **options))
        assert r.ephemeral and "this server" in r.content, (command, r.content)
        assert "A1-B1" not in r.content and "alice" not in r.content
    live = w.bot.service.live[match_id]
    assert live.status == "ongoing" and live.ply == 1
    r = answer(await frank.slash(lounge, "dm history", player=frank))
    assert "no matches" in r.content


async def test_a_private_room_is_shown_only_to_those_who_may_read_it(world: World) -> None:
    w = world
    match_id, _room = await start(w, room="private")
    refused = answer(await w.dave.slash(w.lobby, "dm board", match=match_id))
    assert refused.ephemeral and "that you can see" in refused.content
    for member in (w.alice, w.carol):
        shown = answer(await member.slash(w.lobby, "dm board", match=match_id))
        assert f"Match {match_id}" in shown.content and "alice to move" in shown.content


async def test_a_player_in_two_matches_of_one_room_reaches_the_one_where_it_is_their_turn(world: World) -> None:
    w = world
    first, room = await start(w)  # alice vs bob: alice moves first
    r = await w.carol.slash(w.lobby, "dm start", game="boxes", player1=w.dave, player2=w.alice, room="channel")
    assert "already playing a live match" in answer(r).content  # alice is double-booked: the host confirms
    r = await w.carol.click(answer(r), label="Start anyway")
    second = int(answer(r).content.split()[1])  # dave vs alice: dave moves first
    service = w.bot.service
    await w.alice.send(room, "A1-B1")  # only match `first` waits for alice
    assert service.live[first].ply == 1 and service.live[second].ply == 0
    await w.dave.send(room, "A1-B1")
    await w.alice.send(room, "B1-C1")  # now only match `second` waits for alice
    assert service.live[first].ply == 1 and service.live[second].ply == 2
