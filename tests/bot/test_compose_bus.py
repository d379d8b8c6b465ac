"""The composition root's bus: every stored host event reaches the subscribers in the root's stage order
(ratings, then the faces, then the cores that move things on), whatever order they subscribed in, and a
subscriber that fails keeps no other from hearing it."""

from __future__ import annotations

import logging

import pytest

from bot.compose import Stage, build_host
from bot.host.events import Listener
from bot.host.service import HostEvent, PlayerRef


async def test_stages_order_the_subscribers_and_a_failure_stops_nobody(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    host = build_host(sqlite_url)
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
