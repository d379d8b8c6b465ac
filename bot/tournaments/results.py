"""Results: the host's finished matches (the subscriber), a host's decision, and what a result moves on (a
rematch, the next round, the end). A result that could not be stored is owed and settled by the timer."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from typing import Any, Final

from sqlalchemy import Row, and_, bindparam, select, update
from sqlalchemy.exc import IntegrityError

from bot.host.events import EventKind
from bot.host.match import HostEvent
from bot.host.subscribers import after_commit
from bot.tournaments.core import TournamentCore
from bot.tournaments.model import FINISHED, RUNNING, Tournament, TournamentEventKind
from bot.tournaments.progress import rematches, round_finished
from bot.tournaments.refusals import RefusalCode, TournamentRefused
from bot.tournaments.rounds import Game, PairingError, Result
from bot.tournaments.tables import GAMES, TOURNAMENTS
from bot.types import MatchStatus

log = logging.getLogger(__name__)

LOOKUP_CHUNK: Final = 500
"""Finished matches looked up in their tournaments' games per query."""
_GAMES_OF: Final = select(GAMES).where(GAMES.c.match_id.in_(bindparam("ids", expanding=True)))
"""Built once: most finished matches are no tournament's, and this look-up runs for every batch of them."""


class Results(TournamentCore):
    """Listening to the host, recording results, adjudicating, advancing and finishing."""

    def listen(self) -> None:
        """Subscribe to the host's events (before the host resumes matches, so no result is missed)."""
        if not self._listening and self.hear is not None:
            self.hear(self.on_host_event)
            self._listening = True

    @after_commit(EventKind.FINISHED, batch=True)
    async def on_host_event(self, events: Sequence[HostEvent]) -> None:
        """The host's finished matches, after the commit and off the move path (`bot.host.subscribers`): every
        match finished since the last call; those of a tournament record their results (in one transaction)
        and their tournaments move on. Idempotent: a result already stored is kept, a round already paired is
        not paired again (a second delivery, or the catch-up at the next start, changes nothing)."""
        try:
            tids = await self._record_matches([ev.match_id for ev in events])
            for tid in tids:
                await self._advance(tid)
        except Exception:
            log.exception(
                "recording %d finished match(es) in their tournaments failed; the timer catches up", len(events)
            )
            self._owe()

    async def settle_owed(self) -> None:
        """When a result could not be stored: catch up (every step is idempotent: a result stored by an
        ambiguous commit is found stored, a round already paired is not paired again)."""
        if self.owed:
            self.owed = False
            try:
                await self.catch_up()
            except Exception:
                self.owed = True
                raise

    async def _record_match(self, match_id: int) -> int | None:
        """Read a finished match's stored record into its tournament game; the tournament's id (None: not ours)."""
        tids = await self._record_matches([match_id])
        return tids[0] if tids else None

    async def _record_matches(self, match_ids: Sequence[int]) -> list[int]:
        """Read finished matches' stored records into their tournament games, in one transaction (one look-up
        for all of them: most finished matches are no tournament's); the tournaments concerned, in order."""
        wanted = list(dict.fromkeys(match_ids))
        rows: list[Row[Any]] = []
        async with self.engine.connect() as conn:
            for start in range(0, len(wanted), LOOKUP_CHUNK):
                chunk = wanted[start : start + LOOKUP_CHUNK]
                rows += (await conn.execute(_GAMES_OF, {"ids": chunk})).all()
        if not rows:
            return []
        results: list[tuple[int, Result]] = []
        for row in rows:
            if row.result is not None:
                continue
            stored = await self.host.store.load(int(row.match_id))
            if stored is None or stored.status != MatchStatus.FINISHED:
                continue
            seat = stored.winner_seat
            results.append((int(row.id), Result.WHITE if seat == 1 else Result.BLACK if seat == 2 else Result.DRAW))
        if results:
            await self._record_results(results)
        order = {m: i for i, m in enumerate(wanted)}
        rows.sort(key=lambda r: order[int(r.match_id)])
        return list(dict.fromkeys(int(r.tournament_id) for r in rows))

    async def adjudicate(self, tid: int, board: int, result: Result | str, by: str, round_: int | None = None) -> None:
        """The host decides a game: a running match ends with that result; a finished one is overridden."""
        t = await self.get(tid)
        try:
            result = Result(result)
        except ValueError:
            raise TournamentRefused(
                RefusalCode.BAD_RESULT, value=str(result), choices=[r.value for r in Result]
            ) from None
        number = round_ or t.round
        games = [g for g in await self.games(tid) if g.round == number and isinstance(g.pairing, Game)]
        if not games:
            raise TournamentRefused(RefusalCode.NO_GAMES, round=number, name=t.name)
        same_board = [g for g in games if g.board == board]
        if not same_board:
            raise TournamentRefused(RefusalCode.NO_BOARD, round=number, boards=[g.board for g in games], board=board)
        g = same_board[0]
        if g.match_id and g.match_id in self.host.live:
            seat = {Result.WHITE: 1, Result.BLACK: 2, Result.DRAW: None}[result]
            await self.host.award(g.match_id, seat, by)  # the finished event records it and moves on
            return
        await self._set_result(g.id, result, by)
        await self._emit(
            tid, TournamentEventKind.RESULT, {"round": number, "board": board, "result": result.value, "by": by}
        )
        await self._advance(tid)

    async def _advance(self, tid: int) -> None:
        """After a result: an elimination tie gets its rematch; a finished round makes the next one (or the end)."""
        async with self._lock(tid):
            t = await self.get(tid)
            if t.status == RUNNING and t.round == 0:  # started, first round never stored: pair it now
                with contextlib.suppress(TournamentRefused):
                    await self._pair_locked(tid)
                t = await self.get(tid)
            if t.status != RUNNING or t.round == 0:
                return
            history = (await self.rounds(tid))[: t.round]
            last = history[-1]
            again = rematches(t.format, history)
            if again:  # a drawn elimination game is replayed at once, colours swapped
                try:
                    async with self.engine.begin() as conn:
                        await self._insert(conn, tid, t.round, len(last) + 1, again, self.wall())
                except IntegrityError:
                    return  # another process added them
                await self._emit(tid, TournamentEventKind.REMATCH, {"round": t.round, "pairings": again})
                await self._due_changed(tid)
            elif round_finished(t.format, last):
                try:
                    await self._pair_locked(tid)
                except TournamentRefused:
                    return  # paired by another process meanwhile
        opening = self._opening.get(tid)
        if opening is not None and opening.locked():
            # A pass over the games runs now (this result may be its own no-show forfeit, heard while it
            # stores it): waiting for it here would wait for ever; the timer makes the next pass.
            await self._due_changed(tid, soon=True)
            return
        await self._open_matches(tid)

    async def _finish(self, t: Tournament, unpaired: PairingError | None = None) -> None:
        """The end: the winner is the table's first; `unpaired`: why the next round could not be paired, if it
        ended early (its `detail` is the pairing core's own reason, as an engine's reason for an illegal move)."""
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == t.id, TOURNAMENTS.c.status == RUNNING))
                .values(status=FINISHED, updated_at=self.wall())
            )
        if done.rowcount != 1:
            return
        table = await self.standings(t.id)
        names = await self.names(t.id)
        winner = table[0].player if table else None
        await self._emit(
            t.id,
            TournamentEventKind.FINISHED,
            {
                "name": t.name,
                "winner": winner,
                "winner_name": names.get(winner or 0),
                "prize": t.prize,
                "unpaired": None if unpaired is None else t.round + 1,
                "detail": None if unpaired is None else str(unpaired),
            },
        )
