"""The practice opponent at the table: plays the bot's seat of hosted matches through the service.

`PracticeBot` listens to the host's events; whenever one of its matches needs something from it
(its turn, a Dot Dash colour choice or Pathing penalty pick, a Trax mulligan decision, the
advantage choice of who starts) it thinks in a worker thread (`games.opponents`, pure) and answers
through `MatchService.submit`, exactly as a player would. The terminal room and Discord's
`/dm practice` both use it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
from dataclasses import dataclass, field
from typing import Any

from bot.compose import Bus, Stage
from bot.host import rules
from bot.host.events import EventKind, RefusalKind
from bot.host.service import HostEvent, MatchService, Outcome
from bot.types import MatchStatus
from games.opponents import NoMoveError, check_level, pick

log = logging.getLogger(__name__)

BOT_ID = "local:dmhost-bot"
DEFAULT_BUDGET_SECONDS = 1.0
BUDGET_ENV = "DMHOST_BOT_BUDGET"
"""Seconds the bot may think per move (tests and slow machines set it lower)."""


def budget_from_env(default: float = DEFAULT_BUDGET_SECONDS) -> float:
    """The thinking budget from `DMHOST_BOT_BUDGET`, or `default` when unset or unreadable."""
    raw = os.environ.get(BUDGET_ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value > 0 else default


@dataclass
class _Seat:
    """What the bot remembers about one match."""

    level: str
    rng: random.Random
    last: tuple[Any, Any] | None = None
    """(state before, move) of the bot's latest move, to avoid it again after its own mulligan."""
    avoid: list[tuple[Any, Any]] = field(default_factory=list)
    undo_used: bool = False
    """It took a move back in this match (a mulligan): it does so once."""


