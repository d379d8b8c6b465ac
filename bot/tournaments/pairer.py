"""Pairing a tournament's next round exactly once, even from two processes (the round number is claimed by a
conditional UPDATE in the transaction that writes its games), and the end when no round is left to pair."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import and_, update

from bot.tournaments.core import TournamentCore
from bot.tournaments.model import FINISHED, MISSED_WITHDRAW, RUNNING, Entry, Tournament, TournamentEventKind
from bot.tournaments.progress import next_round, round_finished
from bot.tournaments.refusals import RefusalCode, TournamentRefused
from bot.tournaments.rounds import Game, PairingError
from bot.tournaments.tables import ENTRIES, TOURNAMENTS
from bot.tournaments.timer import Timer


class Finisher:
    """The end of a tournament: finished, its winner the table's first."""

    def __init__(self, core: TournamentCore) -> None:
        self.core = core

    async def finish(self, t: Tournament, unpaired: PairingError | None = None) -> None:
        """The end: the winner is the table's first; `unpaired`: why the next round could not be paired, if it
        ended early (its `detail` is the pairing core's own reason, as an engine's reason for an illegal move)."""
        async with self.core.engine.begin() as conn:
            done = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == t.id, TOURNAMENTS.c.status == RUNNING))
                .values(status=FINISHED, updated_at=self.core.wall())
            )
        if done.rowcount != 1:
            return
        table = await self.core.standings(t.id)
        names = await self.core.names(t.id)
        winner = table[0].player if table else None
        await self.core.emit(
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


class Pairer:
    """The next round of a running tournament (or its end), paired once."""

    def __init__(self, core: TournamentCore, timer: Timer, finisher: Finisher) -> None:
        self.core = core
        self.timer = timer
        self.finisher = finisher

    async def pair_locked(self, tid: int) -> int:
        """Pair the next round, the caller holding the tournament's lock (`core.lock`); returns its number (the
        last round's, when the tournament ended instead)."""
        core = self.core
        t = await core.get(tid)
        if t.status != RUNNING:
            raise TournamentRefused(RefusalCode.NOT_RUNNING, name=t.name, status=t.status)
        history = await core.rounds(tid)
        history = history[: t.round]
        if t.round and not round_finished(t.format, history[-1]):
            unfinished = sum(isinstance(p, Game) and p.result is None for p in history[-1])
            raise TournamentRefused(RefusalCode.ROUND_UNFINISHED, round=t.round, games=unfinished)
        entries = await self._withdraw_missed(t, await core.entries(tid))
        active = [s for s in t.seeds if not any(e.id == s and e.withdrawn for e in entries)]
        try:
            pairings = next_round(t.format, t.seeds, active, history, t.rounds or 0, t.bye_points)
        except PairingError as exc:
            await self.finisher.finish(t, unpaired=exc)
            return t.round
        if pairings is None:
            await self.finisher.finish(t)
            return t.round
        number = t.round + 1
        async with core.engine.begin() as conn:
            claimed = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.round == t.round, TOURNAMENTS.c.status == RUNNING))
                .values(round=number, updated_at=core.wall())
            )
            if claimed.rowcount != 1:
                raise TournamentRefused(RefusalCode.ALREADY_PAIRED, round=number, name=t.name)
            starts = self._round_start(t, number)
            await core.insert(conn, tid, number, 1, pairings, starts)
        await core.emit(tid, TournamentEventKind.ROUND, {"round": number, "pairings": pairings, "starts_at": starts})
        await self.timer.changed(tid)  # the timer learns the round's start and no-show times
        await self.timer.round_reminders(tid, number, starts)
        return number

    async def _withdraw_missed(self, t: Tournament, entries: list[Entry]) -> list[Entry]:
        """Under `missed:withdraw` (lichess's rule), before a round is paired: each player who missed a game
        and did not confirm they play on is withdrawn (between rounds: nothing is forfeited). The entries
        as they stand then."""
        missed = [e for e in entries if e.missed_round is not None and not e.withdrawn]
        if t.missed != MISSED_WITHDRAW or not missed:
            return entries
        now = self.core.wall()
        for e in missed:
            async with self.core.engine.begin() as conn:
                done = await conn.execute(
                    update(ENTRIES)
                    .where(and_(ENTRIES.c.id == e.id, ENTRIES.c.withdrawn_at.is_(None)))
                    .values(withdrawn_at=now)
                )
            if done.rowcount == 1:
                data = {"player": e.player_id, "name": e.name, "by": None, "round": t.round, "missed": e.missed_round}
                await self.core.emit(t.id, TournamentEventKind.WITHDRAWN, {**data, "games": []})
        return await self.core.entries(t.id)

    def _round_start(self, t: Tournament, number: int) -> dt.datetime:
        """When a round's games start: now, or its scheduled time (`round_every`) if that is later."""
        now = self.core.wall()
        if t.round_every_s is None or t.starts_at is None:
            return now
        return max(now, t.starts_at + dt.timedelta(seconds=t.round_every_s * (number - 1)))
