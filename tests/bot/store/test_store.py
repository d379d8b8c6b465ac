"""The match store (`bot/store/matches.py`) on a real SQLite file and a real PostgreSQL schema (`db_url`)."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import pytest

from bot.store.matches import MatchStore, NewEvent

GUILD = 1_234_567_890_123_456_789
"""A Discord snowflake: needs 64 bits."""


async def new_match(store: MatchStore, players: tuple[str, str] = ("p1", "p2"), **kw: Any) -> int:
    fields: dict[str, Any] = {
        "game": "boxes",
        "options": {"rows": 2, "cols": 2},
        "clock": {"kind": "move_reserve", "move": 60.0, "reserve": 300.0},
        "status": "ongoing",
        "players": {1: (players[0], players[0].upper()), 2: (players[1], players[1].upper())},
        "guild_id": GUILD,
        "channel_id": GUILD + 1,
        "snapshot": {"ply": 0, "state": {"drawn": []}},
        "events": [NewEvent("created", data={"by": players[0]})],
    }
    fields.update(kw)
    return await store.create_match(**fields)


async def test_a_new_match_loads_back_as_created(store: MatchStore) -> None:
    before = dt.datetime.now(dt.UTC)
    mid = await new_match(store, snapshot={"ply": 0, "text": "Ünïcode ✓", "nested": {"list": [1, 2.5, None]}})
    loaded = await store.load(mid, with_events=True)
    assert loaded is not None
    assert (loaded.id, loaded.game, loaded.status) == (mid, "boxes", "ongoing")
    assert loaded.options == {"rows": 2, "cols": 2}
    assert loaded.clock == {"kind": "move_reserve", "move": 60.0, "reserve": 300.0}
    assert loaded.snapshot == {"ply": 0, "text": "Ünïcode ✓", "nested": {"list": [1, 2.5, None]}}
    assert (loaded.guild_id, loaded.channel_id) == (GUILD, GUILD + 1)
    assert loaded.players == {1: ("p1", "P1"), 2: ("p2", "P2")}
    assert loaded.event_count == 1
    assert [(e.seq, e.kind, e.data) for e in loaded.events] == [(0, "created", {"by": "p1"})]
    assert loaded.created_at.tzinfo is not None
    assert before - dt.timedelta(seconds=5) <= loaded.created_at <= dt.datetime.now(dt.UTC) + dt.timedelta(seconds=5)
    assert (loaded.finished_at, loaded.winner_seat, loaded.result_reason) == (None, None, None)
    without = await store.load(mid)
    assert without is not None and without.events == []
    assert await store.load(mid + 1000) is None


async def test_append_extends_the_log_and_replaces_the_snapshot(store: MatchStore) -> None:
    mid = await new_match(store)
    await store.write_batch(
        mid,
        1,
        [NewEvent("move", seat=1, text="A1-B1", message_id="42"), NewEvent("turn", seat=2)],
        snapshot={"ply": 1},
        status="ongoing",
        winner_seat=2,  # ignored while the match goes on
        result_reason="nonsense",
    )
    mid_game = await store.load(mid, with_events=True)
    assert mid_game is not None
    assert mid_game.snapshot == {"ply": 1} and mid_game.event_count == 3
    assert [(e.seq, e.kind, e.seat, e.text, e.message_id) for e in mid_game.events] == [
        (0, "created", None, None, None),
        (1, "move", 1, "A1-B1", "42"),
        (2, "turn", 2, None, None),
    ]
    assert (mid_game.finished_at, mid_game.winner_seat, mid_game.result_reason) == (None, None, None)
    await store.write_batch(
        mid,
        3,
        [NewEvent("finished", data={"score": [3, 1]})],
        snapshot={"ply": 9},
        status="finished",
        winner_seat=1,
        result_reason="score",
    )
    done = await store.load(mid, with_events=True)
    assert done is not None
    assert (done.status, done.winner_seat, done.result_reason, done.event_count) == ("finished", 1, "score", 4)
    assert done.finished_at is not None and done.finished_at >= done.created_at
    assert done.events[-1].data == {"score": [3, 1]}
    assert [e.at.tzinfo is not None for e in done.events] == [True] * 4


async def test_appends_of_many_matches_at_once_all_commit(store: MatchStore) -> None:
    ids = [await new_match(store, (f"a{i}", f"b{i}")) for i in range(6)]
    await asyncio.gather(
        *(
            store.write_batch(
                mid, 1, [NewEvent("move", seat=1, text=f"m{mid}")], snapshot={"ply": 1, "id": mid}, status="ongoing"
            )
            for mid in ids
        )
    )
    for mid in ids:
        loaded = await store.load(mid, with_events=True)
        assert loaded is not None
        assert loaded.snapshot == {"ply": 1, "id": mid}
        assert [e.text for e in loaded.events] == [None, f"m{mid}"]


async def test_a_seat_can_change_hands(store: MatchStore) -> None:
    mid = await new_match(store)
    await store.write_batch(
        mid, 1, [NewEvent("substitute", seat=2)], snapshot={}, status="ongoing", players={2: ("p3", "Carol")}
    )
    loaded = await store.load(mid)
    assert loaded is not None and loaded.players == {1: ("p1", "P1"), 2: ("p3", "Carol")}
    assert [m.id for m in await store.history("p3")] == [mid]
    assert await store.history("p2") == []


async def test_an_append_at_a_taken_sequence_number_fails_and_changes_nothing(store: MatchStore) -> None:
    mid = await new_match(store)
    await store.write_batch(mid, 1, [NewEvent("move", seat=1, text="A1-B1")], snapshot={"ply": 1}, status="ongoing")
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        await store.write_batch(mid, 1, [NewEvent("move", seat=2, text="B1-C1")], snapshot={"ply": 2}, status="ongoing")
    loaded = await store.load(mid, with_events=True)
    assert loaded is not None
    assert loaded.snapshot == {"ply": 1} and loaded.event_count == 2
    assert [e.text for e in loaded.events] == [None, "A1-B1"]
    # The store keeps working after the failed write.
    await store.write_batch(mid, 2, [NewEvent("move", seat=2, text="B1-C1")], snapshot={"ply": 2}, status="ongoing")
    again = await store.load(mid)
    assert again is not None and again.snapshot == {"ply": 2}


async def test_history_lists_a_players_matches_newest_first(store: MatchStore) -> None:
    first = await new_match(store, ("ann", "bob"))
    second = await new_match(store, ("cat", "ann"), game="trax")
    await new_match(store, ("bob", "cat"))
    third = await new_match(store, ("ann", "dan"))
    assert [m.id for m in await store.history("ann")] == [third, second, first]
    assert [m.id for m in await store.history("ann", limit=2)] == [third, second]
    (trax,) = [m for m in await store.history("ann") if m.game == "trax"]
    assert trax.players == {1: ("cat", "CAT"), 2: ("ann", "ANN")}
    assert await store.history("nobody") == []


async def test_unfinished_lists_the_matches_to_resume(store: MatchStore) -> None:
    ongoing = await new_match(store)
    finished = await new_match(store)
    aborted = await new_match(store)
    paused = await new_match(store, status="paused")
    await store.write_batch(
        finished, 1, [NewEvent("finished")], snapshot={}, status="finished", winner_seat=2, result_reason="timeout"
    )
    await store.write_batch(aborted, 1, [NewEvent("aborted")], snapshot={}, status="aborted")
    unfinished = await store.unfinished()
    assert [m.id for m in unfinished] == [ongoing, paused]
    assert all(m.players == {1: ("p1", "P1"), 2: ("p2", "P2")} for m in unfinished)
    assert finished not in [m.id for m in unfinished]


async def test_heartbeats(store: MatchStore) -> None:
    assert await store.last_heartbeat("host-a") is None
    await store.heartbeat("host-a", 12.5)
    await store.heartbeat("host-b", 3.0)
    await store.heartbeat("host-a", 99.25)
    assert await store.last_heartbeat("host-a") == 99.25
    assert await store.last_heartbeat("host-b") == 3.0


async def test_everything_is_still_there_after_a_reopen(db_url: str) -> None:
    first = MatchStore(db_url)
    await first.open()
    mid = await new_match(first)
    await first.write_batch(mid, 1, [NewEvent("move", seat=1, text="A1-B1")], snapshot={"ply": 1}, status="ongoing")
    await first.heartbeat("host", 7.0)
    await first.close()
    second = MatchStore(db_url)
    await second.open()  # migrations again: nothing to do, nothing lost
    try:
        loaded = await second.load(mid, with_events=True)
        assert loaded is not None and loaded.snapshot == {"ply": 1}
        assert [e.kind for e in loaded.events] == ["created", "move"]
        assert await second.last_heartbeat("host") == 7.0
        assert [m.id for m in await second.unfinished()] == [mid]
    finally:
        await second.close()


async def test_a_ping_answers_while_the_database_does_and_raises_when_it_cannot(
    store: MatchStore, tmp_path: Any
) -> None:
    await store.ping()  # the probes' health check: one round trip
    nowhere = MatchStore(f"sqlite+aiosqlite:///{tmp_path}/no/such/folder/db.sqlite")
    try:
        with pytest.raises(Exception, match="unable to open database file"):
            await nowhere.ping()
    finally:
        await nowhere.close()
