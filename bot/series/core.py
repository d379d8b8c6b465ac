"""Best-of-N series: each game opens in the same room when the previous one ends, the first move alternating.

No Discord and no sentences here. The adapter calls `create`, reads `of_match` for the score line and
subscribes to `SeriesNews` (the next game opened, the series decided); `bot.wording.series` words them.

Scoring (docs/discord.md, "Series"): a win is 1 point, a draw ½ to each; the series is decided as soon as one
player has more than N/2 points, or after N games (level after N games: the series is drawn). A game
ended without a result by a host (`/dm host abort`) ends the series without a result too.
Every change is written to the `series` table before it is announced; after a restart, a series whose
last game ended while the bot was away is scored and continued (`start`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, cast

from sqlalchemy import Table, insert, select, update
from sqlalchemy.engine import RowMapping

from bot.host.events import EventKind, HostEvent, PlayerRef
from bot.host.service import MatchService
from bot.host.subscribers import after_commit
from bot.series.models import SeriesRow
from bot.store.db import utcnow
from bot.types import MatchStatus

log = logging.getLogger(__name__)

RETRY_FIRST_S = 1.0
RETRY_MAX_S = 60.0
"""A game end that could not be stored is handled again after 1 s, then after twice as long each time."""

SERIES: Final = cast(Table, SeriesRow.__table__)
LENGTHS: Final = (3, 5, 7, 9)
"""The series lengths `/dm start series:` offers (odd, so that a series without draws always has a winner)."""
DRAW: Final = 0
"""A drawn game in `Series.results` (else the winner: 1 or 2, the players by the order they were named)."""


class SeriesStatus(StrEnum):
    """Where a series stands (the values are what the database stores)."""

    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


class NewsKind(StrEnum):
    """What a `SeriesNews` reports."""

    NEXT = "next"
    """A new game opened (`match_id`; `previous`: the game before)."""
    OVER = "over"
    """The series is decided or aborted."""


@dataclass(frozen=True)
class Series:
    """A best-of-N as stored. Players 1 and 2 are the players in the order the host named them."""

    id: int
    guild_id: int | None
    channel_id: int | None
    game: str
    best_of: int
    options: dict[str, Any]
    clock: dict[str, Any]
    rules: dict[str, Any]
    rated: bool
    host_id: str | None
    players: tuple[PlayerRef, PlayerRef]
    first: int
    """Who moved first in game 1 (1 or 2); the first move alternates after that."""
    matches: tuple[int, ...]
    results: tuple[int, ...]
    status: str

    @property
    def points(self) -> tuple[float, float]:
        """Both players' points so far (a draw: ½ each)."""
        one = sum(1.0 if r == 1 else 0.5 if r == DRAW else 0.0 for r in self.results)
        two = sum(1.0 if r == 2 else 0.5 if r == DRAW else 0.0 for r in self.results)
        return one, two

    @property
    def decided(self) -> bool:
        """One player cannot be caught any more, or all N games are played."""
        return max(self.points) > self.best_of / 2 or len(self.results) >= self.best_of

    @property
    def winner(self) -> int | None:
        """The series' winner (1 or 2) once decided; None while running or when level."""
        one, two = self.points
        if not self.decided or one == two:
            return None
        return 1 if one > two else 2

    @property
    def game_number(self) -> int:
        """The number of the game being played (or the last one, once over)."""
        return len(self.matches)

    def first_of(self, game_index: int) -> int:
        """Who moves first in game `game_index` (0 = the first game): alternating from `first`."""
        return self.first if game_index % 2 == 0 else 3 - self.first

    def score_of(self, match_id: int) -> tuple[float, float, int]:
        """The score before a game of this series and its number: (points 1, points 2, game number)."""
        index = self.matches.index(match_id)
        before = Series(**{**self.__dict__, "results": self.results[:index]})
        return (*before.points, index + 1)


@dataclass(frozen=True)
class SeriesNews:
    """What an adapter announces: `next` (a new game opened: `match_id`), `over` (decided or aborted)."""

    kind: NewsKind
    series: Series
    match_id: int
    previous: int | None = None


Listener = Callable[[SeriesNews], Awaitable[None] | None]


def _from_row(row: RowMapping) -> Series:
    return Series(
        id=int(row["id"]),
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        game=row["game"],
        best_of=int(row["best_of"]),
        options=dict(row["options"] or {}),
        clock=dict(row["clock"] or {}),
        rules=dict(row["rules"] or {}),
        rated=bool(row["rated"]),
        host_id=row["host_id"],
        players=(PlayerRef(row["player1_id"], row["player1_name"]), PlayerRef(row["player2_id"], row["player2_name"])),
        first=int(row["first"]),
        matches=tuple(int(m) for m in row["matches"] or []),
        results=tuple(int(r) for r in row["results"] or []),
        status=row["status"],
    )


