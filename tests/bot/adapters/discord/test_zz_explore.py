from tests.bot.adapters.discord.conftest import World, board_of, bot_messages, start


async def test_explore_boxes(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", clock="move=60 reserve=60")
    first = len(bot_messages(w, room))
    await w.alice.send(room, "A1-B1")
    for step in [35, 20, 10, 35, 20, 20]:
        await w.env.advance_time(step)
        print("T", step, repr(board_of(w, room, match_id).content))
    for m in bot_messages(w, room)[first:]:
        print("MSG", repr(m.content), [u.name for u in m.mentions])


async def test_explore_trax(world: World) -> None:
    w = world
    match_id, room = await start(w, "trax", clock="move=40 grace=90")
    first = len(bot_messages(w, room))
    for step in [11, 20, 10]:
        await w.env.advance_time(step)
    await w.alice.send(room, "ready")
    print("B", repr(board_of(w, room, match_id).content))
    await w.bob.send(room, "here")
    print("B", repr(board_of(w, room, match_id).content))
    for step in [30, 30, 20, 20]:
        await w.env.advance_time(step)
        print("T", step, repr(board_of(w, room, match_id).content))
    for m in bot_messages(w, room)[first:]:
        print("MSG", repr(m.content), [u.name for u in m.mentions])
