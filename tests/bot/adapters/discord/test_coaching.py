"""`/puzzle` on SimCord: a puzzle from the server's own analysed games served, refused and answered; a member's
coaching profile (insights equal to the analyses, the puzzle rating); the hosts' fair-play report; the daily
puzzle posted where the host asks."""

from __future__ import annotations

from bot.coaching.insights import VERDICTS
from bot.records.analysis_store import load_analysis
from tests.bot.adapters.discord.conftest import World, answer, bot_messages
from tests.bot.coaching.players import play

BOXES = {"rows": 3, "cols": 3}


async def _analysed(w: World, matches: int = 4) -> list[int]:
    """Finished, analysed 3×3 Boxes matches of alice (easy) and bob (medium) in this server, searched for puzzles."""
    a = (str(w.alice.id), "alice", "easy")
    b = (str(w.bob.id), "bob", "medium")
    ids = []
    for seed in range(matches):
        ids.append(await play(w.bot.service, "boxes", BOXES, [a, b] if seed % 2 else [b, a], seed, guild_id=w.guild.id))
    assert await w.bot.app.host.coaching.build() > 0
    return ids


async def test_a_puzzle_is_served_refused_and_answered(world: World) -> None:
    w = world
    r = answer(await w.dave.slash(w.lobby, "puzzle answer", move="A1-B1"))
    assert r.ephemeral and "no puzzle to answer" in r.content
    await _analysed(w)
    r = answer(await w.dave.slash(w.lobby, "puzzle play", game="boxes"))
    assert r.ephemeral and "to move. Find the one best move." in r.content and r.attachments
    pid = int(r.content.split()[1])
    puzzle = await w.bot.app.host.coaching.get(pid)
    assert puzzle is not None
    r = answer(await w.dave.slash(w.lobby, "puzzle answer", move="Z1-Z2"))
    assert "not a legal move" in r.content
    r = answer(await w.dave.slash(w.lobby, "puzzle answer", move=puzzle.answer[0]))
    assert r.content.startswith(f"Right: {puzzle.answer[0]}.") and "The solver proves it" in r.content
    assert "Puzzle rating: 1" in r.content
    rating, count = await w.bot.app.host.coaching.puzzle_rating(w.guild.id, "boxes", str(w.dave.id))
    assert count == 1 and rating > 1500


async def test_the_profile_shows_insights_equal_to_the_analyses(world: World) -> None:
    w = world
    ids = await _analysed(w)
    best = 0
    for mid in ids:
        stored = await w.bot.service.store.load(mid)
        entries = await load_analysis(w.bot.service.store, mid)
        assert stored is not None and entries is not None
        seat = next(s for s, (pid, _n) in stored.players.items() if pid == str(w.alice.id))
        best += sum(1 for e in entries if e["seat"] == seat and e["analysed"] and e["verdict"] == "best")
    r = answer(await w.bob.slash(w.lobby, "puzzle profile", member=w.alice))
    assert r.ephemeral and "Insights of alice:" in r.content
    assert f"Dots-and-Boxes: {len(ids)} matches" in r.content and f": {best} best, " in r.content
    assert all(v in r.content for v in VERDICTS) and "against bob" in r.content


async def test_the_fair_play_report_is_for_hosts_only(world: World) -> None:
    w = world
    await _analysed(w)
    r = answer(await w.dave.slash(w.lobby, "puzzle fairplay"))
    assert r.ephemeral and "Only hosts" in r.content
    r = answer(await w.carol.slash(w.lobby, "puzzle fairplay", game="boxes"))
    assert r.ephemeral and "alice (Dots-and-Boxes)" in r.content and "hard moves" in r.content
    assert "FLAG" not in r.content


async def test_the_daily_puzzle_is_posted_where_the_host_asks(world: World) -> None:
    w = world
    await _analysed(w)
    daily = w.guild.create_text_channel("puzzles")
    r = answer(await w.dave.slash(w.lobby, "puzzle daily", channel=daily))
    assert "Only hosts" in r.content
    r = answer(await w.carol.slash(w.lobby, "puzzle daily", channel=daily))
    assert "posted in" in r.content
    (post,) = bot_messages(w, daily)
    assert post.content.startswith("**Daily puzzle.** Puzzle ") and post.attachments
    assert any(j.startswith("puzzle-daily:") for j in await _job_keys(w))
    r = answer(await w.carol.slash(w.lobby, "puzzle daily"))
    assert "No more daily puzzles" in r.content


async def _job_keys(w: World) -> list[str]:
    from sqlalchemy import select

    from bot.jobs.table import JOBS

    async with w.bot.service.store.engine.connect() as conn:
        return [str(k) for (k,) in (await conn.execute(select(JOBS.c.key))).all()]


async def test_the_ratings_profile_shows_the_insights_line(world: World) -> None:
    w = world
    ids = await _analysed(w)
    await w.bot.ratings.settle_many(ids)  # type: ignore[attr-defined]
    coaching = w.bot.app.host.coaching
    (row,) = await coaching.insights([str(w.alice.id)], "boxes", w.guild.id)
    r = answer(await w.bob.slash(w.lobby, "dm ratings profile", member=w.alice))
    (field,) = r.embeds[0].fields
    assert f"Analysed: {row['moves']} moves · {row['verdicts']['best']} best, " in field.value
