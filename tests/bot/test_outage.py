"""The one retry policy (`bot.outage`): back-off doubling with jitter up to its cap, an outage said once by the
whole process however many loops fail, its end said once, and a bug's traceback once."""

from __future__ import annotations

import logging

from sqlalchemy.exc import OperationalError

from bot.outage import Retry, _Outage
from tests import heard


def _down() -> OperationalError:
    return OperationalError("SELECT 1", {}, ConnectionRefusedError(111, "Connection refused"))


def test_the_wait_doubles_with_jitter_up_to_the_cap() -> None:
    low = Retry("loop", first=0.5, most=4.0, rand=lambda: 0.0, outage=_Outage())
    high = Retry("loop", first=0.5, most=4.0, rand=lambda: 1.0, outage=_Outage())
    assert [low.failed(_down()) for _ in range(6)] == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    assert [high.failed(_down()) for _ in range(6)] == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    high.ok()
    assert high.failed(_down()) == 0.5  # a success starts the back-off again


def test_an_outage_is_one_warning_and_one_line_for_every_loop() -> None:
    now = [100.0]
    outage = _Outage(clock=lambda: now[0])
    loops = [Retry(name, outage=outage) for name in ("the heartbeat", "the jobs runner", "renewing the leases")]
    with heard("dmhost.outage") as records:
        for _ in range(20):
            for loop in loops:
                loop.failed(_down())
            now[0] += 0.4
        loops[1].ok()
        loops[0].ok()
        loops[2].ok()
    said = [r for r in records if r.levelno >= logging.WARNING]
    assert [r.getMessage().split(" (")[0] for r in said] == [
        "the database does not answer",
        "the database answers again",
    ]
    assert "after 8.0 s and 60 failed attempt(s)" in said[1].getMessage()
    assert all(r.exc_info is None for r in records)


def test_a_bug_keeps_its_traceback_once_an_outage() -> None:
    outage = _Outage()
    loop = Retry("the jobs runner", outage=outage)
    with heard("dmhost.outage") as records:
        for _ in range(5):
            loop.failed(KeyError("a bug"))
        loop.ok()
    errors = [r for r in records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is not None
    assert not any("database" in r.getMessage() for r in records)
