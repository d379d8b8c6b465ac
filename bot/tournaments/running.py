"""Running a tournament: the start (seeding, round 1 stored with it), pairing the next round by hand (`Pairer`:
exactly once, even from two processes), and the host's hand (pause, resume, cancel)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import and_, update

from bot.tournaments.advance import Advancer
from bot.tournaments.core import TournamentCore
from bot.tournaments.model import (
    CANCELLED,
    FINISHED,
    PAUSED,
    RUNNING,
    SIGNUP,
    TournamentEventKind,
)
from bot.tournaments.pairer import Pairer
from bot.tournaments.progress import check_field, next_round
from bot.tournaments.refusals import RefusalCode, TournamentRefused
from bot.tournaments.rounds import Format, PairingError
from bot.tournaments.tables import ENTRIES, TOURNAMENTS
from bot.tournaments.timer import Timer


class Running:
    """Starting, pairing rounds, pausing, resuming and cancelling."""

    def __init__(self, core: TournamentCore, pairer: Pairer, advancer: Advancer, timer: Timer) -> None:
        self.core = core
        self.pairer = pairer
        self.advancer = advancer
        self.timer = timer

    async def start_tournament(self, tid: int, by: str | None = None, *, left: Sequence[str] = ()) -> None:
        """Close sign-up, seed the field, pair round 1 and open its matches. `left`: player ids of entrants who
        left the server, taken out at the start (the automatic start; a host takes them out by hand first)."""
        t = await self.core.get(tid)
        if t.status == RUNNING and t.round == 0:  # a start cut short before its first round was stored: resume
            await self.pair_next_round(tid)
            return
        if t.status != SIGNUP:
            raise TournamentRefused(RefusalCode.ALREADY_STARTED, name=t.name)
        entries = [e for e in await self.core.entries(tid) if not e.withdrawn]
        gone = [e for e in entries if e.player_id in left]
        entries = [e for e in entries if e not in gone]
        absent = [e for e in entries if not e.checked_in] if t.checkin_s is not None else []
        entries = [e for e in entries if e not in absent]
        try:
            rounds = check_field(t.format, len(entries), t.rounds)
        except ValueError:
            need = (t.rounds or 1) + 1 if t.format is Format.SWISS else 2
            raise TournamentRefused(RefusalCode.TOO_FEW, name=t.name, need=max(need, 2), joined=len(entries)) from None
        if t.seeding == "rating" and self.core.rating_order is not None:
            ordered = list(await self.core.rating_order(t, entries))
        else:
            ordered = list(self.core.seed_order(entries))
        seeds = [e.id for e in ordered]
        if sorted(seeds) != sorted(e.id for e in entries):
            raise TournamentRefused(RefusalCode.BAD_SEED_ORDER)
        now = self.core.wall()
        try:  # round 1 is stored with the start, in its transaction: no kill can leave a start without it
            first = next_round(t.format, seeds, seeds, [], rounds, t.bye_points)
        except PairingError:
            first = None  # paired (or refused) after the start, as any later round
        async with self.core.engine.begin() as conn:
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
                await self.core.insert(conn, tid, 1, 1, first, now)
        if done.rowcount != 1:
            raise TournamentRefused(RefusalCode.ALREADY_STARTED, name=t.name)
        await self.core.emit(
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
        await self.core.emit(tid, TournamentEventKind.ROUND, {"round": 1, "pairings": first, "starts_at": now})
        await self.timer.changed(tid)
        await self.advancer.open_matches(tid)

    async def pair_next_round(self, tid: int) -> int:
        """Pair the next round now (refused while games of this round are unfinished); returns its number."""
        async with self.core.lock(tid):
            number = await self.pairer.pair_locked(tid)
        await self.advancer.open_matches(tid)
        return number

    # -- the host's hand -----------------------------------------------------------
    async def pause(self, tid: int, by: str) -> None:
        """Stop pairing new rounds (matches already open go on)."""
        t = await self.core.get(tid)
        if not await self.core.move_status(tid, RUNNING, PAUSED):
            raise TournamentRefused(RefusalCode.NOT_RUNNING, name=t.name, status=t.status)
        await self.core.emit(tid, TournamentEventKind.PAUSED, {"by": by})

    async def resume(self, tid: int, by: str) -> None:
        """Pair again (at once, if the round ended meanwhile)."""
        t = await self.core.get(tid)
        if not await self.core.move_status(tid, PAUSED, RUNNING):
            raise TournamentRefused(RefusalCode.NOT_PAUSED, name=t.name, status=t.status)
        await self.core.emit(tid, TournamentEventKind.RESUMED, {"by": by})
        await self.advancer.catch_up(tid)

    async def cancel(self, tid: int, by: str) -> None:
        """End the tournament without a winner; its running matches are aborted."""
        t = await self.core.get(tid)
        if t.status in (FINISHED, CANCELLED):
            raise TournamentRefused(RefusalCode.ALREADY_OVER, name=t.name)
        if not await self.core.move_status(tid, t.status, CANCELLED):
            raise TournamentRefused(RefusalCode.CHANGED, name=t.name)
        for g in await self.core.games(tid):
            if g.match_id and g.match_id in self.core.host.live:
                await self.core.host.abort(g.match_id, by)
        await self.core.emit(tid, TournamentEventKind.CANCELLED, {"by": by})
