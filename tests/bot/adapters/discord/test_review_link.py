"""With `DMHOST_WEB_URL` set, `/dm log` and the posted result line link to the match's review page (signed
address); without it `/dm log` attaches the page (tests/bot/adapters/discord/test_commands.py::test_log)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.records.pagetoken import load_secret, page_url
from bot.settings import Settings
from tests.bot.adapters.discord.conftest import World, answer, bot_messages, start
from tests.bot.adapters.discord.test_overview import _play_boxes_1x1

BASE = "https://dm.example.org"


@pytest.fixture
def settings(migrated_sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("DMHOST_WEB_SECRET", raising=False)
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=migrated_sqlite_url,
        heartbeat_seconds=3600.0,
        announce_batch_seconds=0.0,
        web_url=BASE,
    )


async def test_log_and_the_result_line_link_to_the_page(world: World) -> None:
    w = world
    match_id, thread = await start(w, room="public", options="rows=1 cols=1")
    before = len(bot_messages(w, w.lobby))
    await _play_boxes_1x1(w, thread)
    link = page_url(BASE, load_secret(), "match", match_id)
    posted = bot_messages(w, w.lobby)[before:]
    assert len(posted) == 1 and posted[0].content.endswith(f"Review: <{link}>")
    w.env.settle_timeout = 300.0  # the solver's verdicts
    r = answer(await w.alice.slash(w.lobby, "dm log", match=match_id))
    fields = {f.name: f.value for f in r.embeds[0].fields}
    assert fields["Review page"] == link
    assert not [a for a in r.attachments if a.filename.endswith(".html")]
    w.env.settle_timeout = 5.0


@pytest.mark.parametrize("room", ["public", "private", "channel"])
async def test_the_room_s_privacy_is_stored_with_the_match(world: World, room: str) -> None:
    w = world
    match_id, _where = await start(w, room=room)
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None and stored.events[0].kind == "created"
    assert stored.events[0].data["private"] is (room == "private")
