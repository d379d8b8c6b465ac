"""What the ratings answer, as values (no words): standings, a match's changes, a player's results and
profile, and what a rebuild did."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GameProfile", "MatchRating", "PlayerChange", "RebuildReport", "Result", "Standing"]


@dataclass(frozen=True)
class Standing:
    """A player's place in a server's table for one game, as shown now (deviation grown with inactivity)."""

    guild: int | None
    game: str
    player_id: str
    name: str
    rating: float
    deviation: float
    provisional: bool
    games: int
    wins: int
    losses: int
    draws: int
    streak: int
    last_at: dt.datetime
    rank: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The `dmhost ratings --json` entry."""
        return {
            "player": self.name,
            "id": self.player_id,
            "game": self.game,
            "rating": round(self.rating, 1),
            "deviation": round(self.deviation, 1),
            "provisional": self.provisional,
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
        }


@dataclass(frozen=True)
class PlayerChange:
    """One player's rating change in one match."""

    seat: int
    player_id: str
    name: str
    before: float
    after: float
    provisional: bool

    @property
    def delta(self) -> float:
        """After minus before."""
        return self.after - self.before


@dataclass(frozen=True)
class MatchRating:
    """What a rated match did to both players."""

    match_id: int
    guild: int | None
    game: str
    changes: tuple[PlayerChange, ...]


@dataclass(frozen=True)
class Result:
    """One of a player's past rated matches."""

    match_id: int
    opponent_id: str
    opponent: str
    score: float
    rating_after: float
    delta: float
    at: dt.datetime
    channel_id: int | None


@dataclass(frozen=True)
class GameProfile:
    """A player's figures in one game of one server."""

    standing: Standing
    recent: list[Result]
    history: list[tuple[dt.datetime, float]]
    """(when, rating after) of every rated match, oldest first."""
    head_to_head: tuple[int, int, int] | None = None
    """Against the other member asked about: wins, losses, draws (None when nobody was asked about)."""


@dataclass
class RebuildReport:
    """What `rebuild` did."""

    matches: int
    changed: int
    by_table: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, int]:
        """`{"matches": N, "changed": K}`."""
        return {"matches": self.matches, "changed": self.changed}
