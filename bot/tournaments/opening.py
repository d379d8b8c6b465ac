"""The bridge to the host: each game of a round gets its room, then its match (through
`MatchService.create_match`) once its time has come and, with a per-game check-in, both players are here; or
its no-show ruling (`MatchService.record_forfeit`: the forfeit match and the game's result in one transaction).
Each game is claimed first (`match_id` from NULL to OPENING), so only one process opens or rules it; a claim
left by a stopped process is taken over after `STALE_S`, keeping the match it may have created."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.host.match import HostError, PlayerRef
from bot.tournaments.core import TournamentCore
from bot.tournaments.liveness import gone
from bot.tournaments.model import (
    MISSED_WITHDRAW,
    OPENING,
    PAUSED,
    RUNNING,
    STALE_S,
    Entry,
    GameTaken,
    StoredGame,
    Tournament,
    TournamentEventKind,
)
from bot.tournaments.recording import Recorder
from bot.tournaments.rounds import Game, Result
from bot.tournaments.tables import ENTRIES, GAMES

log = logging.getLogger(__name__)


def waits_for_both(t: Tournament, round_number: int) -> bool:
    """Whether a game's match waits for both players' I'm here although the tournament has no no-show rule:
    a tournament with a check-in, from its second round on (the check-in covered the first), unless its clock
    is correspondence (a first move has days). Otherwise a round scheduled a day later would start the first
    mover's clock while they are away, and they could lose on time before they knew the round began."""
    if t.checkin_s is None or round_number <= 1:
        return False
    return (t.clock or {}).get("kind") != "correspondence"


