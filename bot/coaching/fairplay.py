"""Fair play: how often a player's moves equal the engine's best where that is hard, against what players of
their rating do (pure: no database).

A position is *hard* when the stored analysis judged the move and few of the moves were best: not forced,
not obvious (`is_hard`). A player's `engine_rate` is the share of their hard moves the analysis called
`best`; the `expected_rate` is that share among the other players of the game whose rating is within
`RATING_BAND` of theirs (all the game's other players when those made too few such moves, `PRIOR` when no
one did). A flag needs the evidence of `MIN_MOVES` hard moves, a rate of at least `FLAG_RATE` and a rate
`Z_FLAG` standard deviations above the expected one (a binomial count): implausible, not merely strong.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from bot.coaching.insights import AnalysedMatch

MIN_MOVES = 40
"""Hard moves a player must have made in a game before a flag can be raised."""
FLAG_RATE = 0.98
"""The engine rate a flag needs at least."""
Z_FLAG = 3.0
"""Standard deviations above the expected rate a flag needs at least."""
RATING_BAND = 200.0
"""Players within this many rating points count as players of that rating."""
MIN_POOL = 50
"""Hard moves of the band's players needed before their rate is the expected one."""
PRIOR = 0.5
"""The expected rate when no other player made a hard move in the game."""
HARD_BEST = 3
"""At most this many best moves (and fewer than half of the legal ones, where they are known)."""


def boxes_edges(options: dict[str, Any]) -> int:
    """The number of edges of a Boxes board."""
    rows = int(options.get("rows", 3) or 3)
    cols = int(options.get("cols", rows) or rows)
    return rows * (cols + 1) + cols * (rows + 1)


def is_hard(game: str, entry: dict[str, Any], options: dict[str, Any]) -> bool:
    """Whether an analysed move's position is hard: some move was best, at most `HARD_BEST` were, and (Boxes,
    where the legal moves are the undrawn edges) fewer than half of the legal moves were."""
    if not entry.get("analysed"):
        return False
    best = entry.get("best") or []
    if not best or len(best) > HARD_BEST:
        return False
    if game == "boxes":
        legal = boxes_edges(options) - (int(entry.get("ply") or 1) - 1)
        return legal >= 3 and 2 * len(best) < legal
    return True


@dataclass
class Record:
    """A player's hard moves in one game."""

    player_id: str
    name: str
    game: str
    matches: int = 0
    moves: int = 0
    engine: int = 0

    @property
    def rate(self) -> float:
        return self.engine / self.moves if self.moves else 0.0


def records(matches: Iterable[AnalysedMatch]) -> dict[tuple[str, str], Record]:
    """Per (player id, game): rated matches, hard moves, and how many of those the analysis called best."""
    out: dict[tuple[str, str], Record] = {}
    for m in matches:
        if not m.rated:
            continue
        for seat, (pid, name) in m.players.items():
            rec = out.setdefault((pid, m.game), Record(pid, name, m.game))
            rec.name = name
            rec.matches += 1
            for e in m.entries:
                if e.get("seat") == seat and is_hard(m.game, e, m.options):
                    rec.moves += 1
                    rec.engine += e.get("verdict") == "best"
    return out


def zscore(engine: int, moves: int, expected: float) -> float:
    """How many standard deviations `engine` of `moves` lies above `moves × expected` (binomial)."""
    p = min(max(expected, 1e-6), 1 - 1e-6)
    return (engine - moves * p) / math.sqrt(moves * p * (1 - p)) if moves else 0.0


def report(
    matches: Iterable[AnalysedMatch], rating_of: Callable[[str, str], float | None] | None = None
) -> list[dict[str, Any]]:
    """`{"player", "game", "matches", "moves", "engine_rate", "expected_rate", "flag"}` per player and game over
    rated matches (flagged ones first, then by game and player); `rating_of(player_id, game)` gives ratings."""
    recs = records(matches)
    by_game: dict[str, list[Record]] = defaultdict(list)
    for rec in recs.values():
        by_game[rec.game].append(rec)
    out = []
    for game, group in by_game.items():
        for rec in group:
            expected = _expected(rec, group, rating_of)
            z = zscore(rec.engine, rec.moves, expected)
            flag = rec.moves >= MIN_MOVES and rec.rate >= FLAG_RATE and z >= Z_FLAG
            out.append(
                {
                    "player": rec.name,
                    "game": game,
                    "matches": rec.matches,
                    "moves": rec.moves,
                    "engine_rate": round(rec.rate, 4),
                    "expected_rate": round(expected, 4),
                    "flag": flag,
                }
            )
    out.sort(key=lambda r: (not r["flag"], r["game"], r["player"]))
    return out


def _expected(rec: Record, group: list[Record], rating_of: Callable[[str, str], float | None] | None) -> float:
    others = [r for r in group if r.player_id != rec.player_id and r.moves]
    mine = rating_of(rec.player_id, rec.game) if rating_of else None
    if mine is not None and rating_of is not None:
        band = []
        for r in others:
            theirs = rating_of(r.player_id, r.game)
            if theirs is not None and abs(theirs - mine) <= RATING_BAND:
                band.append(r)
        if sum(r.moves for r in band) >= MIN_POOL:
            others = band
    moves = sum(r.moves for r in others)
    return sum(r.engine for r in others) / moves if moves else PRIOR
