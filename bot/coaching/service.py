"""The coaching service: certified puzzles built from finished matches' stored analyses, served and rated;
a player's insights; the fair-play report.

It reads the stored analyses and replays matches through an `AnalysisSource` the composition root gives it
(the analyses are the review layer's); matches and players it reads from the store. Puzzles come only from
finished matches, and a player is never served one from a match of their own unfinished series (`blocked`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.coaching import certify, fairplay
from bot.coaching.insights import AnalysedMatch, insights
from bot.coaching.models import NO_GUILD, DailyPuzzle, PuzzleAttempt, PuzzleRating, PuzzleRow, PuzzleScan
from bot.coaching.rating import START, Figures, rate
from bot.store.db import Match, MatchPlayer, utcnow
from bot.store.matches import MatchStore, StoredMatch
from bot.types import MatchStatus
from games import registry
from games.base import AnyRuleset, MoveError

log = logging.getLogger(__name__)

CHUNK = 500
"""Match ids per `IN (…)` query."""


class FrameLike(Protocol):
    """A replayed position: the state after `ply` moves, and the move (`seat`, `move` text) that made it."""

    ply: int
    state: Any
    seat: int | None
    move: str | None


class AnalysisSource(Protocol):
    """Where the stored analyses are read and matches replayed (`bot.records.coaching_source`)."""

    async def entries(self, match_ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
        """The stored analysis entries of those of `match_ids` that have one."""
        ...

    async def analysed_ids(self) -> list[int]:
        """Every match with a stored analysis."""
        ...

    def replay(self, match: StoredMatch) -> tuple[AnyRuleset, Sequence[FrameLike]]:
        """The ruleset and the positions of a match loaded with its events."""
        ...


Blocked = Callable[[Sequence[str]], Awaitable[set[int]]]
"""The matches of these players' unfinished series."""
RatingsOf = Callable[[int | None, str, Sequence[str]], Awaitable[dict[str, float]]]
"""The game ratings of some players in a server and game (those rated)."""


def guild_key(guild_id: int | None) -> int:
    """The key of a server (0 for none)."""
    return NO_GUILD if guild_id is None else int(guild_id)


@dataclass
class Puzzle:
    """A stored puzzle."""

    id: int
    match_id: int
    ply: int
    guild_key: int
    game: str
    options: dict[str, Any]
    moves: list[str]
    seats: list[int]
    position: dict[str, Any]
    seat: int
    mover_id: str
    answer: list[str]
    value: float
    proof: dict[str, Any]
    rating: float
    mover_name: str = ""

    def as_json(self) -> dict[str, Any]:
        """The JSON line of `dmhost puzzles build`."""
        return {
            "puzzle": self.id,
            "match": self.match_id,
            "ply": self.ply,
            "game": self.game,
            "options": self.options,
            "moves": self.moves,
            "answer": self.answer,
            "value": self.value,
            "proof": self.proof,
        }

    def ruleset(self) -> AnyRuleset:
        return registry.get(self.game)

    def state(self) -> Any:
        """The position."""
        return self.ruleset().from_json(self.position)


@dataclass
class Answered:
    """The outcome of an answer: right or wrong, the answer and its proving line, the player's new rating."""

    puzzle: Puzzle
    move: str
    solved: bool
    rating: float
    change: float

    @property
    def line(self) -> list[str]:
        return list(self.puzzle.proof.get("line") or self.puzzle.answer)


class PuzzleMoveError(ValueError):
    """A posted text that is no legal move in the puzzle's position (its message is the game's reason)."""