@dataclass
class SeriesService:
    """Runs best-of-N series on top of the match service (one per process, beside it)."""

    service: MatchService
    _by_match: dict[int, Series] = field(default_factory=dict)
    publish: Listener | None = None
    """Where its news goes: the composition root's bus (`Bus.tell`); None: nobody hears it."""
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    hear: Callable[[Callable[[HostEvent], Awaitable[None]]], None] | None = None
    """How it subscribes to the host's events at once: the root's bus at `Stage.FOLLOW` (a test's
    `functools.partial(bus.subscribe, stage=Stage.FOLLOW)`); None: the caller subscribes it (the root does)."""

    def __post_init__(self) -> None:
        if self.hear is not None:
            self.hear(self.on_host_event)

    @property
    def _engine(self) -> Any:
        return self.service.store.engine

    def of_match(self, match_id: int) -> Series | None:
        """The series a match belongs to (as it stands now), if any."""
        return self._by_match.get(match_id)

    # -- starting ------------------------------------------------------------------
    async def start(self) -> None:
        """After the match service resumed its matches: know every running series again, and score and
        continue those whose last game ended while this process was away."""
        async with self._engine.connect() as conn:
            rows = (await conn.execute(select(SERIES).where(SERIES.c.status == SeriesStatus.RUNNING))).mappings().all()
        for row in rows:
            series = _from_row(row)
            if not series.matches or not self.service.owns_guild(series.guild_id):
                continue
            last = series.matches[-1]
            for match_id in series.matches:
                self._by_match[match_id] = series
            if last in self.service.live:
                continue
            stored = await self.service.store.load(last)
            if stored is not None and stored.status in (MatchStatus.FINISHED, MatchStatus.ABORTED):
                winner_id = stored.players[stored.winner_seat][0] if stored.winner_seat in stored.players else None
                aborted = stored.status == MatchStatus.ABORTED
                again = functools.partial(self._game_over, series.id, last, winner_id, aborted)
                self._spawn(again(), again)

    async def create(
        self,
        game: str,
        players: Sequence[PlayerRef],
        best_of: int,
        *,
        options: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        first: int = 1,
        guild_id: int | None = None,
        channel_id: int | None = None,
        by: str | None = None,
        rated: bool = True,
    ) -> tuple[Series, int]:
        """Store a new series and open its first game (HostError as `create_match` refuses); the series and
        the first game's match id."""
        if best_of < 1 or best_of % 2 == 0:
            raise ValueError("a series is best of an odd number of games")
        p1, p2 = players
        now = utcnow()
        async with self._engine.begin() as conn:
            result = await conn.execute(
                insert(SERIES)
                .values(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    game=game,
                    best_of=best_of,
                    options=dict(options or {}),
                    clock=dict(clock or {}),
                    rules=dict(rules or {}),
                    rated=rated,
                    host_id=by,
                    player1_id=p1.id,
                    player1_name=p1.name,
                    player2_id=p2.id,
                    player2_name=p2.name,
                    first=first,
                    matches=[],
                    results=[],
                    status=SeriesStatus.RUNNING,
                    created_at=now,
                    updated_at=now,
                )
                .returning(SERIES.c.id)
            )
            series_id = int(result.scalar_one())
        series = await self._get(series_id)
        try:
            match_id = await self._open_game(series)
        except Exception:
            await self._save(series_id, status=SeriesStatus.ABORTED)
            raise
        fresh = self._by_match[match_id]
        return fresh, match_id

    async def _get(self, series_id: int) -> Series:
        async with self._engine.connect() as conn:
            row = (await conn.execute(select(SERIES).where(SERIES.c.id == series_id))).mappings().one()
        return _from_row(row)

    async def get(self, series_id: int) -> Series | None:
        """A series as stored, or None."""
        async with self._engine.connect() as conn:
            row = (await conn.execute(select(SERIES).where(SERIES.c.id == series_id))).mappings().first()
        return None if row is None else _from_row(row)

    async def _save(self, series_id: int, **values: Any) -> Series:
        async with self._engine.begin() as conn:
            await conn.execute(update(SERIES).where(SERIES.c.id == series_id).values(updated_at=utcnow(), **values))
        series = await self._get(series_id)
        for match_id in series.matches:
            self._by_match[match_id] = series
        return series

    async def _open_game(self, series: Series) -> int:
        """Create the series' next game in its room, the first move alternating; stored with the series."""
        match_id = await self.service.create_match(
            series.game,
            list(series.players),
            options=series.options,
            clock=series.clock,
            rules=series.rules,
            first=series.first_of(len(series.matches)),
            guild_id=series.guild_id,
            channel_id=series.channel_id,
            by=series.host_id,
            rated=series.rated,
        )
        # known at once (before any await), so the new game's first board already shows the score
        self._by_match[match_id] = Series(**{**series.__dict__, "matches": (*series.matches, match_id)})
        await self._save(series.id, matches=[*series.matches, match_id])
        return match_id

    # -- the games' ends -----------------------------------------------------------
    @after_commit(EventKind.FINISHED, EventKind.ABORTED)
    async def on_host_event(self, ev: HostEvent) -> None:
        """A game of a series ended: score it and open the next game, after the commit and off the move path
        (`bot.host.subscribers`). A step that fails is retried in a task of its own (`_spawn`); every step is
        idempotent (`_game_over`), so a second delivery, or the catch-up at `start`, changes nothing."""
        if ev.match_id not in self._by_match or ev.result is None:
            return
        series = self._by_match[ev.match_id]
        again = functools.partial(
            self._game_over, series.id, ev.match_id, ev.result.winner_id, ev.kind == EventKind.ABORTED
        )
        try:
            await again()
        except Exception:
            log.exception("a series could not go on; trying again")
            self._spawn(None, again)

    def _spawn(self, work: Awaitable[None] | None, again: Callable[[], Awaitable[None]] | None = None) -> None:
        """Run `work` in a task (None: `again()` after the first pause); when it fails (a failed or ambiguous
        commit), `again()` is retried after 1 s, then twice as long each time (at most a minute): each step
        is idempotent (see `_game_over`)."""

        async def run() -> None:
            pause = RETRY_FIRST_S
            attempt: Awaitable[None] | None = work
            if attempt is None and again is not None:
                await asyncio.sleep(pause)
                pause = min(pause * 2, RETRY_MAX_S)
                attempt = again()
            while attempt is not None:
                try:
                    await attempt
                    return
                except Exception:
                    log.exception("a series could not go on%s", "; trying again" if again else "")
                if again is None:
                    return
                await asyncio.sleep(pause)
                pause = min(pause * 2, RETRY_MAX_S)
                attempt = again()

        task = asyncio.create_task(run(), name="series")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait for every game end being handled (tests, shutdown): the host's after-commit queues, then the
        retries and the catch-up's tasks (never from inside a host-event listener)."""
        await self.service.drained()
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
            await self.service.drained()

    async def close(self) -> None:
        """Stop handling game ends (what was not stored is picked up again by `start`)."""
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _game_over(self, series_id: int, match_id: int, winner_id: str | None, aborted: bool) -> None:
        async with self._locks.setdefault(series_id, asyncio.Lock()):
            series = await self._get(series_id)
            if series.status != SeriesStatus.RUNNING or not series.matches or series.matches[-1] != match_id:
                return  # already scored (a restart found it twice)
            if aborted:
                series = await self._save(series_id, status=SeriesStatus.ABORTED)
                await self._emit(SeriesNews(NewsKind.OVER, series, match_id))
                return
            if len(series.results) < len(series.matches):  # else: scored already (a retry after a lost answer)
                ids = [p.id for p in series.players]
                result = ids.index(winner_id) + 1 if winner_id in ids else DRAW
                series = await self._save(series_id, results=[*series.results, result])
            if series.decided:
                series = await self._save(series_id, status=SeriesStatus.FINISHED)
                await self._emit(SeriesNews(NewsKind.OVER, series, match_id))
                return
            next_id = await self._open_game(series)
            await self._emit(SeriesNews(NewsKind.NEXT, self._by_match[next_id], next_id, match_id))

    async def _emit(self, news: SeriesNews) -> None:
        """Every new game and every series' end, once stored, to `publish`."""
        if self.publish is None:
            return
        try:
            result = self.publish(news)
            if asyncio.iscoroutine(result):
                await result
        except Exception:
            log.exception("series news failed for %s", news.kind)

    # -- reading (for the review pages) --------------------------------------------
    async def series_of(self, match_id: int, player_ids: Sequence[str]) -> Series | None:
        """The series a stored match (played by `player_ids`) is a game of, read from the database (finished
        series too, unlike `of_match`); None when it is no series' game."""
        from bot.series.lookup import rows_of

        return next((s for s in map(_from_row, await rows_of(self._engine, player_ids)) if match_id in s.matches), None)
