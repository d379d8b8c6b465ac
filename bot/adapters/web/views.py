"""What the web pages show, read from the database: a match (page HTML cached per match and log length),
a tournament (standings, pairings by round, the bracket of an elimination) and a server (live matches,
recent results, leaderboards).

Privacy: a match is listed nowhere when its room was private (stored with the match when it was created;
for a match stored before that, when its server's room mode is `private`); a server page lists only that
server's rows.
A match page itself is shown to whoever holds its signed address.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from bot.compose import Readers
from bot.records.analysis import ANALYSED_GAMES
from bot.records.analysis_store import load_analysis
from bot.records.analysis_worker import AnalysisWorker
from bot.records.listpages import MatchRow, TournamentGame, server_page, tournament_page
from bot.records.page import build_match_page
from bot.records.pagecontext import match_context
from bot.records.pagetoken import page_url
from bot.store.matches import StoredMatch
from bot.tournaments.rounds import Format
from bot.types import MatchStatus
from games.base import TITLES

RECENT = 20
LEADERS = 20
"""Players shown on each game's leaderboard of a server page."""
KEPT_PAGES = 64
"""Match pages kept in memory (the most recently asked for; a page can be 3 MB)."""


class Views:
    """The pages of one database; match pages are kept once built (a finished match never changes)."""

    def __init__(self, readers: Readers, secret: bytes, base: str = "", analysis: AnalysisWorker | None = None) -> None:
        self.readers = readers
        """The store, the lists, the servers' settings, the ratings and the tournaments, built by the composition
        root (`bot.compose.build_readers`) and handed to this face."""
        self.store = readers.store
        self.secret = secret
        self.base = base
        self.analysis = analysis
        """Where a finished match without a stored analysis is queued (the page says it is pending)."""
        self._pages: OrderedDict[int, tuple[int, bool, str]] = OrderedDict()
        """Match → (events, whether the page waits for an analysis, the page)."""
        self._locks: dict[int, asyncio.Lock] = {}

    def url(self, kind: str, ident: int) -> str:
        """A page's address relative to the server's root (or absolute, given a base)."""
        return page_url(self.base, self.secret, kind, ident)

    async def match(self, match_id: int) -> str | None:
        """The match page's HTML, or None when there is no such match. The analysis is the stored one: never
        computed while the request waits (a finished match without one is queued, its page says pending)."""
        lock = self._locks.setdefault(match_id, asyncio.Lock())
        async with lock:
            count = await self.store.event_count(match_id)
            if count is None:
                return None
            cached = self._pages.get(match_id)
            if (
                cached is not None
                and cached[0] == count
                and not (cached[1] and await self.readers.listings.analysed(match_id))
            ):
                self._pages.move_to_end(match_id)
                return cached[2]
            stored = await self.store.load(match_id, with_events=True)
            if stored is None:
                return None
            context = await match_context(self.readers.tournaments, self.readers.series, stored)
            analysis = await load_analysis(self.store, match_id)
            waits = analysis is None and stored.status == MatchStatus.FINISHED and stored.game in ANALYSED_GAMES
            if waits and self.analysis is not None:
                self.analysis.enqueue(match_id)
            text = await asyncio.to_thread(build_match_page, stored, context, analysis)
            self._pages[match_id] = (count, waits, text)
            self._pages.move_to_end(match_id)
            while len(self._pages) > KEPT_PAGES:
                self._pages.popitem(last=False)
            return text

    def _row(self, m: StoredMatch) -> MatchRow:
        from bot.records.matchlog import result_of

        names = " vs ".join(n for _s, (_p, n) in sorted(m.players.items()))
        return MatchRow(f"#{m.id} {TITLES.get(m.game, m.game)}: {names} — {result_of(m)}", self.url("match", m.id))

    async def server(self, guild_id: int) -> str:
        """The server page, named after the server (its stored name; "Discord server ID" while none is known,
        "Terminal rooms" for guild 0): a leaderboard table per game (with the deviations), live matches,
        recent results (this server's rows only)."""
        listed = await self.readers.listings.of_guild(guild_id, RECENT)
        live, recent = listed.live, listed.recent
        ratings = self.readers.ratings
        gid = guild_id or None
        boards = {}
        for game in TITLES:
            board = await ratings.leaderboard(gid, game, limit=LEADERS)
            if board:
                boards[game] = board
        if gid is None:
            title = "Terminal rooms"
        else:  # named after the server as the Discord face last stored it (escaped by the page)
            title = (await self.readers.guilds.get(gid)).name or f"Discord server {gid}"
        return server_page(title, [self._row(m) for m in live], [self._row(m) for m in recent], boards)

    async def tournament(self, tid: int) -> str | None:
        """The tournament page: standings with tie-breaks, the winner and prize, a crosstable (round robins)
        or a bracket (eliminations), and each round's games linked to their pages."""
        from bot.tournaments.pairing import elimination_rounds
        from bot.tournaments.progress import default_rounds
        from bot.wording.tournament_pictures import bracket_png

        service = self.readers.tournaments
        try:
            t = await service.get(tid)
        except Exception:
            return None
        names = await service.names(tid)
        standings = await service.standings(tid)
        games = await service.games(tid)
        stored = [m for g in games if g.match_id for m in [await self.store.load(g.match_id)] if m]
        hidden = await self.readers.listings.hidden(stored)
        rows = [
            TournamentGame(
                g.round,
                g.board,
                g.pairing,
                self.url("match", g.match_id) if g.match_id and g.match_id not in hidden else None,
            )
            for g in games
        ]
        players = len(t.seeds) or len(names)
        total = t.rounds
        if total is None and players >= 2:
            total = elimination_rounds(players) if t.format == Format.ELIMINATION else default_rounds(t.format, players)
        picture = None
        if t.format == Format.ELIMINATION and players >= 2:
            rounds = await service.rounds(tid)
            picture = await asyncio.to_thread(bracket_png, t.name, rounds, names, total or len(rounds))
        return tournament_page(t, names, standings, rows, picture, total)
