"""Where a match stood, for its review page: the tournament round and board, or the series game and score."""

from __future__ import annotations

from bot.series import SeriesService
from bot.store.matches import StoredMatch
from bot.tournaments.service import TournamentService


async def match_context(tournaments: TournamentService, series: SeriesService, stored: StoredMatch) -> list[str]:
    """Lines such as "Tournament Spring Cup, round 2, board 1" or "Series best of 3, game 2 (1–0 before)", read
    through the tournament and series services (`bot.compose.build_readers`)."""
    lines: list[str] = []
    place = await tournaments.place_of(stored.id)
    if place is not None:
        lines.append(f"Tournament {place.name}, round {place.round}, board {place.board}")
    found = await series.series_of(stored.id, [pid for pid, _name in stored.players.values()])
    if found is not None:
        one, two, number = found.score_of(stored.id)
        lines.append(f"Series best of {found.best_of}, game {number} ({one:g}–{two:g} before it)")
    return lines
