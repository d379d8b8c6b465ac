"""What a result moves on: an elimination tie's rematch, the next round (or the end), then the games due to
open; and a tournament's catch-up (results nobody heard, matches still to open). Every step is idempotent: a
result already stored is kept, a round already paired is not paired again."""

from __future__ import annotations

import contextlib

from sqlalchemy.exc import IntegrityError

from bot.tournaments.core import TournamentCore
from bot.tournaments.model import RUNNING, TournamentEventKind
from bot.tournaments.opening import Opening
from bot.tournaments.pairer import Pairer
from bot.tournaments.progress import rematches, round_finished
from bot.tournaments.recording import Recorder
from bot.tournaments.refusals import TournamentRefused
from bot.tournaments.rounds import Game
from bot.tournaments.timer import Timer


class Advancer:
    """Moves a tournament on after a result, and opens what is due."""

    def __init__(
        self, core: TournamentCore, recorder: Recorder, pairer: Pairer, opening: Opening, timer: Timer
    ) -> None:
        self.core = core
        self.recorder = recorder
        self.pairer = pairer
        self.opening = opening
        self.timer = timer

    async def advance(self, tid: int) -> None:
        """After a result: an elimination tie gets its rematch; a finished round makes the next one (or the end)."""
        core = self.core
        async with core.lock(tid):
            t = await core.get(tid)
            if t.status == RUNNING and t.round == 0:  # started, first round never stored: pair it now
                with contextlib.suppress(TournamentRefused):
                    await self.pairer.pair_locked(tid)
                t = await core.get(tid)
            if t.status != RUNNING or t.round == 0:
                return
            history = (await core.rounds(tid))[: t.round]
            last = history[-1]
            again = rematches(t.format, history)
            if again:  # a drawn elimination game is replayed at once, colours swapped
                try:
                    async with core.engine.begin() as conn:
                        await core.insert(conn, tid, t.round, len(last) + 1, again, core.wall())
                except IntegrityError:
                    return  # another process added them
                await core.emit(tid, TournamentEventKind.REMATCH, {"round": t.round, "pairings": again})
                await self.timer.changed(tid)
            elif round_finished(t.format, last):
                try:
                    await self.pairer.pair_locked(tid)
                except TournamentRefused:
                    return  # paired by another process meanwhile
        if self.opening.busy(tid):
            # A pass over the games runs now (this result may be its own no-show forfeit, heard while it
            # stores it): waiting for it here would wait for ever; the timer makes the next pass.
            await self.timer.changed(tid, soon=True)
            return
        await self.open_matches(tid)

    async def open_matches(self, tid: int) -> None:
        """Open (or rule) every game of the round that is due (`Opening.open`); a game ruled moves it on."""
        if await self.opening.open(tid):
            await self.advance(tid)

    async def catch_up(self, tid: int) -> None:
        """Results of matches that ended while no process listened, then matches still to open, then advance."""
        for g in await self.core.games(tid):
            if isinstance(g.pairing, Game) and g.pairing.result is None and g.match_id:
                await self.recorder.record_match(g.match_id)
        await self.open_matches(tid)
        await self.advance(tid)
