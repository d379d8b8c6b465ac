"""Fault injection on the real database (SQLite and PostgreSQL): a write that fails never leaves a match
ahead of its log. The store underneath is the real one; only its write step can be made to fail."""

from __future__ import annotations

import asyncio
import json
import os
import random
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from bot.host.service import MatchService, PlayerRef
from bot.records.replay import replay_match
from bot.store.matches import MatchStore
from bot.wording import reason_text
from games import registry
from tests.bot.conftest import hosted

A, B = PlayerRef("a", "alice"), PlayerRef("b", "bob")
C, D = PlayerRef("c", "carol"), PlayerRef("d", "dave")
SEEDS = [int(os.environ["DMHOST_TEST_SEED"])] if "DMHOST_TEST_SEED" in os.environ else [3, 17, 2024]
pytestmark = pytest.mark.looptime


class FlakyStore(MatchStore):
    """The real store, whose write step fails on demand: the next N writes, writes holding a poisoned
    match, or every write while the database is away."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.fail_next = 0
        self.poisoned: set[int] = set()
        self.away = False
        self.failures = 0

    async def _write(self, batch: list[Any]) -> None:
        bad = self.away or self.fail_next > 0 or any(p.match_id in self.poisoned for p in batch)
        if bad:
            self.fail_next = max(0, self.fail_next - 1)
            self.failures += 1
            raise OperationalError("INSERT …", {}, ConnectionError("injected: the database did not answer"))
        await super()._write(batch)


@pytest.fixture
async def flaky(migrated_db_url: str) -> Any:
    async with hosted(FlakyStore(migrated_db_url)) as service_store_recorder:
        yield service_store_recorder


async def assert_logs_replay(service: MatchService, *match_ids: int) -> None:
    """Every match's stored log replays to its stored snapshot, and to what the host holds in memory."""
    for mid in match_ids:
        stored = await service.store.load(mid, with_events=True)
        assert stored is not None
        ruleset, frames = replay_match(stored)
        replayed = json.loads(json.dumps(ruleset.to_json(frames[-1].state)))
        assert replayed == json.loads(json.dumps(stored.snapshot["state"])), f"match {mid}: log ≠ snapshot"
        assert stored.snapshot["ply"] == frames[-1].ply, f"match {mid}"
        assert stored.event_count == len(stored.events)
        live = service.live.get(mid)
        if live is not None:
            assert json.loads(json.dumps(ruleset.to_json(live.state))) == replayed, f"match {mid}: memory ≠ log"
            assert live.seq == stored.event_count


async def test_a_failed_commit_rolls_the_move_back_and_refuses_it_alone(flaky: Any) -> None:
    service, store, rec = flaky
    mid = await service.create_match("boxes", [A, B])
    assert (await service.submit(mid, A.id, "A1-B1")).status == "accepted"
    moves_before = len(rec.of("move"))
    store.fail_next = 1
    refused = await service.submit(mid, B.id, "A1-A2")
    assert refused.status == "rejected" and refused.kind == "error" and "post it again" in (reason_text(refused) or "")
    live = service.get(mid)
    assert live.ply == 1 and live.ruleset.to_move(live.state) == 2 and live.clocks.running == 2
    assert len(rec.of("move")) == moves_before  # nothing unsaved is announced
    await assert_logs_replay(service, mid)
    assert (await service.submit(mid, B.id, "A1-A2")).status == "accepted"
    await assert_logs_replay(service, mid)


async def test_one_poisoned_match_does_not_fail_the_others_in_its_batch(flaky: Any) -> None:
    service, store, _rec = flaky
    m1 = await service.create_match("boxes", [A, B])
    m2 = await service.create_match("boxes", [C, D])
    store.poisoned.add(m1)
    r1, r2 = await asyncio.gather(service.submit(m1, A.id, "A1-B1"), service.submit(m2, C.id, "A1-B1"))
    assert r1.status == "rejected" and r1.kind == "error"
    assert r2.status == "accepted"
    assert service.get(m1).ply == 0 and service.get(m2).ply == 1
    await assert_logs_replay(service, m1, m2)


async def test_what_players_type_is_stored_safely(flaky: Any) -> None:
    service, _store, _rec = flaky
    m1 = await service.create_match("boxes", [A, B])
    m2 = await service.create_match("boxes", [C, D])
    odd, legal = await asyncio.gather(service.submit(m1, A.id, "A1\udcff"), service.submit(m2, C.id, "A1-B1"))
    assert odd.status == "rejected" and odd.kind == "syntax"
    assert legal.status == "accepted"
    stored = await service.store.load(m1, with_events=True)
    assert stored is not None and stored.events[-1].text == "A1\ufffd"
    await assert_logs_replay(service, m1, m2)


