"""A write conflict is never reported as committed (#38 item 3): two hosts of one match without a lease (what
the terminal faces were): one writes a move at a place in the log the other has filled. Its write is
not taken as stored (no "were committed" line), it does not go on from the move the database does not
hold (its next action starts from the stored match), and the log still replays to its snapshot."""

from __future__ import annotations

import logging

import pytest

from bot.host.service import Outcome, PlayerRef
from bot.records.agreement import disagreement
from tests.bot.conftest import make_service

ALICE, BOB = PlayerRef("local:alice", "alice"), PlayerRef("local:bob", "bob")


async def test_a_write_conflict_is_never_reported_as_committed(db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    first = await make_service(db_url)
    second = None
    try:
        mid = await first.create_match("boxes", [ALICE, BOB], options={"rows": 1, "cols": 1})
        second = await make_service(db_url)  # resumes the same match: two hosts of it at once
        assert mid in second.live
        caplog.set_level(logging.WARNING)
        # The second host's resumption took the first's next place in the log: the first's move conflicts.
        lost = await first.submit(mid, ALICE.id, "A1-B1")
        assert lost.status is not Outcome.ACCEPTED
        assert "were committed" not in caplog.text
        assert (await second.submit(mid, ALICE.id, "A1-A2")).status is Outcome.ACCEPTED
        # The first host's next action starts from the stored match (A1-A2 played), not from its lost move.
        again = await first.submit(mid, BOB.id, "A2-B2")
        assert again.status is Outcome.ACCEPTED, again
        stored = await first.store.load(mid, with_events=True)
        assert stored is not None
        assert [e.text for e in stored.events if e.kind == "move"] == ["A1-A2", "A2-B2"]
        assert disagreement(stored) is None
    finally:
        for service in (first, second):
            if service is not None:
                await service.close()
                await service.store.close()