class PracticeBot:
    """Plays the seat of `player_id` in the matches it is told about (or in every match, with a
    default level). It hears the host's events on `bus`, the root's bus its face was handed (`Host.bus`,
    `App.bus`), inline at `Stage.FOLLOW`."""

    def __init__(
        self,
        service: MatchService,
        default_level: str | None = None,
        *,
        bus: Bus,
        player_id: str = BOT_ID,
        budget_seconds: float | None = None,
        seed: int | None = None,
        nodes: int | None = None,
    ) -> None:
        self.service = service
        self.default_level = default_level
        self.player_id = player_id
        self.budget = budget_from_env() if budget_seconds is None else budget_seconds
        self.nodes = nodes
        """A work budget per move (positions searched) instead of `budget` seconds: the same moves on
        any machine (tests set it)."""
        self.seed = seed
        self.seats: dict[int, _Seat] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._duties: set[asyncio.Task[None]] = set()
        bus.subscribe(self._on_event, Stage.FOLLOW)  # inline, after the faces

    def watch(self, match_id: int, level: str) -> None:
        """Play the bot's seat of `match_id` at `level` from now on (and act at once if it is due)."""
        live = self.service.live.get(match_id)
        if live is not None:
            level = check_level(live.ruleset.id, level)
        self.seats[match_id] = _Seat(level, random.Random(self.seed if self.seed is not None else match_id))
        self.service.played_by_machine(match_id, self.player_id)  # its moves are final at once
        self._poke(match_id)

    async def close(self) -> None:
        """Stop thinking: cancel every answer in progress."""
        self.seats.clear()
        tasks = [*self._tasks.values(), *self._duties]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def wait_idle(self) -> None:
        """Wait until no answer is being worked out (for tests and shutdown)."""
        while self._tasks or self._duties:
            await asyncio.gather(*self._tasks.values(), *self._duties, return_exceptions=True)

    # -- events --------------------------------------------------------------------
    async def _on_event(self, ev: HostEvent) -> None:
        # Listeners run inside the match's lock: only schedule work here.
        if ev.kind in (EventKind.FINISHED, EventKind.ABORTED):
            self.seats.pop(ev.match_id, None)
            return
        seat = self._seat(ev.match_id)
        if seat is None:
            return
        turn = rules.PracticeTurn(self.player_id, self._is_me(ev.match_id, ev.seat), self._may_undo(seat))
        answer = rules.practice(ev.kind, ev.data, turn)  # what a rule's event asks of it, as the rule says
        if answer is not None:
            self._spawn(ev.match_id, answer)
        else:
            self._poke(ev.match_id)

    def _seat(self, match_id: int) -> _Seat | None:
        seat = self.seats.get(match_id)
        if seat is not None:
            return seat
        live = self.service.live.get(match_id)
        if self.default_level is None or live is None:
            return None
        if not any(p.id == self.player_id for p in live.players.values()):
            return None
        level = check_level(live.ruleset.id, self.default_level)
        seat = _Seat(level, random.Random(self.seed if self.seed is not None else match_id))
        self.seats[match_id] = seat
        self.service.played_by_machine(match_id, self.player_id)  # its moves are final at once
        return seat

    def _is_me(self, match_id: int, seat_no: int | None) -> bool:
        live = self.service.live.get(match_id)
        return live is not None and seat_no in live.players and live.players[seat_no].id == self.player_id

    @staticmethod
    def _may_undo(seat: _Seat) -> bool:
        """The searching levels take their latest move back once (and then avoid the move that lost)."""
        return seat.level in ("medium", "hard") and not seat.undo_used and seat.last is not None

    def _spawn(self, match_id: int, answer: rules.PracticeAnswer) -> None:
        task = asyncio.get_running_loop().create_task(self._say(match_id, answer))
        self._duties.add(task)
        task.add_done_callback(self._duties.discard)

    async def _say(self, match_id: int, answer: rules.PracticeAnswer) -> None:
        seat = self.seats.get(match_id)
        result = await self.service.submit(match_id, self.player_id, answer.say)
        if answer.undoes_last and seat is not None:
            seat.undo_used = True
            if result.status == Outcome.ACCEPTED and seat.last is not None:
                seat.avoid.append(seat.last)
            elif answer.otherwise is not None:
                await self.service.submit(match_id, self.player_id, answer.otherwise)
        self._poke(match_id)

    def _poke(self, match_id: int) -> None:
        """Make sure the bot looks at this match again soon."""
        task = self._tasks.get(match_id)
        if task is not None and not task.done():
            self._again.add(match_id)
            return
        self._tasks[match_id] = asyncio.get_running_loop().create_task(self._run(match_id))

    async def _run(self, match_id: int) -> None:
        try:
            while True:
                self._again.discard(match_id)
                moved = await self._act(match_id)
                if not moved and match_id not in self._again:
                    break
        except Exception:  # a bug in the bot must not take the host down with it
            log.exception("practice bot failed in match %s", match_id)
        finally:
            self._tasks.pop(match_id, None)

    async def _act(self, match_id: int) -> bool:
        """Play one move if it is the bot's turn; whether a move was accepted."""
        seat = self.seats.get(match_id) or self._seat(match_id)
        live = self.service.live.get(match_id)
        if seat is None or live is None or live.status != MatchStatus.ONGOING:
            return False
        ruleset, state = live.ruleset, live.state
        to_move = ruleset.to_move(state)
        if to_move is None or live.players[to_move].id != self.player_id:
            return False
        avoid = [move for before, move in seat.avoid if before == state]
        try:
            move = await asyncio.to_thread(
                pick, ruleset, state, seat.level, seat.rng, self.budget, avoid, nodes=self.nodes
            )
        except NoMoveError:
            return False
        text = ruleset.format(state, move)
        current = self.service.live.get(match_id)
        if current is None or current.state is not state:
            return True  # the position changed while thinking (a rewind, a timeout): look again
        result = await self.service.submit(match_id, self.player_id, text)
        if result.status == Outcome.REJECTED and result.kind == RefusalKind.CONFIRM:
            result = await self.service.submit(match_id, self.player_id, "confirm")
        if result.status == Outcome.ACCEPTED:
            seat.last = (state, move)
            return True
        log.info("practice bot move %s in match %s not accepted: %s", text, match_id, result.reason)
        return False
