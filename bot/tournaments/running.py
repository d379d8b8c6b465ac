"""Running a tournament: the start (seeding, round 1 stored with it), pairing each next round exactly once (even
from two processes), and the host's hand (pause, resume, cancel)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import and_, update

from bot.tournaments.core import TournamentCore
from bot.tournaments.model import (
    CANCELLED,
    FINISHED,
    MISSED_WITHDRAW,
    PAUSED,
    RUNNING,
    SIGNUP,
    Entry,
    Tournament,
    TournamentEventKind,
)
from bot.tournaments.progress import check_field, next_round, round_finished
from bot.tournaments.refusals import RefusalCode, TournamentRefused
from bot.tournaments.rounds import Format, Game, PairingError
from bot.tournaments.tables import ENTRIES, TOURNAMENTS


class Running(TournamentCore):
    """Starting, pairing rounds, pausing, resuming and cancelling."""

    async def start_tournament(self, tid: int, by: str | None = None, *, left: Sequence[str] = ()) -> None:
        """Close sign-up, seed the field, pair round 1 and open its matches. `left`: player ids of entrants who
        left the server, taken out at the start (the automatic start; a host takes them out by hand first)."""
        t = await self.get(tid)
        if t.status == RUNNING and t.round == 0:  # a start cut short before its first round was stored: resume
            await self.pair_next_round(tid)
            return
        if t.status != SIGNUP:
            raise TournamentRefused(RefusalCode.ALREADY_STARTED, name=t.name)
        entries = [e for e in await self.entries(tid) if not e.withdrawn]
        gone = [e for e in entries if e.player_id in left]
        entries = [e for e in entries if e not in gone]
        absent = [e for e in entries if not e.checked_in] if t.checkin_s is not None else []
        entries = [e for e in entries if e not in absent]
        try:
            rounds = check_field(t.format, len(entries), t.rounds)
        except ValueError:
            need = (t.rounds or 1) + 1 if t.format is Format.SWISS else 2
            raise TournamentRefused(RefusalCode.TOO_FEW, name=t.name, need=max(need, 2), joined=len(entries)) from None
        if t.seeding == "rating" and self.rating_order is not None:
            ordered = list(await self.rating_order(t, entries))
        else:
            ordered = list(self.seed_order(entries))
        seeds = [e.id for e in ordered]
        if sorted(seeds) != sorted(e.id for e in entries):
            raise TournamentRefused(RefusalCode.BAD_SEED_ORDER)
        now = self.wall()
        try:  # round 1 is stored with the start, in its transaction: no kill can leave a start without it
            first = next_round(t.format, seeds, seeds, [], rounds, t.bye_points)
        except PairingError:
            first = None  # paired (or refused) after the start, as any later round
        async with self.engine.begin() as conn:
            done = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.status == SIGNUP))
                .values(
                    status=RUNNING,
                    seeds=seeds,
                    rounds=rounds,
                    round=1 if first else 0,
                    updated_at=now,
                    starts_at=t.starts_at if t.starts_at is not None and t.starts_at <= now else now,
                )
            )
            if done.rowcount == 1 and (absent or gone):
                await conn.execute(
                    update(ENTRIES).where(ENTRIES.c.id.in_([e.id for e in [*gone, *absent]])).values(withdrawn_at=now)
                )
            if done.rowcount == 1 and first:
                await self._insert(conn, tid, 1, 1, first, now)
        if done.rowcount != 1:
            raise TournamentRefused(RefusalCode.ALREADY_STARTED, name=t.name)
        await self._emit(
            tid,
            TournamentEventKind.STARTED,
            {
                "by": by,
                "players": len(seeds),
                "rounds": rounds,
                "removed": [e.name for e in absent],
                "left": [e.name for e in gone],
            },
        )
        if not first:
            await self.pair_next_round(tid)
            return
        await self._emit(tid, TournamentEventKind.ROUND, {"round": 1, "pairings": first, "starts_at": now})
        await self._due_changed(tid)
        await self._open_matches(tid)

    async def pair_next_round(self, tid: int) -> int:
        """Pair the next round now (refused while games of this round are unfinished); returns its number."""
        async with self._lock(tid):
            number = await self._pair_locked(tid)
        await self._open_matches(tid)
        return number

    async def _pair_locked(self, tid: int) -> int:
        t = await self.get(tid)
        if t.status != RUNNING:
            raise TournamentRefused(RefusalCode.NOT_RUNNING, name=t.name, status=t.status)
        history = await self.rounds(tid)
        history = history[: t.round]
        if t.round and not round_finished(t.format, history[-1]):
            unfinished = sum(isinstance(p, Game) and p.result is None for p in history[-1])
            raise TournamentRefused(RefusalCode.ROUND_UNFINISHED, round=t.round, games=unfinished)
        entries = await self._withdraw_missed(t, await self.entries(tid))
        active = [s for s in t.seeds if not any(e.id == s and e.withdrawn for e in entries)]
        try:
            pairings = next_round(t.format, t.seeds, active, history, t.rounds or 0, t.bye_points)
        except PairingError as exc:
            await self._finish(t, unpaired=exc)
            return t.round
        if pairings is None:
            await self._finish(t)
            return t.round
        number = t.round + 1
        async with self.engine.begin() as conn:
            claimed = await conn.execute(
                update(TOURNAMENTS)
                .where(and_(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.round == t.round, TOURNAMENTS.c.status == RUNNING))
                .values(round=number, updated_at=self.wall())
            )
            if claimed.rowcount != 1:
                raise TournamentRefused(RefusalCode.ALREADY_PAIRED, round=number, name=t.name)
            starts = self._round_start(t, number)
            await self._insert(conn, tid, number, 1, pairings, starts)
        await self._emit(tid, TournamentEventKind.ROUND, {"round": number, "pairings": pairings, "starts_at": starts})
        await self._due_changed(tid)  # the timer learns the round's start and no-show times
        await self._round_reminders(tid, number, starts)
        return number

    async def _withdraw_missed(self, t: Tournament, entries: list[Entry]) -> list[Entry]:
        """Under `missed:withdraw` (lichess's rule), before a round is paired: each player who missed a game
        and did not confirm they play on is withdrawn (between rounds: nothing is forfeited). The entries
        as they stand then."""
        missed = [e for e in entries if e.missed_round is not None and not e.withdrawn]
        if t.missed != MISSED_WITHDRAW or not missed:
            return entries
        now = self.wall()
        for e in missed:
            async with self.engine.begin() as conn:
                done = await conn.execute(
                    update(ENTRIES)
                    .where(and_(ENTRIES.c.id == e.id, ENTRIES.c.withdrawn_at.is_(None)))
                    .values(withdrawn_at=now)
                )
            if done.rowcount == 1:
                data = {"player": e.player_id, "name": e.name, "by": None, "round": t.round, "missed": e.missed_round}
                await self._emit(t.id, TournamentEventKind.WITHDRAWN, {**data, "games": []})
        return await self.entries(t.id)

    def _round_start(self, t: Tournament, number: int) -> dt.datetime:
        """When a round's games start: now, or its scheduled time (`round_every`) if that is later."""
        now = self.wall()
        if t.round_every_s is None or t.starts_at is None:
            return now
        return max(now, t.starts_at + dt.timedelta(seconds=t.round_every_s * (number - 1)))

    # -- the host's hand -----------------------------------------------------------
    async def pause(self, tid: int, by: str) -> None:
        """Stop pairing new rounds (matches already open go on)."""
        t = await self.get(tid)
        if not await self._move_status(tid, RUNNING, PAUSED):
            raise TournamentRefused(RefusalCode.NOT_RUNNING, name=t.name, status=t.status)
        await self._emit(tid, TournamentEventKind.PAUSED, {"by": by})

    async def resume(self, tid: int, by: str) -> None:
        """Pair again (at once, if the round ended meanwhile)."""
        t = await self.get(tid)
        if not await self._move_status(tid, PAUSED, RUNNING):
            raise TournamentRefused(RefusalCode.NOT_PAUSED, name=t.name, status=t.status)
        await self._emit(tid, TournamentEventKind.RESUMED, {"by": by})
        await self._catch_up(tid)

    async def cancel(self, tid: int, by: str) -> None:
        """End the tournament without a winner; its running matches are aborted."""
        t = await self.get(tid)
        if t.status in (FINISHED, CANCELLED):
            raise TournamentRefused(RefusalCode.ALREADY_OVER, name=t.name)
        if not await self._move_status(tid, t.status, CANCELLED):
            raise TournamentRefused(RefusalCode.CHANGED, name=t.name)
        for g in await self.games(tid):
            if g.match_id and g.match_id in self.host.live:
                await self.host.abort(g.match_id, by)
        await self._emit(tid, TournamentEventKind.CANCELLED, {"by": by})
