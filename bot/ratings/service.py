"""Ratings beside the host core: the subscriber that rates each finished rated match, and the look-ups.

`Ratings.on_finished` is subscribed to the root's bus after the commit (`bot.host.subscribers.after_commit`): the host
only queues a `finished` event, and the ratings' own task rates every match finished since its last
batch in one transaction (`settle_many`), off every match's lock, so the end of a match never holds up
the moves of the others. Rating a match twice is a no-op, so a face that reports a match's rating asks
for it (`settle`: it rates the match at once if its batch has not come yet), in whatever order the
listeners run.

Everything is derived from the stored matches in the order they ended (`finished_at`, then id):
`rebuild` recomputes every table from scratch and reports what differed. When a match is rated after
a later match of one of its players (two results committed in the same instant), that server's and
game's table is recomputed, so the stored figures always equal the rebuild's. The arithmetic is in
`bot.ratings.replay` (pure), the SQL in `bot.ratings.store`, the answers' values in `bot.ratings.views`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import and_, func, or_, select, update

from bot.host.events import HostEvent
from bot.host.subscribers import after_commit
from bot.outage import Retry
from bot.ratings.glicko import PARAMS, Params, Rating, deviation_at, is_provisional
from bot.ratings.models import PlayerRating, RatingChange
from bot.ratings.replay import PRACTICE_IDS, RatedMatch, apply_match, guild_key, guild_of, rated_match, replay
from bot.ratings.store import (
    change_rows,
    collector_paused,
    games_through,
    load_rated,
    rate_pending,
    rebuild_tables,
)
from bot.ratings.views import GameProfile, MatchRating, PlayerChange, RebuildReport, Result, Standing
from bot.store.db import Match, MatchPlayer, utcnow
from bot.store.matches import MatchStore

log = logging.getLogger(__name__)

ADVANTAGE_MODES = ("lower-rated", "higher-rated")

RETRY_FIRST_S = 1.0
RETRY_MAX_S = 60.0
"""A rating that could not be stored is caught up after 1 s, then after twice as long each time."""


class Ratings:
    """The ratings of every server and game, in the host's database."""

    def __init__(
        self,
        store: MatchStore,
        params: Params = PARAMS,
        *,
        practice_ids: Iterable[str] = PRACTICE_IDS,
        clock: Any = utcnow,
    ) -> None:
        self.store = store
        self.engine = store.engine
        self.params = params
        self.practice_ids = frozenset(practice_ids)
        self.clock = clock
        """Aware UTC now, for the deviation shown (it grows with the time since a player's last match)."""
        self._lock = asyncio.Lock()
        self._retry: asyncio.Task[None] | None = None

    # -- the subscriber (the root's bus, `Stage.RECORD`) ---------------------------------
    @after_commit("finished", batch=True)
    async def on_finished(self, events: Sequence[HostEvent]) -> None:
        """Finished matches (every one finished since the last call, off the move path): the rated ones
        are rated in one transaction. A rating that cannot be stored (the database failed, or its commit's
        outcome is unknown) is owed, not lost: the finished match row is the record of what is owed (a
        rated, finished match without `rating_changes` rows), and `catch_up` rates it, in a retry started
        here and at every start of every face."""
        try:
            await self.settle_many([int(ev.match_id) for ev in events])
        except Exception:
            log.exception("rating %d finished match(es) failed; they are rated by the next catch-up", len(events))
            self._owe()

    def _owe(self) -> None:
        if self._retry is None or self._retry.done():
            self._retry = asyncio.get_running_loop().create_task(self._catch_up_later())

    async def _catch_up_later(self) -> None:
        """Catch up until it succeeds: after 1 s, then twice as long each time, at most a minute."""
        retry = Retry("catching the ratings up", first=RETRY_FIRST_S, most=RETRY_MAX_S)  # said once an outage
        pause = RETRY_FIRST_S
        while True:
            await asyncio.sleep(pause)
            try:
                await self.catch_up()
            except Exception as exc:
                pause = retry.failed(exc)
            else:
                retry.ok()
                return

    async def close(self) -> None:
        """Stop a pending retry (what it owed is caught up at the next start)."""
        if self._retry is not None:
            self._retry.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retry
            self._retry = None

    async def settle_many(self, match_ids: Sequence[int]) -> int:
        """Rate, in one transaction and in the order they ended, those of these matches that are rated and
        not rated yet (a match already rated is left as it is); returns how many were rated."""
        async with self._lock, self.engine.begin() as conn:
            pending = await load_rated(conn, self.practice_ids, pending=True, ids=match_ids)
            if pending:
                await rate_pending(conn, pending, self.params, self.practice_ids)
        return len(pending)

    async def settle_players(self, players: Sequence[str]) -> int:
        """Rate the finished matches of these players that are not rated yet (their batch has not come: the
        ratings run after the commit), so that what is read next counts them; returns how many were rated."""
        async with self._lock, self.engine.begin() as conn:
            pending = await load_rated(conn, self.practice_ids, pending=True, players=players)
            if pending:
                await rate_pending(conn, pending, self.params, self.practice_ids)
        return len(pending)

    async def settle(self, match_id: int) -> MatchRating | None:
        """Rate a finished match once (later calls return the same figures); None when it is not rated."""
        async with self._lock:
            stored = await self.store.load(match_id)
            m = None if stored is None else rated_match(stored, self.practice_ids)
            if m is None:
                return None
            async with self.engine.begin() as conn:
                done = await change_rows(conn, match_id)
                if not done:
                    await rate_pending(conn, [m], self.params, self.practice_ids)
                    done = await change_rows(conn, match_id)
                return self._match_rating(m, done, await games_through(conn, done))

    def _match_rating(self, m: RatedMatch, rows: Sequence[Any], games: dict[str, int]) -> MatchRating:
        names = dict(m.players)
        return MatchRating(
            m.id,
            guild_of(m.guild_key),
            m.game,
            tuple(
                PlayerChange(
                    r.seat,
                    r.player_id,
                    names.get(r.player_id, r.player_id),
                    r.rating_before,
                    r.rating_after,
                    is_provisional(r.deviation_after, games.get(r.player_id, 0), self.params),
                )
                for r in rows
            ),
        )

    async def catch_up(self, owns: Callable[[int | None], bool] | None = None) -> int:
        """Rate, in the order they ended, every rated match that is not rated yet (matches that ended while
        no subscriber listened, e.g. just before a crash), of the servers `owns` accepts (a process of a
        sharded bot: its own); returns how many were rated. One transaction: the players' rows are read
        once, updated in memory exactly as `settle` would, and written back."""
        async with self._lock, self.engine.begin() as conn, collector_paused():
            everything = await load_rated(conn, self.practice_ids, pending=True)
            pending = [m for m in everything if owns is None or owns(guild_of(m.guild_key))]
            if pending:
                await rate_pending(conn, pending, self.params, self.practice_ids)
        return len(pending)

    # -- rebuilding ------------------------------------------------------------------
    async def rebuild(self) -> RebuildReport:
        """Recompute every table from the stored matches; rewrite them when anything differed."""
        async with self._lock, self.engine.begin() as conn, collector_paused():
            return await rebuild_tables(conn, self.params, self.practice_ids)

    async def mark_casual(self, player_id: str) -> int:
        """Mark the unmarked matches of a player as casual (the Discord practice opponent, whose id only the
        bot knows); when any were rated, the tables are rebuilt. Returns how many matches were marked."""
        async with self.engine.begin() as conn:
            ids = select(MatchPlayer.match_id).where(MatchPlayer.player_id == player_id)
            marked = (
                await conn.execute(update(Match).where(Match.rated.is_(None), Match.id.in_(ids)).values(rated=False))
            ).rowcount
        if marked:
            await self.rebuild()
        return int(marked or 0)

    # -- reading ---------------------------------------------------------------------
    async def of_match(self, match_id: int) -> MatchRating | None:
        """A rated match's changes (None when it was not rated, or not yet)."""
        async with self.engine.connect() as conn:
            rows = await change_rows(conn, match_id)
            if not rows:
                return None
            names = dict(
                (
                    await conn.execute(
                        select(MatchPlayer.player_id, MatchPlayer.name).where(MatchPlayer.match_id == match_id)
                    )
                ).all()
            )
            games = await games_through(conn, rows)
        return MatchRating(
            match_id,
            guild_of(rows[0].guild_key),
            rows[0].game,
            tuple(
                PlayerChange(
                    r.seat,
                    r.player_id,
                    names.get(r.player_id, r.player_id),
                    r.rating_before,
                    r.rating_after,
                    is_provisional(r.deviation_after, games.get(r.player_id, 0), self.params),
                )
                for r in rows
            ),
        )

    def _standing(self, r: Any, rank: int | None = None) -> Standing:
        now = self.clock()
        deviation = deviation_at(Rating(r.rating, r.deviation, r.volatility, r.last_at), now, self.params)
        return Standing(
            guild_of(r.guild_key),
            r.game,
            r.player_id,
            r.name,
            r.rating,
            deviation,
            is_provisional(deviation, r.games, self.params),
            r.games,
            r.wins,
            r.losses,
            r.draws,
            r.streak,
            r.last_at,
            rank,
        )

    async def leaderboard(self, guild: int | None, game: str, limit: int = 20, offset: int = 0) -> list[Standing]:
        """The best `limit` players of a server's table for a game, best first (ranked)."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(PlayerRating)
                    .where(PlayerRating.guild_key == guild_key(guild), PlayerRating.game == game)
                    .order_by(PlayerRating.rating.desc(), PlayerRating.player_id)
                    .limit(limit)
                    .offset(offset)
                )
            ).all()
        return [self._standing(r, offset + i + 1) for i, r in enumerate(rows)]

    async def count(self, guild: int | None, game: str) -> int:
        """How many players a server's table for a game has."""
        async with self.engine.connect() as conn:
            n = (
                await conn.execute(
                    select(func.count())
                    .select_from(PlayerRating)
                    .where(PlayerRating.guild_key == guild_key(guild), PlayerRating.game == game)
                )
            ).scalar_one()
        return int(n)

    async def table(self, guild: int | None, game: str | None = None) -> list[Standing]:
        """A server's whole table (one game, or every game by game id), best first."""
        query = select(PlayerRating).where(PlayerRating.guild_key == guild_key(guild))
        if game is not None:
            query = query.where(PlayerRating.game == game)
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    query.order_by(PlayerRating.game, PlayerRating.rating.desc(), PlayerRating.player_id)
                )
            ).all()
        out: list[Standing] = []
        for r in rows:
            rank = 1 if not out or out[-1].game != r.game else (out[-1].rank or 0) + 1
            out.append(self._standing(r, rank))
        return out

    async def standing(self, guild: int | None, game: str, player_id: str) -> Standing | None:
        """One player's row with their rank (None: no rated match in this server and game)."""
        key = guild_key(guild)
        async with self.engine.connect() as conn:
            r = (
                await conn.execute(
                    select(PlayerRating).where(
                        PlayerRating.guild_key == key, PlayerRating.game == game, PlayerRating.player_id == player_id
                    )
                )
            ).first()
            if r is None:
                return None
            above = (
                await conn.execute(
                    select(func.count())
                    .select_from(PlayerRating)
                    .where(
                        PlayerRating.guild_key == key,
                        PlayerRating.game == game,
                        or_(
                            PlayerRating.rating > r.rating,
                            and_(PlayerRating.rating == r.rating, PlayerRating.player_id < player_id),
                        ),
                    )
                )
            ).scalar_one()
        return self._standing(r, int(above) + 1)

    async def games_of(self, guild: int | None, player_id: str) -> list[str]:
        """The games a player has a rating in, in this server."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(PlayerRating.game)
                    .where(PlayerRating.guild_key == guild_key(guild), PlayerRating.player_id == player_id)
                    .order_by(PlayerRating.game)
                )
            ).all()
        return [r[0] for r in rows]

    async def profile(
        self, guild: int | None, player_id: str, *, versus: str | None = None, game: str | None = None, recent: int = 10
    ) -> list[GameProfile]:
        """Per game: the standing, the last `recent` results, the rating history, and the record against
        `versus` when given."""
        key = guild_key(guild)
        out = []
        for g in [game] if game is not None else await self.games_of(guild, player_id):
            standing = await self.standing(guild, g, player_id)
            if standing is None:
                continue
            async with self.engine.connect() as conn:
                rows = (
                    await conn.execute(
                        select(RatingChange, Match.channel_id)
                        .join(Match, Match.id == RatingChange.match_id)
                        .where(
                            RatingChange.guild_key == key, RatingChange.game == g, RatingChange.player_id == player_id
                        )
                        .order_by(RatingChange.at, RatingChange.match_id)
                    )
                ).all()
                opponent_ids = {r.opponent_id for r in rows[-recent:]}
                names = dict(
                    (
                        await conn.execute(
                            select(PlayerRating.player_id, PlayerRating.name).where(
                                PlayerRating.guild_key == key,
                                PlayerRating.game == g,
                                PlayerRating.player_id.in_(opponent_ids),
                            )
                        )
                    ).all()
                )
            results = [
                Result(
                    r.match_id,
                    r.opponent_id,
                    names.get(r.opponent_id, r.opponent_id),
                    r.score,
                    r.rating_after,
                    r.rating_after - r.rating_before,
                    r.at,
                    r.channel_id,
                )
                for r in reversed(rows[-recent:])
            ]
            h2h = None
            if versus is not None:
                mine = [r.score for r in rows if r.opponent_id == versus]
                h2h = (mine.count(1.0), mine.count(0.0), mine.count(0.5))
            out.append(GameProfile(standing, results, [(r.at, r.rating_after) for r in rows], h2h))
        return out

    # -- for hosts: seeding and advantage ---------------------------------------------
    async def ratings_of(self, guild: int | None, game: str, players: Sequence[str]) -> dict[str, float]:
        """Current ratings of some players (an unrated player: the start rating), their matches finished just
        before rated first (`settle_players`)."""
        await self.settle_players(players)
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(PlayerRating.player_id, PlayerRating.rating).where(
                        PlayerRating.guild_key == guild_key(guild),
                        PlayerRating.game == game,
                        PlayerRating.player_id.in_(list(players)),
                    )
                )
            ).all()
        known = {r.player_id: float(r.rating) for r in rows}
        return {p: known.get(p, self.params.start_rating) for p in players}

    async def seed_order(self, guild: int | None, game: str, players: Sequence[str]) -> list[str]:
        """`players` ordered for seeding: highest rating first; equal ratings (the unrated) keep the given order."""
        ratings = await self.ratings_of(guild, game, players)
        return sorted(dict.fromkeys(players), key=lambda p: -ratings[p])

    async def advantage_seat(self, guild: int | None, game: str, players: Sequence[str], mode: str) -> int:
        """The seat (1 or 2) that gets the advantage: the `lower-rated` or `higher-rated` of the two players;
        equal ratings give it to seat 1."""
        if mode not in ADVANTAGE_MODES:
            raise ValueError(f"advantage is {' or '.join(ADVANTAGE_MODES)}, not {mode!r}")
        if len(players) != 2:
            raise ValueError("the advantage is decided between two players")
        ratings = await self.ratings_of(guild, game, players)
        one, two = ratings[players[0]], ratings[players[1]]
        if one == two:
            return 1
        return (1 if one < two else 2) if mode == "lower-rated" else (1 if one > two else 2)


__all__ = [
    "ADVANTAGE_MODES",
    "PRACTICE_IDS",
    "GameProfile",
    "MatchRating",
    "PlayerChange",
    "RatedMatch",
    "Ratings",
    "RebuildReport",
    "Result",
    "Standing",
    "apply_match",
    "guild_key",
    "rated_match",
    "replay",
]