class Opening:
    """Each game's room, then its match or its no-show ruling, opened once across processes."""

    def __init__(self, core: TournamentCore, recorder: Recorder) -> None:
        self.core = core
        self.recorder = recorder
        self._passes: dict[int, asyncio.Lock] = {}

    def busy(self, tid: int) -> bool:
        """Whether a pass over the tournament's games runs now in this process (`open`)."""
        lock = self._passes.get(tid)
        return lock is not None and lock.locked()

    async def open(self, tid: int) -> bool:
        """Every game of the round still without a match: its room first; then its match, once its time has
        come and (with a per-game check-in) both players are here; or its no-show ruling once the wait is over.
        Each game is claimed first, so only one process opens (or rules) it. True when a game got its result
        (the tournament moves on: `Advancer.open_matches`)."""
        async with self._passes.setdefault(tid, asyncio.Lock()):  # one pass at a time here: one room a game
            return await self._open_locked(tid)

    async def _open_locked(self, tid: int) -> bool:
        t = await self.core.get(tid)
        if t.status not in (RUNNING, PAUSED):
            return False
        entries = {e.id: e for e in await self.core.entries(tid)}
        decided = False
        for g in await self.core.games(tid):
            p = g.pairing
            if not isinstance(p, Game) or p.result is not None or g.match_id not in (None, OPENING):
                continue
            if g.match_id is None and g.room_id is None and self.core.open_room is not None:
                g = await self._give_room(t, g, p, entries)
            decided |= await self._settle_game(t, g, p, entries)
        return decided

    async def _give_room(self, t: Tournament, g: StoredGame, p: Game, entries: Mapping[int, Entry]) -> StoredGame:
        """A game's room, from the adapter, stored once (it takes the players' check-in before the match)."""
        assert self.core.open_room is not None
        room = await self.core.open_room(t, entries[p.white], entries[p.black])
        if room is None:
            return g
        async with self.core.engine.begin() as conn:
            done = await conn.execute(
                update(GAMES).where(and_(GAMES.c.id == g.id, GAMES.c.room_id.is_(None))).values(room_id=room)
            )
        if done.rowcount != 1:
            return (await self.core.game(g.id))[1]
        g = replace(g, room_id=room)
        deadline = None
        if t.no_show_s is not None and g.starts_at is not None:
            deadline = g.starts_at + dt.timedelta(seconds=t.no_show_s)
        await self.core.emit(
            t.id,
            TournamentEventKind.GAME_ROOM,
            {
                "game": g.id,
                "round": g.round,
                "board": g.board,
                "room": room,
                "white": entries[p.white].player_id,
                "black": entries[p.black].player_id,
                "names": [entries[p.white].name, entries[p.black].name],
                "starts_at": g.starts_at,
                "checkin": t.no_show_s is not None or waits_for_both(t, g.round),
                "deadline": deadline,
            },
        )
        return g

    async def _settle_game(self, t: Tournament, g: StoredGame, p: Game, entries: Mapping[int, Entry]) -> bool:
        """Open the game's match, or rule a no-show, if it is due; True when the game got a result."""
        now = self.core.wall()
        starts = g.starts_at or now
        if starts > now:
            return False
        if t.no_show_s is None and waits_for_both(t, g.round) and not all(h is not None for h in g.here):
            return False  # no no-show rule: the game waits for both players, however long (a host may decide it)
        if t.no_show_s is None or all(h is not None for h in g.here):
            no_show = False
        elif now >= starts + dt.timedelta(seconds=t.no_show_s):
            no_show = any(h is not None for h in g.here)  # neither came: the match opens and the clocks decide
        else:
            return False
        after = await self._claim(g.id, now)
        if after is None:
            return False
        white, black = entries[p.white], entries[p.black]
        players = [PlayerRef(white.player_id, white.name), PlayerRef(black.player_id, black.name)]
        channel = g.room_id or t.channel_id
        found = await self._created_since(t, players, after) if g.match_id == OPENING else None
        if found is not None:  # a stopped process created it after its claim, and stopped before noting it
            async with self.core.engine.begin() as conn:
                await conn.execute(update(GAMES).where(GAMES.c.id == g.id).values(match_id=found))
            await self.recorder.record_match(found)
            return True
        winner = 1 if g.here[0] is not None else 2
        result = Result.WHITE if winner == 1 else Result.BLACK

        async def rule_game(conn: AsyncConnection, match_id: int) -> None:
            """In the transaction that stores the forfeit: the game's result, on this process's claim only."""
            ruled = await conn.execute(
                update(GAMES)
                .where(and_(GAMES.c.id == g.id, GAMES.c.match_id == OPENING, GAMES.c.opening_by == self.core.instance))
                .values(match_id=match_id, result=result.value, forfeit=True, decided_by="no_show")
            )
            if ruled.rowcount != 1:
                raise GameTaken(g.id)  # rolls the forfeit back: nothing stored
            if t.missed == MISSED_WITHDRAW:  # lichess's rule: out at the next pairing unless they confirm
                absent_entry = p.black if winner == 1 else p.white
                await conn.execute(update(ENTRIES).where(ENTRIES.c.id == absent_entry).values(missed_round=g.round))

        try:
            if no_show:
                mid = await self.core.host.record_forfeit(
                    t.game,
                    players,
                    winner,
                    "no_show",
                    options=t.options,
                    clock=t.clock,
                    rules=t.rules,
                    guild_id=t.guild_id,
                    channel_id=channel,
                    by=f"tournament:{t.id}",
                    rated=t.rated,
                    also=rule_game,  # the forfeit match and the game's result: both stored, or neither
                )
            else:
                mid = await self.core.host.create_match(
                    t.game,
                    players,
                    options=t.options,
                    clock=t.clock,
                    rules=t.rules,
                    first=1,
                    guild_id=t.guild_id,
                    channel_id=channel,
                    by=f"tournament:{t.id}",
                    rated=t.rated,  # a tournament's games feed the ratings only when it is rated (bot.ratings)
                )
        except HostError as exc:  # the host has logged why (a database error with its traceback)
            log.warning("tournament %s: the match of round %s board %s could not open: %s", t.id, g.round, g.board, exc)
            try:
                stood = await self._ruled_here(g.id) if no_show else None
            except Exception:  # the database cannot say now: the claim goes stale and the game is looked at again
                log.exception("tournament %s: reading back game %s failed", t.id, g.id)
                return False
            if stood is not None:
                mid = stood  # the forfeit was stored after all (its commit was only reported lost)
            else:
                async with self.core.engine.begin() as conn:  # still our claim, nothing stored: give it back
                    await conn.execute(
                        update(GAMES)
                        .where(
                            and_(
                                GAMES.c.id == g.id,
                                GAMES.c.match_id == OPENING,
                                GAMES.c.opening_by == self.core.instance,
                            )
                        )
                        .values(match_id=None, opening_after=None)
                    )
                return False
        if not no_show:
            async with self.core.engine.begin() as conn:
                await conn.execute(update(GAMES).where(GAMES.c.id == g.id).values(match_id=mid))
            return False
        absent = black if winner == 1 else white
        await self.core.emit(
            t.id,
            TournamentEventKind.NO_SHOW,
            {
                "round": g.round,
                "board": g.board,
                "room": channel,
                "match": mid,
                "rated": t.rated,
                "winner": (white if winner == 1 else black).player_id,
                "winner_name": (white if winner == 1 else black).name,
                "absent": absent.player_id,
                "absent_name": absent.name,
                "confirm": t.missed == MISSED_WITHDRAW,
                "tournament": t.id,
            },
        )
        return True

    async def _ruled_here(self, game_id: int) -> int | None:
        """The forfeit match of a game this process ruled a no-show on its own claim, if it is stored."""
        async with self.core.engine.connect() as conn:
            found = (
                await conn.execute(
                    select(GAMES.c.match_id).where(
                        and_(
                            GAMES.c.id == game_id,
                            GAMES.c.result.is_not(None),
                            GAMES.c.decided_by == "no_show",
                            GAMES.c.opening_by == self.core.instance,
                            GAMES.c.match_id > 0,
                        )
                    )
                )
            ).scalar()
        return None if found is None else int(found)

    async def _claim(self, game_id: int, now: dt.datetime) -> int | None:
        """Claim a game to open its match: the highest match id before the first claim (None: not ours)."""
        stale = now - dt.timedelta(seconds=STALE_S)
        top = await self.core.host.store.latest_id()  # read before the claim: a match its winner creates is newer
        async with self.core.engine.begin() as conn:
            holder = (await conn.execute(select(GAMES.c.opening_by).where(GAMES.c.id == game_id))).scalar()
            if gone(holder):  # its process was killed on this machine: no need to wait for the stale time
                stale = now + dt.timedelta(seconds=1)
            done = await conn.execute(
                update(GAMES)
                .where(
                    and_(
                        GAMES.c.id == game_id,
                        GAMES.c.result.is_(None),
                        or_(
                            GAMES.c.match_id.is_(None),
                            and_(GAMES.c.match_id == OPENING, GAMES.c.opening_at < stale),
                        ),
                    )
                )
                .values(
                    match_id=OPENING,
                    opening_by=self.core.instance,
                    opening_at=now,
                    opening_after=func.coalesce(GAMES.c.opening_after, top),
                )
            )
            if done.rowcount != 1:
                return None
            after = (await conn.execute(select(GAMES.c.opening_after).where(GAMES.c.id == game_id))).scalar()
        return int(after or 0)

    async def _created_since(self, t: Tournament, players: Sequence[PlayerRef], after: int) -> int | None:
        """The match of these two players (in their seats) in this server created after match `after`, if any."""
        return await self.core.host.store.first_between([p.id for p in players], t.guild_id, after)