class CoachingService:
    """Puzzles, insights and the fair-play report of one database."""

    def __init__(
        self,
        store: MatchStore,
        source: AnalysisSource,
        *,
        blocked: Blocked | None = None,
        rating_of: RatingsOf | None = None,
    ) -> None:
        self.store = store
        self.source = source
        self.blocked = blocked
        self.ratings_for = rating_of
        self._tasks: set[asyncio.Task[Any]] = set()
        self._lock = asyncio.Lock()

    @property
    def engine(self) -> Any:
        return self.store.engine

    # -- building ----------------------------------------------------------------------
    def on_analysis(self, match_id: int) -> None:
        """A match's analysis was stored: search it for puzzles (in a task of its own; call on the loop)."""
        task = asyncio.get_running_loop().create_task(self._build_logged(match_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _build_logged(self, match_id: int) -> None:
        try:
            await self.build_match(match_id)
        except Exception:
            log.exception("building the puzzles of match %s failed", match_id)

    async def drain(self) -> None:
        """Wait for the puzzle searches under way."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def build(self, game: str | None = None) -> int:
        """Search every analysed finished match not searched yet (of `game`); returns the puzzles added."""
        ids = await self.source.analysed_ids()
        async with self.engine.connect() as conn:
            done = {int(r[0]) for r in (await conn.execute(select(PuzzleScan.match_id))).all()}
            todo = [i for i in ids if i not in done]
            if game is not None and todo:
                todo = await _of_game(conn, todo, game)
        added = 0
        for mid in sorted(todo):
            added += await self.build_match(mid)
        return added

    async def build_match(self, match_id: int) -> int:
        """Search one finished match's stored analysis for certified puzzles and store them (once)."""
        async with self._lock:
            async with self.engine.connect() as conn:
                if (await conn.execute(select(PuzzleScan.match_id).where(PuzzleScan.match_id == match_id))).first():
                    return 0
            stored = await self.store.load(match_id, with_events=True)
            if stored is None or stored.status != MatchStatus.FINISHED:
                return 0  # never from a match still in progress
            entries = (await self.source.entries([match_id])).get(match_id)
            if entries is None:
                return 0
            drafts = await asyncio.to_thread(self._certify, stored, entries)
            async with self.engine.begin() as conn:
                for values in drafts:
                    await conn.execute(insert(PuzzleRow).values(**values))
                await conn.execute(insert(PuzzleScan).values(match_id=match_id, found=len(drafts), scanned_at=utcnow()))
            return len(drafts)

    def _certify(self, stored: StoredMatch, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ruleset, frames = self.source.replay(stored)
        by_ply = {int(e["ply"]): e for e in entries if "ply" in e}
        out: list[dict[str, Any]] = []
        for i, frame in enumerate(frames[:-1]):
            entry = by_ply.get(frame.ply + 1)
            if entry is None:
                continue
            draft = certify.certify(stored.game, ruleset, frame.state, frame.ply, entry)
            if draft is None:
                continue
            mover = stored.players.get(draft.seat, ("", ""))[0]
            out.append(
                {
                    "match_id": stored.id,
                    "ply": frame.ply,
                    "guild_key": guild_key(stored.guild_id),
                    "game": stored.game,
                    "options": dict(stored.options),
                    "moves": [str(f.move) for f in frames[1 : i + 1]],
                    "seats": [int(f.seat or 0) for f in frames[1 : i + 1]],
                    "position": ruleset.to_json(frame.state),
                    "seat": draft.seat,
                    "mover_id": mover,
                    "answer": draft.answer,
                    "value": draft.value,
                    "proof": draft.proof,
                    "rating": START[0],
                    "deviation": START[1],
                    "volatility": START[2],
                    "plays": 0,
                    "created_at": utcnow(),
                }
            )
        return out

    async def puzzles(self, game: str | None = None) -> list[Puzzle]:
        """Every stored puzzle (of `game`), in order of match and ply."""
        query = select(PuzzleRow).order_by(PuzzleRow.match_id, PuzzleRow.ply)
        if game is not None:
            query = query.where(PuzzleRow.game == game)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [_puzzle(r) for r in rows]

    async def scanned(self) -> tuple[int, int]:
        """(matches searched, puzzles found in them)."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(func.count(), func.coalesce(func.sum(PuzzleScan.found), 0)))).first()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    # -- serving -----------------------------------------------------------------------
    async def next_puzzle(self, guild_id: int | None, player_id: str, game: str | None = None) -> Puzzle | None:
        """A puzzle of this server (and game) for the player: from a finished match, not one of their own
        unfinished series, not served to them before; the nearest to their puzzle rating first."""
        key = guild_key(guild_id)
        blocked = await self.blocked([player_id]) if self.blocked is not None else set()
        tried = select(PuzzleAttempt.puzzle_id).where(PuzzleAttempt.player_id == player_id)
        query = (
            select(PuzzleRow)
            .join(Match, Match.id == PuzzleRow.match_id)
            .where(
                PuzzleRow.guild_key == key,
                Match.status == MatchStatus.FINISHED,
                PuzzleRow.id.not_in(tried),
            )
        )
        if game is not None:
            query = query.where(PuzzleRow.game == game)
        async with self.engine.connect() as conn:
            rows = [r for r in (await conn.execute(query)).mappings().all() if int(r["match_id"]) not in blocked]
            if not rows:
                return None
            mine: dict[str, float] = {}
            for g in {str(r["game"]) for r in rows}:
                mine[g] = (await _figures(conn, key, g, player_id)).rating
        rows.sort(key=lambda r: (abs(float(r["rating"]) - mine[str(r["game"])]), -int(r["id"])))
        return await self._named(_puzzle(rows[0]))

    async def servable(self, puzzle: Puzzle, player_id: str) -> bool:
        """Whether a puzzle may be answered by this player: its match finished, not one of their own unfinished
        series."""
        async with self.engine.connect() as conn:
            status = (await conn.execute(select(Match.status).where(Match.id == puzzle.match_id))).scalar()
        if status != MatchStatus.FINISHED:
            return False
        blocked = await self.blocked([player_id]) if self.blocked is not None else set()
        return puzzle.match_id not in blocked

    async def analysis_refused(self, match_id: int, player_id: str) -> bool:
        """Whether an engine (the practice opponent, the solver) must refuse to analyse a position of this match
        for this player: a rated match still in progress in which they play (fair play). Faces that offer an
        analysis of a match's position ask this first."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(Match.status, Match.rated).where(Match.id == match_id))).first()
            if row is None or row[0] in (MatchStatus.FINISHED, MatchStatus.ABORTED) or row[1] is False:
                return False
            plays = await conn.execute(
                select(MatchPlayer.id).where(MatchPlayer.match_id == match_id, MatchPlayer.player_id == player_id)
            )
            return plays.first() is not None

    async def get(self, puzzle_id: int) -> Puzzle | None:
        """A stored puzzle by id."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(PuzzleRow).where(PuzzleRow.id == puzzle_id))).mappings().first()
        return None if row is None else await self._named(_puzzle(row))

    async def _named(self, puzzle: Puzzle) -> Puzzle:
        async with self.engine.connect() as conn:
            name = (
                await conn.execute(
                    select(MatchPlayer.name).where(
                        MatchPlayer.match_id == puzzle.match_id, MatchPlayer.seat == puzzle.seat
                    )
                )
            ).scalar()
        puzzle.mover_name = str(name or f"seat {puzzle.seat}")
        return puzzle

    def check_move(self, puzzle: Puzzle, text: str) -> str:
        """The canonical text of a posted move in the puzzle's position; `PuzzleMoveError` when it is none."""
        ruleset = puzzle.ruleset()
        state = puzzle.state()
        try:
            move = ruleset.parse(state, text.strip(), puzzle.seat)
        except MoveError as exc:
            raise PuzzleMoveError(str(exc.reason if hasattr(exc, "reason") else exc)) from None
        return str(ruleset.format(state, move))

    async def answer(self, puzzle: Puzzle, guild_id: int | None, player_id: str, text: str) -> Answered:
        """Judge a posted move (`PuzzleMoveError` when it is no legal move) and rate the attempt: the player's
        puzzle rating in this server and game, and the puzzle's own. A second answer to one puzzle is judged
        but not rated again."""
        move = self.check_move(puzzle, text)
        solved = move in puzzle.answer or move in (puzzle.proof.get("same_as") or [])
        key = guild_key(guild_id)
        async with self.engine.begin() as conn:
            before = await _figures(conn, key, puzzle.game, player_id)
            again = (
                await conn.execute(
                    select(PuzzleAttempt.solved).where(
                        PuzzleAttempt.puzzle_id == puzzle.id, PuzzleAttempt.player_id == player_id
                    )
                )
            ).first()
            if again is not None:
                return Answered(puzzle, move, solved, before.rating, 0.0)
            row = (
                await conn.execute(
                    select(PuzzleRow.rating, PuzzleRow.deviation, PuzzleRow.volatility).where(PuzzleRow.id == puzzle.id)
                )
            ).first()
            theirs = Figures(*row) if row else Figures(*START)
            mine, its = rate(before, theirs, solved)
            await _save_figures(conn, key, puzzle.game, player_id, mine)
            await conn.execute(
                update(PuzzleRow)
                .where(PuzzleRow.id == puzzle.id)
                .values(
                    rating=its.rating, deviation=its.deviation, volatility=its.volatility, plays=PuzzleRow.plays + 1
                )
            )
            await conn.execute(
                insert(PuzzleAttempt).values(
                    puzzle_id=puzzle.id, player_id=player_id, guild_key=key, move=move[:100], solved=solved, at=utcnow()
                )
            )
        return Answered(puzzle, move, solved, mine.rating, mine.rating - before.rating)

    async def puzzle_rating(self, guild_id: int | None, game: str, player_id: str) -> tuple[float, int]:
        """A player's puzzle rating in a server and game, and how many puzzles it counts."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(PuzzleRating.rating, PuzzleRating.games).where(
                        PuzzleRating.guild_key == guild_key(guild_id),
                        PuzzleRating.game == game,
                        PuzzleRating.player_id == player_id,
                    )
                )
            ).first()
        return (float(row[0]), int(row[1])) if row else (START[0], 0)

    # -- the daily puzzle ----------------------------------------------------------------
    async def set_daily(self, guild_id: int, channel_id: int | None) -> None:
        """Post the server's daily puzzle in this channel (None: no more)."""
        async with self.engine.begin() as conn:
            await conn.execute(delete(DailyPuzzle).where(DailyPuzzle.guild_id == guild_id))
            if channel_id is not None:
                await conn.execute(insert(DailyPuzzle).values(guild_id=guild_id, channel_id=channel_id))

    async def daily_channels(self) -> dict[int, int]:
        """Server → its daily puzzle's channel."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(DailyPuzzle.guild_id, DailyPuzzle.channel_id))).all()
        return {int(g): int(c) for g, c in rows}

    async def daily(self, guild_id: int, day: dt.date) -> Puzzle | None:
        """The server's puzzle of `day`, picked once (the newest puzzle not yet a daily one) and kept for the day;
        None when the server has no daily channel or no puzzle."""
        stamp = day.isoformat()
        async with self.engine.begin() as conn:
            row = (await conn.execute(select(DailyPuzzle).where(DailyPuzzle.guild_id == guild_id))).mappings().first()
            if row is None:
                return None
            if row["last_day"] == stamp and row["last_puzzle"] is not None:
                pid = int(row["last_puzzle"])
            else:
                previous = row["last_puzzle"] or 0
                query = (
                    select(PuzzleRow.id)
                    .join(Match, Match.id == PuzzleRow.match_id)
                    .where(PuzzleRow.guild_key == guild_id, Match.status == MatchStatus.FINISHED)
                    .order_by(PuzzleRow.id.desc())
                )
                ids = [int(r[0]) for r in (await conn.execute(query)).all()]
                if not ids:
                    return None
                newer = [i for i in ids if i > previous]
                pid = newer[-1] if newer else ids[0]
                await conn.execute(
                    update(DailyPuzzle).where(DailyPuzzle.guild_id == guild_id).values(last_day=stamp, last_puzzle=pid)
                )
        return await self.get(pid)

    # -- insights and fair play ------------------------------------------------------------
    async def player_ids(self, name: str) -> list[str]:
        """The ids of the players named `name` (any case)."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(MatchPlayer.player_id).where(func.lower(MatchPlayer.name) == name.strip().lower()).distinct()
            )
            return sorted(str(r[0]) for r in rows.all())

    async def analysed_matches(
        self, *, player_ids: Sequence[str] | None = None, game: str | None = None, guild_id: int | None = None
    ) -> list[AnalysedMatch]:
        """Finished matches with a stored analysis (of these players, game, server), oldest first."""
        query = select(Match.id, Match.game, Match.guild_id, Match.rated, Match.options).where(
            Match.status == MatchStatus.FINISHED
        )
        if game is not None:
            query = query.where(Match.game == game)
        if guild_id is not None:
            query = query.where(Match.guild_id == guild_id)
        if player_ids is not None:
            query = query.where(
                Match.id.in_(select(MatchPlayer.match_id).where(MatchPlayer.player_id.in_(list(player_ids))))
            )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query.order_by(Match.id))).all()
            ids = [int(r[0]) for r in rows]
            players: dict[int, dict[int, tuple[str, str]]] = {i: {} for i in ids}
            for start in range(0, len(ids), CHUNK):
                part = ids[start : start + CHUNK]
                got = await conn.execute(
                    select(MatchPlayer.match_id, MatchPlayer.seat, MatchPlayer.player_id, MatchPlayer.name).where(
                        MatchPlayer.match_id.in_(part)
                    )
                )
                for mid, seat, pid, name in got.all():
                    players[int(mid)][int(seat)] = (str(pid), str(name))
        entries: dict[int, list[dict[str, Any]]] = {}
        for start in range(0, len(ids), CHUNK):
            entries.update(await self.source.entries(ids[start : start + CHUNK]))
        return [
            AnalysedMatch(int(mid), str(g), gid, rated is not False, dict(opts or {}), players[mid], entries[mid])
            for mid, g, gid, rated, opts in rows
            if int(mid) in entries
        ]

    async def insights(
        self, player_ids: Sequence[str], game: str | None = None, guild_id: int | None = None
    ) -> list[dict[str, Any]]:
        """The player's insights per game (`bot.coaching.insights`)."""
        if not player_ids:
            return []
        matches = await self.analysed_matches(player_ids=player_ids, game=game, guild_id=guild_id)
        return insights(player_ids, matches)

    async def fairplay(self, game: str | None = None, guild_id: int | None = None) -> list[dict[str, Any]]:
        """The fair-play report over rated matches (`bot.coaching.fairplay`)."""
        matches = [m for m in await self.analysed_matches(game=game, guild_id=guild_id) if m.rated]
        known: dict[tuple[str, str], float] = {}
        if self.ratings_for is not None:
            for g in sorted({m.game for m in matches}):
                ids = sorted({pid for m in matches if m.game == g for pid, _n in m.players.values()})
                for pid, value in (await self.ratings_for(guild_id, g, ids)).items():
                    known[(pid, g)] = value
        return fairplay.report(matches, lambda pid, g: known.get((pid, g)))


