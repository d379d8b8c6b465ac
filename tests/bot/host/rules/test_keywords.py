"""Exact-keyword matching: only a text that *is* a host keyword acts (issue 28: "resign?" is not a resignation)."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from bot.adapters.terminal.room import Room, RoomConfig
from bot.compose import build_host
from bot.host.match import keyword
from tests import DATA

CASES = json.loads((DATA / "host" / "keywords.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize(("text", "action"), CASES, ids=[repr(t) for t, _ in CASES])
def test_a_text_is_a_keyword_only_when_it_is_exactly_one(text: str, action: str | None) -> None:
    assert keyword(text) == action


async def test_the_terminal_room_resigns_at_once_but_not_on_a_question(tmp_path: Path) -> None:
    config = RoomConfig(
        db_url=f"sqlite+aiosqlite:///{tmp_path / 'room.db'}",
        game="boxes",
        players=["alice", "bob"],
        options={"rows": "2", "cols": "2"},
        events_json=True,
    )
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    for line in ["alice: A1-B1", "bob: resign?", "bob: should I resign", "bob: Resign."]:
        queue.put_nowait(line + "\n")
    queue.put_nowait(None)
    out = io.StringIO()
    assert await Room(config, build_host(config.db_url), out=out).run(queue) == 0
    events = [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("{")]
    (finished,) = [e for e in events if e["event"] == "finished"]
    assert finished["winner"] == "alice" and finished["reason"] == "resign", "`Resign.` acted at once"
    ignored = [e for e in events if e["event"] == "ignored"]
    assert [e["reason"] for e in ignored] == ["chat", "chat"], "the question and the sentence are chat"
