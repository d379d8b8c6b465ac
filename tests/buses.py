"""The root's bus for a service a test builds without the root (`bot.compose.bus_of`), and the feature cores'
way onto it (`following`: the stage the root subscribes the cores at)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from bot.compose import Bus, Stage, bus_of
from bot.host.service import MatchService

__all__ = ["bus_of", "following", "hear"]


def following(service: MatchService) -> Callable[[Any], None]:
    """Subscribe a feature core (series, tournaments) to `service`'s bus at `Stage.FOLLOW`, as the root does."""
    return functools.partial(bus_of(service).subscribe, stage=Stage.FOLLOW)


def hear(service: MatchService, listener: Any, stage: Stage = Stage.TELL) -> Bus:
    """Subscribe `listener` to `service`'s bus (made now if the service has none); the bus."""
    bus = bus_of(service)
    bus.subscribe(listener, stage)
    return bus
