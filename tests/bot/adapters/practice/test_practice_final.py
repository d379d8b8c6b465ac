"""The practice opponent's moves are final at once (issue 28, point 5): no take-back window for its own moves, in
the host itself, also after a restart; its opponent's moves keep theirs. Dots' `stop` is flagged for confirmation."""

from __future__ import annotations

import asyncio

import pytest

from bot.host.service import PlayerRef
from tests.bot.conftest import make_service

ALICE, MACHINE = PlayerRef("a", "alice"), PlayerRef("local:dmhost-bot", "dmhost (easy)")


@pytest.mark.looptime
async def test_the_machines_moves_are_final_at_once_also_after_a_restart(migrated_sqlite_url: str) -> None:
    s1 = await make_service(migrated_sqlite_url)
    try:
        # Trax: moves are provisional for 5 s by default
        mid = await s1.create_match("trax", [MACHINE, ALICE], practice=True, machine=MACHINE.id, rated=False)
        live = s1.get(mid)
        assert live.machine == 1
        assert (await s1.submit(mid, MACHINE.id, "@0+")).status == "accepted"
        assert live.provisional() is None, "the machine's move is final at once"
        assert (await s1.submit(mid, ALICE.id, "@1+")).status == "accepted", "alice replies at once"
        assert live.provisional() is not None, "alice's own move keeps its window"
    finally:
        await s1.close()
    s2 = await make_service(migrated_sqlite_url)
    try:
        live2 = s2.get(mid)
        assert live2.machine == 1, "the machine's seat is in the snapshot"
        await asyncio.sleep(6)  # alice's window closes
        assert live2.provisional() is None and live2.to_move() == 1
        assert (await s2.submit(mid, MACHINE.id, "B0/")).status == "accepted"
        assert live2.provisional() is None, "still final at once after the restart"
    finally:
        await s2.close()
        await s2.store.close()


async def test_grave_texts(migrated_sqlite_url: str) -> None:
    service = await make_service(migrated_sqlite_url)
    try:
        mid = await service.create_match("dots", [ALICE, MACHINE], options={"width": 8, "height": 8})
        assert service.grave(mid, ALICE.id, "ground") is not None
        grave = service.grave(mid, ALICE.id, " Stop ")
        assert grave is not None and (grave.action, grave.text, grave.seat, grave.ply) == ("move", "stop", 1, 0)
        assert service.grave(mid, MACHINE.id, "stop") is None, "out of turn: refused as usual, nothing to confirm"
        assert service.grave(mid, ALICE.id, "stop?") is None
        assert service.grave(mid, ALICE.id, "A1") is None
        assert service.grave(mid, "stranger", "resign") is None
        resign = service.grave(mid, MACHINE.id, "I resign!")
        assert resign is not None and (resign.action, resign.text, resign.seat) == ("resign", "resign", 2)
        assert service.grave(mid, MACHINE.id, "resign?") is None
        assert (await service.resign(mid, MACHINE.id)).status == "accepted"
        assert service.grave(mid, ALICE.id, "resign") is None, "the match is over"
    finally:
        await service.close()
        await service.store.close()