async def _of_game(conn: AsyncConnection, ids: list[int], game: str) -> list[int]:
    out: list[int] = []
    for start in range(0, len(ids), CHUNK):
        part = ids[start : start + CHUNK]
        rows = await conn.execute(select(Match.id).where(and_(Match.id.in_(part), Match.game == game)))
        out += [int(r[0]) for r in rows.all()]
    return out


def _puzzle(row: Any) -> Puzzle:
    return Puzzle(
        int(row["id"]),
        int(row["match_id"]),
        int(row["ply"]),
        int(row["guild_key"]),
        str(row["game"]),
        dict(row["options"] or {}),
        list(row["moves"]),
        list(row["seats"]),
        dict(row["position"]),
        int(row["seat"]),
        str(row["mover_id"]),
        list(row["answer"]),
        float(row["value"]),
        dict(row["proof"]),
        float(row["rating"]),
    )


async def _figures(conn: AsyncConnection, key: int, game: str, player_id: str) -> Figures:
    row = (
        await conn.execute(
            select(PuzzleRating.rating, PuzzleRating.deviation, PuzzleRating.volatility).where(
                PuzzleRating.guild_key == key, PuzzleRating.game == game, PuzzleRating.player_id == player_id
            )
        )
    ).first()
    return Figures(*row) if row else Figures(*START)


async def _save_figures(conn: AsyncConnection, key: int, game: str, player_id: str, f: Figures) -> None:
    where = and_(PuzzleRating.guild_key == key, PuzzleRating.game == game, PuzzleRating.player_id == player_id)
    done = await conn.execute(
        update(PuzzleRating)
        .where(where)
        .values(rating=f.rating, deviation=f.deviation, volatility=f.volatility, games=PuzzleRating.games + 1)
    )
    if not done.rowcount:
        await conn.execute(
            insert(PuzzleRating).values(
                guild_key=key,
                game=game,
                player_id=player_id,
                rating=f.rating,
                deviation=f.deviation,
                volatility=f.volatility,
                games=1,
            )
        )
