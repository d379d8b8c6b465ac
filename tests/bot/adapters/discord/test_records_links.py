"""A finished match's record stays at hand on a simulated Discord (issue 48, point 7): `/dm log` without an
id in the room of a match that is over finds that match, `/dm history` lines link each match's review page,
and `/dm tournament page` and `/dm ratings page` give a tournament's and the server's signed page address
(or say why there is none)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.records.pagetoken import load_secret, page_url
from bot.settings import Settings
from tests.bot.adapters.discord.conftest import World, answer, resign, start

BASE = "https://dm.example.org"


@pytest.fixture
def settings(migrated_sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("DMHOST_WEB_SECRET", raising=False)
    return Settings(
        _env_file=None,
        database_url=migrated_sqlite_url,
        heartbeat_seconds=3600.0,
        announce_batch_seconds=0.0,
        web_url=BASE,
    )


async def test_log_in_the_room_of_a_finished_match_finds_it(world: World) -> None:
    w = world
    match_id, room = await start(w, room="public", options="rows=2 cols=2", clock="kind=correspondence move=2d")
    await resign(w.bob, room)
    await w.env.advance_time(3 * 86400)  # days later, in the match's own room
    r = answer(await w.alice.slash(room, "dm log"))
    assert r.embeds and r.embeds[0].title == f"Match {match_id}: Dots-and-Boxes"
    fields = {f.name: f.value for f in r.embeds[0].fields}
    assert fields["Result"] == "alice wins by resignation"
    assert fields["Review page"] == page_url(BASE, load_secret(), "match", match_id)
    nowhere = answer(await w.alice.slash(w.lobby, "dm log")).content
    assert nowhere == "No match was played in this channel: give the match id."


async def test_history_lines_link_the_review_pages(world: World) -> None:
    w = world
    first, room = await start(w, room="public", options="rows=2 cols=2")
    await resign(w.bob, room)
    second, room = await start(w, room="public", options="rows=2 cols=2")
    await resign(w.alice, room)
    r = answer(await w.alice.slash(w.lobby, "dm history"))
    lines = (r.embeds[0].description or "").splitlines()
    assert [line.split()[0] for line in lines] == [f"`#{second}`", f"`#{first}`"]
    for match_id, line in zip((second, first), lines, strict=True):
        assert line.endswith(f" · [review](<{page_url(BASE, load_secret(), 'match', match_id)}>)")


async def test_a_tournament_s_and_the_server_s_page(world: World) -> None:
    w = world
    created = answer(
        await w.carol.slash(w.lobby, "dm tournament create", name="Winter Cup", game="boxes", format="swiss")
    )
    assert created.content.startswith("**Tournament 1 · Winter Cup**")
    page = answer(await w.alice.slash(w.lobby, "dm tournament page", tournament=1)).content
    assert page == f"The review page of Winter Cup: <{page_url(BASE, load_secret(), 'tournament', 1)}>"
    table = answer(await w.alice.slash(w.lobby, "dm tournament standings", tournament=1)).content
    assert table.endswith(f"[review](<{page_url(BASE, load_secret(), 'tournament', 1)}>)")
    server = answer(await w.alice.slash(w.lobby, "dm ratings page")).content
    assert server == f"The review page of Death Match Club: <{page_url(BASE, load_secret(), 'server', w.guild.id)}>"
