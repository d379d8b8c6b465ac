"""Where a match stood, for its review page: the tournament round and board, or the series game and score."""

from __future__ import annotations

from typing import Any

from sqlalchemy import or_, select

from bot.store.matches import StoredMatch


async def match_context(engine: Any, stored: StoredMatch) -> list[str]:
    """Lines such as "Tournament Spring Cup, round 2, board 1" or "Series best of 3, game 2 (1–0 before)"."""
    from bot.series.models import SeriesRow
    from bot.tournaments.tables import GAMES, TOURNAMENTS

    lines: list[str] = []
    ids = [pid for pid, _name in stored.players.values()]
    async with engine.connect() as conn:
        row = (
            await conn.execute(
                select(GAMES.c.round, GAMES.c.board, TOURNAMENTS.c.name)
                .join(TOURNAMENTS, TOURNAMENTS.c.id == GAMES.c.tournament_id)
                .where(GAMES.c.match_id == stored.id)
            )
        ).first()
        if row is not None:
            lines.append(f"Tournament {row.name}, round {row.round}, board {row.board}")
        series = (
            await conn.execute(
                select(SeriesRow.best_of, SeriesRow.matches, SeriesRow.results).where(
                    or_(SeriesRow.player1_id.in_(ids), SeriesRow.player2_id.in_(ids))
                )
            )
        ).all()
    for best_of, matches, results in series:
        if stored.id in (matches or []):
            index = list(matches).index(stored.id)
            before = list(results or [])[:index]
            one = sum(1.0 if r == 1 else 0.5 if r == 0 else 0.0 for r in before)
            two = sum(1.0 if r == 2 else 0.5 if r == 0 else 0.0 for r in before)
            lines.append(f"Series best of {best_of}, game {index + 1} ({one:g}–{two:g} before it)")
    return lines
