"""The practice opponent behind `/dm practice`: the full one (`bot.adapters.practice`, every game) when this build
has it, else a small Dots-and-Boxes driver on the solver's `choose_move` (easy, medium, perfect)."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

from bot.host.service import HostEvent, MatchService

log = logging.getLogger(__name__)

BOXES_LEVELS = ("easy", "medium", "perfect")
BUDGET_SECONDS = 1.0


def levels(game: str) -> tuple[str, ...]:
    """The levels the practice opponent plays `game` at (empty: no opponent for this game)."""
    try:
        from games.opponents import LEVELS  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        return BOXES_LEVELS if game == "boxes" else ()
    return tuple(LEVELS.get(game, ()))


def check_level(game: str, level: str) -> str:
    """The level in canonical form, or a ValueError that names the levels of `game`."""
    try:
        from games.opponents import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
            check_level as full_check,
        )
    except ImportError:
        key = level.strip().lower()
        known = levels(game)
        if not known:
            raise ValueError(f"there is no practice opponent for {game} yet; there is one for boxes") from None
        if key not in known:
            raise ValueError(f"unknown level {level!r} for {game}; levels: {', '.join(known)}") from None
        return key
    checked: str = full_check(game, level)
    return checked


def opponent(service: MatchService, player_id: str) -> Any:
    """The practice opponent playing as `player_id` (`watch(match_id, level)`, `close()`)."""
    try:
        from bot.adapters.practice import PracticeBot  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        return BoxesOpponent(service, player_id)
    return PracticeBot(service, player_id=player_id)


class BoxesOpponent:
    """Plays its seat of the Dots-and-Boxes matches it watches with the solver's `choose_move`."""

    def __init__(self, service: MatchService, player_id: str, budget_seconds: float = BUDGET_SECONDS) -> None:
        self.service = service
        self.player_id = player_id
        self.budget = budget_seconds
        self.levels: dict[int, str] = {}
        self.tasks: dict[int, asyncio.Task[None]] = {}
        service.subscribe(self._on_event)

    def watch(self, match_id: int, level: str) -> None:
        """Play in `match_id` at `level` from now on (at once if it is the opponent's turn)."""
        self.levels[match_id] = check_level("boxes", level)
        self._poke(match_id)

    async def close(self) -> None:
        """Stop thinking."""
        self.levels.clear()
        for task in self.tasks.values():
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)

    def _on_event(self, ev: HostEvent) -> None:
        if ev.kind in ("finished", "aborted"):
            self.levels.pop(ev.match_id, None)
        elif ev.match_id in self.levels:
            self._poke(ev.match_id)

    def _poke(self, match_id: int) -> None:
        task = self.tasks.get(match_id)
        if task is None or task.done():
            self.tasks[match_id] = asyncio.get_running_loop().create_task(self._play(match_id))

    async def _play(self, match_id: int) -> None:
        from games.solver import choose_move

        try:
            while match_id in self.levels:
                live = self.service.live.get(match_id)
                if live is None or live.status != "ongoing":
                    return
                seat = live.ruleset.to_move(live.state)
                if seat is None or live.players[seat].id != self.player_id:
                    return
                state = live.state
                edge = await asyncio.to_thread(
                    choose_move, state, self.levels[match_id], random.Random(match_id + live.ply), self.budget
                )
                if self.service.live.get(match_id) is not live or live.state is not state:
                    continue  # the position changed while thinking
                text = live.ruleset.format(state, edge)
                result = await self.service.submit(match_id, self.player_id, text)
                if result.status != "accepted":
                    log.warning("practice move %s in match %s refused: %s", text, match_id, result.reason)
                    return
        except Exception:  # a bug in the opponent must not take the host down
            log.exception("the practice opponent failed in match %s", match_id)
