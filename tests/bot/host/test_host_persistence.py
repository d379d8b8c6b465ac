"""The host on a real SQLite file (and PostgreSQL when configured): survive restarts, keep every attempt."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.adapters.discord.render import markdown
from bot.host.service import MatchService, PlayerRef
from bot.records.matchlog import build_log, format_log
from bot.store.db import current_revision, migrate
from bot.wording import reason_text
from tests.bot.conftest import Recorder, make_service

ALICE, BOB = PlayerRef("a", "alice"), PlayerRef("b", "bob")


@pytest.mark.looptime
async def test_match_survives_close_and_reopen_with_identical_state_and_clocks(migrated_db_url: str) -> None:
    rec = Recorder()
    s1 = await make_service(migrated_db_url, rec)
    mid = await s1.create_match("boxes", [ALICE, BOB], clock={"move": 60, "reserve": 300})
    for who, move in [(ALICE, "A1-B1"), (BOB, "A1-A2")]:
        assert (await s1.submit(mid, who.id, move)).status == "accepted"
    await asyncio.sleep(90)  # alice has used 30 s of reserve
    live = s1.get(mid)
    state_before = live.ruleset.to_json(live.state)
    remaining_before = live.clocks.remaining(1, s1.now())
    await s1.close()
    await asyncio.sleep(3600)  # the host is down for an hour: nobody is charged for it
    rec2 = Recorder()
    s2 = await make_service(migrated_db_url, rec2)
    try:
        assert mid in s2.live
        live2 = s2.get(mid)
        assert live2.ruleset.to_json(live2.state) == state_before
        assert live2.clocks.remaining(1, s2.now()) == pytest.approx(remaining_before, abs=0.05)
        assert rec2.of("resumed")
        t0 = asyncio.get_running_loop().time()
        ev = await rec2.wait("finished")
        assert ev.data["winner"] == 2
        assert rec2.of("finished")[0][0] - t0 == pytest.approx(270, abs=0.1)
    finally:
        await s2.close()
        await s2.store.close()


@pytest.mark.looptime
async def test_log_lists_every_attempt_in_order(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("boxes", [ALICE, BOB], options={"rows": 1, "cols": 1})
    script = [
        (ALICE, "A1-B1", "accepted"),
        (ALICE, "A2-B2", "rejected"),  # out of turn
        (BOB, "A1-C1", "rejected"),  # not adjacent
        (BOB, "hello bob here", "ignored"),  # chat is not logged
        (BOB, "A1-B1", "rejected"),  # already drawn
        (BOB, "A2-B2", "accepted"),
        (ALICE, "A1 9", "rejected"),  # unreadable move
        (ALICE, "A1-A2", "accepted"),
        (BOB, "B1-B2", "accepted"),
    ]
    for who, text, want in script:
        assert (await service.submit(mid, who.id, text)).status == want, text
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    data = build_log(stored)
    kinds = [(e["kind"], e.get("text")) for e in data["events"]]
    assert kinds == [
        ("created", None),
        ("move", "A1-B1"),
        ("turn", "A2-B2"),
        ("illegal", "A1-C1"),
        ("illegal", "A1-B1"),
        ("move", "A2-B2"),
        ("syntax", "A1 9"),
        ("move", "A1-A2"),
        ("move", "B1-B2"),
        ("finished", None),
    ]
    assert [e["seq"] for e in data["events"]] == list(range(len(kinds)))
    assert data["result"] == {
        "winner": 2,
        "winner_name": "bob",
        "reason": "score",
        "score": (0, 1),
        "words": "bob wins on score, 1–0",
    }
    assert all("used" in m for m in data["moves"])
    text = format_log(data)
    assert "Result: bob wins on score, 1–0" in text and "A1-C1" in text
    json.dumps(data)


def _head() -> str:
    """The newest migration's revision (the one `upgrade` reaches)."""
    from alembic.script import ScriptDirectory

    from bot.store.db import _alembic_config

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None and head >= "0001"
    return head


async def test_migrations_up_and_down_on_sqlite(sqlite_url: str) -> None:
    await migrate(sqlite_url)
    assert await current_revision(sqlite_url) == _head()
    await migrate(sqlite_url, "downgrade", "base")
    assert await current_revision(sqlite_url) is None
    await migrate(sqlite_url)
    assert await current_revision(sqlite_url) == _head()


async def test_migrations_up_and_down_on_postgresql(pg_url: str) -> None:
    await migrate(pg_url)
    assert await current_revision(pg_url) == _head()
    await migrate(pg_url, "downgrade", "base")
    assert await current_revision(pg_url) is None


async def test_service_on_postgresql(pg_url: str) -> None:
    rec = Recorder()
    service = await make_service(pg_url, rec)
    try:
        mid = await service.create_match("boxes", [ALICE, BOB], options={"rows": 1, "cols": 1})
        for who, move in [(ALICE, "A1-B1"), (BOB, "A2-B2"), (ALICE, "A1-A2"), (BOB, "B1-B2")]:
            assert (await service.submit(mid, who.id, move)).status == "accepted"
        stored = await service.store.load(mid, with_events=True)
        assert stored is not None and stored.status == "finished" and stored.winner_seat == 2
        assert [e.kind for e in stored.events].count("move") == 4
        assert stored.created_at.tzinfo is not None
    finally:
        await service.close()
        await service.store.close()


@pytest.mark.looptime
async def test_two_moves_racing_only_the_first_counts(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("boxes", [ALICE, BOB])
    results = await asyncio.gather(
        service.submit(mid, ALICE.id, "A1-B1"),
        service.submit(mid, ALICE.id, "B1-C1"),
        service.submit(mid, BOB.id, "C1-D1"),
    )
    assert [r.status for r in results] == ["accepted", "rejected", "accepted"]
    assert results[1].kind == "turn"
    live = service.get(mid)
    assert live.ply == 2


@pytest.mark.looptime
async def test_bad_input_never_crashes_or_changes_state(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("boxes", [ALICE, BOB])
    live = service.get(mid)
    before = live.ruleset.to_json(live.state)
    for text in [
        "",
        "   ",
        "x" * 10_000,
        "\x00\xff\x1b[2J",
        "A1-B1" * 2000,
        "@everyone A1",
        "🙂🙂",
        "\u200bA1-B1\u200b",
    ]:
        result = await service.submit(mid, ALICE.id, text)
        assert result.status in ("ignored", "rejected")
        assert len(reason_text(result) or "") < 300
        assert "@everyone" not in markdown(reason_text(result) or "")  # as Discord shows it
    assert (await service.submit(mid, "stranger", "A1-B1")).status == "ignored"
    assert live.ruleset.to_json(live.state) == before
    assert (await service.submit(mid, BOB.id, "A1-B1")).kind == "turn"
    assert live.ruleset.to_json(live.state) == before


async def test_stored_events_read_back_as_aware_utc_and_json(host: tuple[MatchService, Recorder]) -> None:
    """Rows written by the store's fast SQLite path read back through the ORM types unchanged."""
    import datetime as dt

    service, _rec = host
    mid = await service.create_match("boxes", [ALICE, BOB])
    assert (await service.submit(mid, ALICE.id, "A1-B1", message_id="m-1")).status == "accepted"
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    move = next(e for e in stored.events if e.kind == "move")
    now = dt.datetime.now(dt.UTC)
    assert move.at.tzinfo is not None and abs((now - move.at).total_seconds()) < 60
    assert move.message_id == "m-1" and move.text == "A1-B1" and move.data["move"] == "A1-B1"
    assert stored.snapshot["ply"] == 1 and stored.event_count == 2
