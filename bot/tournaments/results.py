"""Results: the host's finished matches (the subscriber) and a host's decision; what a result moves on is the
`Advancer`'s. A result that could not be stored is owed (`Owed`) and settled by the catch-up (`Due`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.host.events import EventKind
from bot.host.match import HostEvent
from bot.host.subscribers import after_commit
from bot.tournaments.advance import Advancer
from bot.tournaments.core import TournamentCore
from bot.tournaments.model import TournamentEventKind
from bot.tournaments.recording import Recorder
from bot.tournaments.refusals import RefusalCode, TournamentRefused
from bot.tournaments.rounds import Game, Result
from bot.tournaments.timer import Owed

log = logging.getLogger(__name__)


class Results:
    """Listening to the host, recording its finished matches, and a host's adjudication."""

    def __init__(self, core: TournamentCore, recorder: Recorder, advancer: Advancer, owed: Owed) -> None:
        self.core = core
        self.recorder = recorder
        self.advancer = advancer
        self.owed = owed
        self._listening = False

    def listen(self) -> None:
        """Subscribe to the host's events (before the host resumes matches, so no result is missed)."""
        if not self._listening and self.core.hear is not None:
            self.core.hear(self.on_host_event)
            self._listening = True

    @after_commit(EventKind.FINISHED, batch=True)
    async def on_host_event(self, events: Sequence[HostEvent]) -> None:
        """The host's finished matches, after the commit and off the move path (`bot.host.subscribers`): every
        match finished since the last call; those of a tournament record their results (in one transaction)
        and their tournaments move on. Idempotent: a result already stored is kept, a round already paired is
        not paired again (a second delivery, or the catch-up at the next start, changes nothing)."""
        try:
            tids = await self.recorder.record_matches([ev.match_id for ev in events])
            for tid in tids:
                await self.advancer.advance(tid)
        except Exception:
            log.exception(
                "recording %d finished match(es) in their tournaments failed; the timer catches up", len(events)
            )
            self.owed.owe()

    async def adjudicate(self, tid: int, board: int, result: Result | str, by: str, round_: int | None = None) -> None:
        """The host decides a game: a running match ends with that result; a finished one is overridden."""
        t = await self.core.get(tid)
        try:
            result = Result(result)
        except ValueError:
            raise TournamentRefused(
                RefusalCode.BAD_RESULT, value=str(result), choices=[r.value for r in Result]
            ) from None
        number = round_ or t.round
        games = [g for g in await self.core.games(tid) if g.round == number and isinstance(g.pairing, Game)]
        if not games:
            raise TournamentRefused(RefusalCode.NO_GAMES, round=number, name=t.name)
        same_board = [g for g in games if g.board == board]
        if not same_board:
            raise TournamentRefused(RefusalCode.NO_BOARD, round=number, boards=[g.board for g in games], board=board)
        g = same_board[0]
        if g.match_id and g.match_id in self.core.host.live:
            seat = {Result.WHITE: 1, Result.BLACK: 2, Result.DRAW: None}[result]
            await self.core.host.award(g.match_id, seat, by)  # the finished event records it and moves on
            return
        await self.core.set_result(g.id, result, by)
        await self.core.emit(
            tid, TournamentEventKind.RESULT, {"round": number, "board": board, "result": result.value, "by": by}
        )
        await self.advancer.advance(tid)