async def test_a_host_action_that_cannot_be_saved_is_refused(flaky: Any) -> None:
    from bot.host.service import HostError
    from bot.wording import error_text

    service, store, _rec = flaky
    mid = await service.create_match("boxes", [A, B])
    store.fail_next = 1
    with pytest.raises(HostError) as refused:
        await service.pause(mid, "host")
    assert "could not save" in error_text(refused.value)
    assert service.get(mid).status == "ongoing" and not service.get(mid).clocks.paused
    await assert_logs_replay(service, mid)


async def test_the_database_away_for_a_while(flaky: Any) -> None:
    service, store, rec = flaky
    mid = await service.create_match("boxes", [A, B], clock={"move": 10, "reserve": 20})
    assert (await service.submit(mid, A.id, "A1-B1")).status == "accepted"
    store.away = True
    t0 = asyncio.get_running_loop().time()
    assert (await service.submit(mid, B.id, "A1-A2")).kind == "error"
    await asyncio.sleep(60)  # bob's time runs out while nothing can be saved: the loss is retried
    assert not rec.of("finished") and store.failures > 10
    store.away = False
    back = asyncio.get_running_loop().time()
    ev = await rec.wait("finished")
    assert ev.data["winner"] == 1 and ev.data["reason"] == "time"
    assert rec.of("finished")[0][0] - back <= 1.05  # judged within a second of the database coming back
    assert back - t0 >= 60
    await assert_logs_replay(service, mid)


@pytest.mark.parametrize("seed", SEEDS)
async def test_any_sequence_of_faults_keeps_every_log_replayable(flaky: Any, seed: int) -> None:
    service, store, _rec = flaky
    rng = random.Random(seed)
    players = [(A, B), (C, D), (B, C)]
    games = ["boxes", "trax", "dots"]
    mids = []
    for (p1, p2), game in zip(players, games, strict=True):
        opts = {"width": 6, "height": 6, "start": "empty"} if game == "dots" else {}
        mids.append(await service.create_match(game, [p1, p2], options=opts, rules={"takeback": 1, "mulligan": 1}))
    for step in range(60):
        store.fail_next = 1 if rng.random() < 0.2 else 0
        store.poisoned = {rng.choice(mids)} if rng.random() < 0.2 else set()
        store.away = rng.random() < 0.1
        actions = []
        for mid in mids:
            live = service.live.get(mid)
            if live is None:
                continue
            seat = live.ruleset.to_move(live.state) or 1
            who = live.players[seat]
            roll = rng.random()
            if roll < 0.1:
                text = rng.choice(["take back", "mulligan", "A1\udcff", "Z99-Z98", "stop"])
            else:
                moves = live.ruleset.legal_moves(live.state)
                text = live.ruleset.format(live.state, rng.choice(moves)) if moves else "resign"
            actions.append(service.submit(mid, who.id, text))
        results = await asyncio.gather(*actions, return_exceptions=True)
        assert not [r for r in results if isinstance(r, BaseException)], (seed, step, results)
        await asyncio.sleep(rng.choice([0.1, 0.5, 1.2]))
    assert store.failures > 0
    store.fail_next, store.poisoned, store.away = 0, set(), False
    await asyncio.sleep(3)
    try:
        await assert_logs_replay(service, *mids)
    except AssertionError:
        print(f"seed {seed}")
        raise


def test_the_games_used_are_registered() -> None:
    for game in ("boxes", "trax", "dots"):
        assert registry.get(game).id == game


async def test_a_resume_that_cannot_be_saved_leaves_the_match_for_the_next_start(migrated_db_url: str) -> None:
    first = MatchService(MatchStore(migrated_db_url))
    await first.start()
    mid = await first.create_match("boxes", [A, B])
    assert (await first.submit(mid, A.id, "A1-B1")).status == "accepted"
    await first.close()
    await first.store.close()
    store = FlakyStore(migrated_db_url)
    store.fail_next = 1
    second = MatchService(store)
    try:
        assert await second.start() == [] and mid not in second.live
    finally:
        await second.close()
        await store.close()
    third = MatchService(MatchStore(migrated_db_url))
    try:
        assert await third.start() == [mid] and third.get(mid).ply == 1
        await assert_logs_replay(third, mid)
    finally:
        await third.close()
        await third.store.close()
