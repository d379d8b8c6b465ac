"""The composition root's bus: every stored host event reaches the subscribers in the root's stage order
(ratings, then the faces, then the cores that move things on), whatever order they subscribed in, and a
subscriber that fails keeps no other from hearing it."""

from __future__ import annotations

import logging
import re

import pytest

from bot.compose import Stage, build_host, build_scheduler, build_tournaments
from bot.host.events import Listener
from bot.host.service import HostEvent, PlayerRef
from bot.schedule import ScheduleEvent
from bot.tournaments.service import TournamentEvent
from tests import ROOT


async def test_stages_order_the_subscribers_and_a_failure_stops_nobody(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    host = build_host(sqlite_url)
    assert host.service.outlet is host.bus  # the service keeps no listeners: it hands its events to the root's bus
    heard: list[tuple[str, str]] = []

    def listener(name: str, *, fail: bool = False) -> Listener:
        async def hear(ev: HostEvent) -> None:
            heard.append((name, ev.kind))
            if fail:
                raise RuntimeError(f"{name} fails")

        return hear

    host.bus.subscribe(listener("follow"), Stage.FOLLOW)
    host.bus.subscribe(listener("face", fail=True))
    host.bus.subscribe(listener("record"), Stage.RECORD)
    host.bus.subscribe(listener("second face"), Stage.TELL)
    bus_log = logging.getLogger("bot.compose")  # heard directly: another test may have stopped propagation
    bus_log.addHandler(caplog.handler)
    was_disabled, bus_log.disabled = bus_log.disabled, False
    caplog.set_level(logging.ERROR, logger="bot.compose")
    await host.service.start()
    try:
        await host.service.create_match("boxes", [PlayerRef("1", "ann"), PlayerRef("2", "bo")])
        started = [name for name, kind in heard if kind == "started"]
        assert started == ["record", "face", "second face", "follow"]
        assert "face fails" in caplog.text
        stages = [stage for stage, _listener in host.bus.listeners()]
        assert stages == sorted(stages) and stages[0] == Stage.RECORD  # the ratings hear first
        assert host.bus.listeners()[0][1] == host.ratings.on_finished
    finally:
        bus_log.removeHandler(caplog.handler)
        bus_log.disabled = was_disabled
        await host.close()


async def test_an_unsubscribed_face_hears_nothing_more(sqlite_url: str) -> None:
    host = build_host(sqlite_url)
    heard: list[str] = []

    def face(ev: HostEvent) -> None:
        heard.append(ev.kind)

    host.bus.subscribe(face)
    await host.service.start()
    try:
        players = [PlayerRef("1", "ann"), PlayerRef("2", "bo")]
        await host.service.create_match("boxes", players)
        assert "started" in heard
        host.bus.unsubscribe(face)
        heard.clear()
        await host.service.create_match("boxes", players)
        assert heard == []
    finally:
        await host.close()


async def test_the_cores_publish_through_the_bus_and_keep_no_subscribers(sqlite_url: str) -> None:
    # Series, tournaments and schedules tell their news to the root's bus (`publish`); faces hear it by its
    # type, each in the order they subscribed, and a failing one stops nobody.
    host = build_host(sqlite_url)
    try:
        tournaments = build_tournaments(host)
        scheduler = build_scheduler(host, poll_seconds=None)
        assert tournaments.publish == host.bus.tell and scheduler.publish == host.bus.tell
        heard: list[str] = []

        def fails(ev: TournamentEvent) -> None:
            raise RuntimeError("a face fails")

        host.bus.subscribe(fails, topic=TournamentEvent)
        host.bus.subscribe(lambda ev: heard.append(f"tournament {ev.kind}"), topic=TournamentEvent)
        host.bus.subscribe(lambda ev: heard.append(f"schedule {ev.kind}"), topic=ScheduleEvent)
        host.bus.subscribe(lambda ev: heard.append(f"host {ev.kind}"))
        await host.service.start()
        tid = await tournaments.create("cup", "boxes", "swiss", rounds=1, by="test")
        await tournaments.join(tid, "ann", "ann")
        assert heard and all(line.startswith("tournament ") for line in heard)
        assert [stage for stage, _ in host.bus.listeners(TournamentEvent)] == [Stage.TELL, Stage.TELL]
    finally:
        await host.close()


def test_one_subscribe_in_bot() -> None:
    # The listener lists of bot/: the bus alone (the host service publishes to it, its `outlet`).
    found = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "bot").rglob("*.py")
        if re.search(r"^\s+def subscribe\(", path.read_text(), re.M)
    )
    assert found == ["bot/compose.py"]
