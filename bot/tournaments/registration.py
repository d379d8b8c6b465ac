"""Sign-up: a tournament is created, players join (late, into a Swiss with rounds to go), check in before the
start (and, with a per-game check-in, before each game), and leave (before the start) or withdraw (after it,
forfeiting the round's open games)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from sqlalchemy import and_, func, update
from sqlalchemy.exc import IntegrityError

from bot.host.match import HostError, PlayerRef, new_live
from bot.tournaments.advance import Advancer
from bot.tournaments.core import TournamentCore
from bot.tournaments.model import (
    CANCELLED,
    FINISHED,
    MISSED_WITHDRAW,
    PAUSED,
    RUNNING,
    SEEDINGS,
    SIGNUP,
    Entry,
    StoredGame,
    Tournament,
    TournamentEventKind,
)
from bot.tournaments.refusals import RefusalCode, TournamentRefused
from bot.tournaments.rounds import Format, Game, Result
from bot.tournaments.tables import ENTRIES, GAMES, TOURNAMENTS
from bot.tournaments.timer import Timer
from bot.types import withdrawal_by

MAX_PRIZE = 100
"""The longest prize text (a scheduled DM's prize has the same bound)."""


class Registration:
    """Creating a tournament, joining, checking in, leaving and withdrawing."""

    def __init__(self, core: TournamentCore, timer: Timer, advancer: Advancer) -> None:
        self.core = core
        self.timer = timer
        self.advancer = advancer

    async def create(
        self,
        name: str,
        game: str,
        fmt: Format | str,
        *,
        rounds: int | None = None,
        options: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        rated: bool = False,
        prize: str | None = None,
        bye_points: float = 1.0,
        max_players: int | None = None,
        signup_closes_at: dt.datetime | None = None,
        starts_at: dt.datetime | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        by: str | None = None,
        checkin_s: int | None = None,
        no_show_s: int | None = None,
        round_every_s: int | None = None,
        seeding: str = "joined",
        missed: str | None = None,
    ) -> int:
        """Open a tournament for sign-up; the match options, clock and rules are checked as `/dm start` checks them.

        `starts_at`: it starts by itself then. `checkin_s`: players check in during that many seconds before
        `starts_at` (or any time before a start by hand); those who did not are removed at the start.
        `no_show_s`: each game's players check in too, and one still absent that long after the game's start
        loses it by no-show. `round_every_s`: round N starts `(N-1) × round_every_s` after the start (or when the
        round before ends, if later). `seeding`: `joined` (sign-up order) or `rating`. `missed`: `withdraw`
        (lichess's rule: a player who misses a game is withdrawn at the next pairing unless they confirm they
        play on, `stay`) or None (they play on)."""
        name = name.strip()
        now = self.core.wall()
        if starts_at is not None and starts_at <= now:
            raise TournamentRefused(RefusalCode.START_PAST)
        for setting, value in (("checkin", checkin_s), ("no_show", no_show_s), ("round_every", round_every_s)):
            if value is not None and not 60 <= value <= 7 * 86400:
                raise TournamentRefused(RefusalCode.BAD_TIME, setting=setting)
        if missed not in (None, MISSED_WITHDRAW):
            raise TournamentRefused(RefusalCode.BAD_MISSED)
        if seeding not in SEEDINGS:
            raise TournamentRefused(RefusalCode.BAD_SEEDING, value=seeding, choices=list(SEEDINGS))
        if not 1 <= len(name) <= 100:
            raise TournamentRefused(RefusalCode.BAD_NAME, low=1, high=100)
        if not name.isprintable():  # the rules of player names: no line break, control or direction character
            raise TournamentRefused(RefusalCode.NAME_CHARS)
        if prize is not None:
            prize = prize.strip() or None
        if prize is not None and len(prize) > MAX_PRIZE:
            raise TournamentRefused(RefusalCode.PRIZE_LONG, limit=MAX_PRIZE)
        try:
            fmt = Format(fmt)
        except ValueError:
            raise TournamentRefused(RefusalCode.BAD_FORMAT, value=fmt, choices=[f.value for f in Format]) from None
        if rounds is not None and (fmt is not Format.SWISS or rounds < 1):
            raise TournamentRefused(RefusalCode.BAD_ROUNDS)
        if bye_points not in (0.5, 1.0):
            raise TournamentRefused(RefusalCode.BAD_BYE)
        if max_players is not None and max_players < 2:
            raise TournamentRefused(RefusalCode.TOO_SMALL, least=2)
        for when in (signup_closes_at, starts_at):
            if when is not None and when.tzinfo is None:
                raise TournamentRefused(RefusalCode.NAIVE_TIME)
        try:
            live = new_live(game, [PlayerRef("1", "1"), PlayerRef("2", "2")], options, clock, rules, 1, None)
        except HostError as exc:
            raise TournamentRefused(exc.refusal) from None
        async with self.core.engine.begin() as conn:
            tid = (
                await conn.execute(
                    TOURNAMENTS.insert().values(
                        guild_id=guild_id,
                        channel_id=channel_id,
                        name=name,
                        game=live.ruleset.id,
                        format=fmt.value,
                        rounds=rounds,
                        options=dict(options or {}),
                        clock=dict(clock or {}),
                        rules=dict(rules or {}),
                        rated=rated,
                        prize=prize,
                        bye_points=bye_points,
                        max_players=max_players,
                        signup_closes_at=signup_closes_at,
                        starts_at=starts_at,
                        status=SIGNUP,
                        round=0,
                        seeds=[],
                        created_by=by,
                        created_at=now,
                        updated_at=now,
                        checkin_s=checkin_s,
                        no_show_s=no_show_s,
                        round_every_s=round_every_s,
                        seeding=seeding,
                        missed=missed,
                    )
                )
            ).inserted_primary_key[0]  # type: ignore[index]
        await self.core.emit(
            int(tid), TournamentEventKind.CREATED, {"name": name, "game": live.ruleset.id, "format": fmt.value}
        )
        if starts_at is not None:
            await self.timer.changed(int(tid))
        return int(tid)

    async def check_in(self, tid: int, player_id: str) -> Entry:
        """A player says "I'm here" for the tournament (before the start, in its check-in window)."""
        t = await self.core.get(tid)
        if t.checkin_s is None:
            raise TournamentRefused(RefusalCode.NO_CHECKIN, name=t.name)
        if t.status != SIGNUP:
            raise TournamentRefused(RefusalCode.CHECKIN_OVER, name=t.name)
        opens = t.checkin_opens()
        if opens is not None and self.core.wall() < opens:
            raise TournamentRefused(RefusalCode.CHECKIN_EARLY, name=t.name, opens=opens)
        entry = next((e for e in await self.core.entries(tid) if e.player_id == player_id and not e.withdrawn), None)
        if entry is None:
            raise TournamentRefused(RefusalCode.NOT_JOINED, name=t.name)
        async with self.core.engine.begin() as conn:
            done = await conn.execute(
                update(ENTRIES)
                .where(and_(ENTRIES.c.id == entry.id, ENTRIES.c.checked_in_at.is_(None)))
                .values(checked_in_at=self.core.wall())
            )
        if done.rowcount != 1:
            raise TournamentRefused(RefusalCode.ALREADY_HERE, name=t.name)
        await self.core.emit(tid, TournamentEventKind.CHECKED_IN, {"player": player_id, "name": entry.name})
        return Entry(entry.id, entry.player_id, entry.name, False, True)

    async def check_in_game(self, game_id: int, player_id: str) -> StoredGame:
        """A player says "I'm here" for a game of a round; its match opens at once when both are here and its
        start time has come."""
        t, g = await self.core.game(game_id)
        p = g.pairing
        entries = {e.id: e for e in await self.core.entries(t.id)}
        if not isinstance(p, Game):
            raise TournamentRefused(RefusalCode.BYE_NO_CHECKIN, game=g.id)
        seat = next((i for i, e in enumerate((p.white, p.black)) if entries[e].player_id == player_id), None)
        if seat is None:
            raise TournamentRefused(RefusalCode.NOT_IN_GAME, game=g.id)
        if t.status not in (RUNNING, PAUSED) or p.result is not None or g.match_id is not None:
            raise TournamentRefused(RefusalCode.GAME_NOT_WAITING, game=g.id)
        column = GAMES.c.here_white if seat == 0 else GAMES.c.here_black
        async with self.core.engine.begin() as conn:
            done = await conn.execute(
                update(GAMES)
                .where(and_(GAMES.c.id == g.id, column.is_(None), GAMES.c.match_id.is_(None)))
                .values({column.name: self.core.wall()})
            )
        if done.rowcount != 1:
            raise TournamentRefused(RefusalCode.GAME_ALREADY_HERE, game=g.id)
        name = entries[p.white if seat == 0 else p.black].name
        await self.core.emit(
            t.id,
            TournamentEventKind.GAME_CHECKED_IN,
            {"game": g.id, "room": g.room_id, "player": player_id, "name": name},
        )
        await self.advancer.open_matches(t.id)
        _, g = await self.core.game(game_id)
        return g

    def _late_entry_open(self, t: Tournament) -> bool:
        return t.format is Format.SWISS and t.status in (RUNNING, PAUSED) and t.round < (t.rounds or 0)

    async def join(self, tid: int, player_id: str, name: str) -> int:
        """Enter a player (late entry: a Swiss with rounds still to pair); returns their entry number."""
        t = await self.core.get(tid)
        if t.status != SIGNUP and not self._late_entry_open(t):
            raise TournamentRefused(RefusalCode.SIGNUP_CLOSED, name=t.name)
        if t.status == SIGNUP and t.signup_closes_at is not None and self.core.wall() >= t.signup_closes_at:
            raise TournamentRefused(RefusalCode.SIGNUP_CLOSED_AT, name=t.name, at=t.signup_closes_at)
        entries = await self.core.entries(tid)
        if any(e.player_id == player_id for e in entries):
            raise TournamentRefused(RefusalCode.ALREADY_JOINED, player=name, name=t.name)
        if t.max_players is not None and sum(not e.withdrawn for e in entries) >= t.max_players:
            raise TournamentRefused(RefusalCode.FULL, name=t.name, most=t.max_players)
        try:
            async with self.core.engine.begin() as conn:
                eid = int(
                    (
                        await conn.execute(
                            ENTRIES.insert().values(
                                tournament_id=tid, player_id=player_id, name=name[:100], joined_at=self.core.wall()
                            )
                        )
                    ).inserted_primary_key[0]  # type: ignore[index]
                )
        except IntegrityError:
            raise TournamentRefused(RefusalCode.ALREADY_JOINED, player=name, name=t.name) from None
        if t.status != SIGNUP:
            await self.core.append_seed(tid, eid)
        await self.core.emit(
            tid,
            TournamentEventKind.JOINED,
            {"player": player_id, "name": name, "entry": eid, "late": t.status != SIGNUP},
        )
        return eid

    async def stay(self, tid: int, player_id: str) -> Entry:
        """Under `missed:withdraw`: a player who missed a game confirms they play on (not withdrawn at the
        next pairing)."""
        t = await self.core.get(tid)
        entry = next((e for e in await self.core.entries(tid) if e.player_id == player_id), None)
        if entry is None or entry.withdrawn:
            raise TournamentRefused(RefusalCode.NOT_ENTERED, name=t.name)
        if entry.missed_round is None:
            raise TournamentRefused(RefusalCode.NOTHING_MISSED, name=t.name)
        async with self.core.engine.begin() as conn:
            done = await conn.execute(
                update(ENTRIES)
                .where(and_(ENTRIES.c.id == entry.id, ENTRIES.c.missed_round.is_not(None)))
                .values(missed_round=None)
            )
        if done.rowcount == 1:
            data = {"player": player_id, "name": entry.name, "round": entry.missed_round}
            await self.core.emit(tid, TournamentEventKind.STAYS, data)
        return replace(entry, missed_round=None)

    async def leave(self, tid: int, player_id: str, by: str | None = None) -> None:
        """Before the start: take the entry back. After it: withdraw, forfeiting what remains."""
        t = await self.core.get(tid)
        entry = next((e for e in await self.core.entries(tid) if e.player_id == player_id), None)
        if entry is None or entry.withdrawn:
            raise TournamentRefused(RefusalCode.NOT_ENTERED, name=t.name)
        if t.status in (FINISHED, CANCELLED):
            raise TournamentRefused(RefusalCode.OVER_NO_WITHDRAW, name=t.name)
        if t.status == SIGNUP:
            async with self.core.engine.begin() as conn:
                await conn.execute(ENTRIES.delete().where(ENTRIES.c.id == entry.id))
            await self.core.emit(tid, TournamentEventKind.LEFT, {"player": player_id, "name": entry.name})
            return
        async with self.core.engine.begin() as conn:
            await conn.execute(update(ENTRIES).where(ENTRIES.c.id == entry.id).values(withdrawn_at=self.core.wall()))
        entries = {e.id: e for e in await self.core.entries(tid)}
        closed: list[dict[str, Any]] = []
        for g in await self.core.games(tid):
            p = g.pairing
            if (
                g.round != t.round
                or not isinstance(p, Game)
                or p.result is not None
                or entry.id not in (p.white, p.black)
            ):
                continue
            winner = Result.BLACK if p.white == entry.id else Result.WHITE
            other = entries[p.black if p.white == entry.id else p.white]
            closed.append(
                {
                    "game": g.id,
                    "board": g.board,
                    "room": g.room_id,
                    "match": g.match_id,
                    "opponent": other.player_id,
                    "opponent_name": other.name,
                    "waiting": g.match_id is None,
                }
            )
        await self.core.emit(
            tid,
            TournamentEventKind.WITHDRAWN,
            {"player": player_id, "name": entry.name, "by": by, "round": t.round, "games": closed},
        )
        for c in closed:
            g = next(x for x in await self.core.games(tid) if x.id == c["game"])
            p = g.pairing
            assert isinstance(p, Game)
            winner = Result.BLACK if p.white == entry.id else Result.WHITE
            if g.match_id and g.match_id in self.core.host.live:
                await self.core.host.award(g.match_id, 2 if winner is Result.BLACK else 1, withdrawal_by(player_id))
                async with self.core.engine.begin() as conn:  # its result is the award's (recorded here or by the
                    await conn.execute(  # finished event after the commit, whichever comes first), a forfeit
                        update(GAMES)
                        .where(GAMES.c.id == g.id)
                        .values(forfeit=True, result=func.coalesce(GAMES.c.result, winner.value))
                    )
            elif p.result is None:
                await self.core.set_result(g.id, winner, withdrawal_by(player_id), forfeit=True)
        await self.advancer.advance(tid)
