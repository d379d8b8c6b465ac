"""What the review pages list, read from the database: a server's live and recent matches, the matches no list
may show (their room was private), and whether a match's analysis is stored yet.

Privacy: a match is listed nowhere when its room was private (stored with the match when it was created; for a
match stored before that, when its server's room mode is `private`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select

from bot.records.analysis_store import MatchAnalysis
from bot.store.db import Match, MatchEvent
from bot.store.guilds import GuildSettingsStore
from bot.store.matches import EntryKind, MatchStore, StoredMatch
from bot.types import OVER_STATUSES


@dataclass(frozen=True)
class GuildMatches:
    """A server's matches as its page lists them (the private ones left out)."""

    live: list[StoredMatch]
    """The unfinished matches, without their snapshot, in id order."""
    recent: list[StoredMatch]
    """The latest finished matches, newest first."""


class Listings:
    """The listing reads of one database (the review pages' lists)."""

    def __init__(self, store: MatchStore, guilds: GuildSettingsStore) -> None:
        self.store = store
        self.guilds = guilds

    async def analysed(self, match_id: int) -> bool:
        """Whether the match's analysis is stored (a cheap look, no entries read)."""
        async with self.store.engine.connect() as conn:
            found = await conn.execute(select(MatchAnalysis.match_id).where(MatchAnalysis.match_id == match_id))
            return found.first() is not None

    async def hidden(self, matches: Sequence[StoredMatch]) -> set[int]:
        """The matches of `matches` that no list may show: those whose room was private when they were
        created (stored with the match); a match stored before that was recorded goes by its server's
        room mode now."""
        ids = [m.id for m in matches]
        if not ids:
            return set()
        async with self.store.engine.connect() as conn:
            rows = await conn.execute(
                select(MatchEvent.match_id, MatchEvent.data).where(
                    MatchEvent.match_id.in_(ids), MatchEvent.kind == EntryKind.CREATED
                )
            )
            stored = {int(mid): (data or {}).get("private") for mid, data in rows}
        hidden = {mid for mid, private in stored.items() if private is True}
        unknown = [m for m in matches if stored.get(m.id) is None]
        for g in {m.guild_id for m in unknown if m.guild_id is not None}:
            if (await self.guilds.get(g)).room_mode == "private":
                hidden |= {m.id for m in unknown if m.guild_id == g}
        return hidden

    async def of_guild(self, guild_id: int, recent: int) -> GuildMatches:
        """A server's live matches and its `recent` latest finished ones (guild 0: the terminal rooms, which
        have none), those no list may show left out."""
        gid = guild_id or None
        async with self.store.engine.connect() as conn:
            cond = Match.guild_id.is_(None) if gid is None else Match.guild_id == gid
            over = [str(s) for s in OVER_STATUSES]
            live_ids = [r[0] for r in await conn.execute(select(Match.id).where(cond, Match.status.not_in(over)))]
            recent_ids = [
                r[0]
                for r in await conn.execute(
                    select(Match.id).where(cond, Match.status.in_(over)).order_by(Match.id.desc()).limit(recent)
                )
            ]
        live = await self.store.listed(live_ids)  # two queries, no snapshot: a live match's row needs none
        done = [m for m in [await self.store.load(i) for i in recent_ids] if m is not None]
        hidden = await self.hidden(live + done)
        return GuildMatches([m for m in live if m.id not in hidden], [m for m in done if m.id not in hidden])
