"""Stored matches for the rating tests, written through the match store (no host, no clocks)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import update

from bot.store.db import Match
from bot.store.matches import MatchStore, NewEvent


async def stored_match(
    store: MatchStore,
    one: str,
    two: str,
    *,
    winner: int | None,
    game: str = "boxes",
    guild: int | None = 1,
    at: dt.datetime | None = None,
    status: str = "finished",
    rated: bool = True,
    reason: str = "score",
    channel: int | None = 10,
) -> int:
    """A match between players `one` and `two` (ids `p:NAME`) that ended as told, at `at` when given."""
    players = {1: (f"p:{one}", one), 2: (f"p:{two}", two)}
    match_id = await store.create_match(
        game=game,
        options={},
        clock={},
        status="ongoing",
        players=players,
        guild_id=guild,
        channel_id=channel,
        snapshot={},
        events=[NewEvent("created", data={"rated": rated})],
        rated=rated,
    )
    end = NewEvent("finished", winner, data={"winner": winner, "reason": reason}) if status == "finished" else None
    await store.write_batch(
        match_id,
        1,
        [end or NewEvent("abort", data={"by": "host"})],
        snapshot={},
        status=status,
        winner_seat=winner,
        result_reason=reason if status == "finished" else "aborted",
    )
    if at is not None:
        async with store.engine.begin() as conn:
            await conn.execute(update(Match).where(Match.id == match_id).values(finished_at=at))
    return match_id
