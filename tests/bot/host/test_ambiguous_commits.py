"""Commits whose outcome is unknown (issue 27, point 1), on SQLite and PostgreSQL: the write commits, then
the host is told it failed (a connection dropping while COMMIT is in flight). The host asks the database
what really happened: memory equals the log, the player hears the truth, later moves are accepted — alone
and inside a group commit, where one match's trouble never sticks another."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from bot import wording
from bot.host.service import MatchService
from bot.store.matches import MatchStore
from tests.bot.conftest import hosted
from tests.bot.host.test_failed_writes import A, B, C, D, assert_logs_replay

pytestmark = pytest.mark.looptime

E, F = A.__class__("e", "erin"), A.__class__("f", "frank")


def dropped() -> OperationalError:
    return OperationalError("COMMIT", {}, ConnectionError("injected: the connection dropped during COMMIT"))


class CommitThenFail(MatchStore):
    """The real store; on demand a write commits and then reports an error, and the read-back that
    settles it can be made to fail too (the database gone for a moment)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.lie_next = 0
        self.lie_batches = False
        self.blind = False
        self.batch_sizes: list[int] = []

    async def _write(self, batch: list[Any]) -> None:
        self.batch_sizes.append(len(batch))
        await super()._write(batch)
        if self.lie_next > 0 or (self.lie_batches and len(batch) > 1):
            self.lie_next = max(0, self.lie_next - 1)
            raise dropped()

    async def event_count(self, match_id: int) -> int | None:
        if self.blind:
            raise dropped()
        return await super().event_count(match_id)

    async def load(self, match_id: int, *, with_events: bool = False) -> Any:
        if self.blind:
            raise dropped()
        return await super().load(match_id, with_events=with_events)


@pytest.fixture
async def lying(migrated_db_url: str) -> Any:
    async with hosted(CommitThenFail(migrated_db_url)) as service_store_recorder:
        yield service_store_recorder


async def test_a_move_that_committed_stands_and_the_player_is_told_so(lying: Any) -> None:
    service, store, rec = lying
    mid = await service.create_match("boxes", [A, B])
    store.lie_next = 1
    result = await service.submit(mid, A.id, "A1-B1")
    assert result.status == "accepted"  # the truth: the move is in the database, so it stands
    assert [e.kind for e in result.events][:1] == ["move"] and rec.of("move")
    live = service.get(mid)
    assert live.ply == 1 and live.ruleset.to_move(live.state) == 2
    await assert_logs_replay(service, mid)
    for player, text in [(B, "A1-A2"), (A, "B1-B2")]:  # no sequence clash afterwards
        assert (await service.submit(mid, player.id, text)).status == "accepted"
    await assert_logs_replay(service, mid)


async def test_a_group_commit_that_committed_sticks_no_match(lying: Any) -> None:
    service, store, _rec = lying
    pairs = [(A, B), (C, D), (E, F)]
    mids = [await service.create_match("boxes", list(p)) for p in pairs]
    store.lie_batches = True
    results = await asyncio.gather(*(service.submit(m, p[0].id, "A1-B1") for m, p in zip(mids, pairs, strict=True)))
    assert max(store.batch_sizes) > 1  # they really were written together
    assert [r.status for r in results] == ["accepted"] * 3
    await assert_logs_replay(service, *mids)
    store.lie_batches = False
    later = await asyncio.gather(*(service.submit(m, p[1].id, "A1-A2") for m, p in zip(mids, pairs, strict=True)))
    assert [r.status for r in later] == ["accepted"] * 3
    await assert_logs_replay(service, *mids)


async def test_when_the_database_cannot_say_the_match_is_reloaded_before_its_next_move(lying: Any) -> None:
    service, store, rec = lying
    mid = await service.create_match("boxes", [A, B])
    store.lie_next, store.blind = 1, True
    unsure = await service.submit(mid, A.id, "A1-B1")
    said = wording.reason_text(unsure)
    assert unsure.status == "rejected" and said is not None
    assert "cannot tell yet" in said and "did not happen" not in said
    assert not rec.of("move")  # nothing unconfirmed is announced
    store.blind = False
    retried = await service.submit(mid, A.id, "A1-B1")  # the host first learns that the move stood
    assert rec.of("resumed") and service.get(mid).ply == 1
    assert retried.status == "rejected" and retried.kind == "turn"  # it is bob's turn: the move stood
    await assert_logs_replay(service, mid)
    assert (await service.submit(mid, B.id, "A1-A2")).status == "accepted"
    await assert_logs_replay(service, mid)


async def test_a_move_that_did_not_commit_is_refused_truthfully(lying: Any) -> None:
    service, store, _rec = lying

    async def fail_before(batch: list[Any]) -> None:
        raise dropped()

    mid = await service.create_match("boxes", [A, B])
    original = store._write
    store._write = fail_before  # type: ignore[method-assign]
    refused = await service.submit(mid, A.id, "A1-B1")
    store._write = original  # type: ignore[method-assign]
    assert refused.refusal is not None and refused.refusal.code == "unsaved"
    assert "did not happen" in (wording.reason_text(refused) or "")
    assert (await service.submit(mid, A.id, "A1-B1")).status == "accepted"
    await assert_logs_replay(service, mid)


class CreateThenFail(MatchStore):
    """The real store, whose next match creation commits and then reports an error."""

    lie = False

    async def create_match(self, **kwargs: Any) -> int:
        match_id = await super().create_match(**kwargs)
        if self.lie:
            self.lie = False
            raise dropped()
        return match_id


async def test_a_match_whose_creation_committed_is_hosted(migrated_db_url: str) -> None:
    store = CreateThenFail(migrated_db_url)
    service = MatchService(store)
    await service.start()
    try:
        store.lie = True
        mid = await service.create_match("boxes", [A, B])  # the truth: it exists, so it runs
        assert mid in service.live
        assert (await service.submit(mid, A.id, "A1-B1")).status == "accepted"
        await assert_logs_replay(service, mid)
        assert [m.id for m in await store.unfinished()] == [mid]
    finally:
        await service.close()
        await store.close()
