"""Rematch offers under finished matches (and series), as durable jobs: they outlive a restart.

An offer is one row of the jobs table (`bot.jobs`, kind `rematch`, key `rematch:<finished match>`), due when
the offer lapses. Its payload is the offer's state: who must click, who did, the room and the message that
shows it, and the series it ends (if any). So after a restart a pending offer can still be accepted, and its
lapse is still said.

- **A click** is noted in the row while the offer is open (not due, not run, not claimed: `jobs.store.rewrite`).
- **The last click** closes the row by one conditional update (`jobs.store.take`) before the rematch is
  created: only one caller wins, so two clicks, or two processes, start one rematch.
- **The lapse** is the job's run, which the runner claims once; a click at or after the due time is refused,
  and a job claimed by its runner can no longer be taken: an offer is accepted or lapses, never both.

No Discord and no sentences here: the face posts the offer (`offer`, then `posted` with its message), hands
clicks over (`click`), sets the hooks `room` (where the rematch is played) and `lapsed` (the lapse shown), and
words the typed results.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final

from bot.host import rules as house_rules
from bot.host.events import PlayerRef
from bot.host.service import MatchService
from bot.jobs import Job, JobQueue
from bot.jobs import store as job_store
from bot.jobs.store import DIRECT_MESSAGES
from bot.series.core import Series, SeriesService
from bot.store.matches import StoredMatch
from bot.types import LIVE_CLOCK_KEYS, ClockKind

CORRESPONDENCE_KEYS: Final = ("bank", "remind")
"""A correspondence clock's own settings, kept by its rematch too."""

KIND: Final = "rematch"
"""The kind of a rematch offer's job."""
OFFER_S: Final = 600.0
"""How long a rematch offer stays open (10 minutes); under a correspondence match, as long as a move
(`offer_seconds`): its players are away for days, a ten-minute offer would lapse unseen."""


def offer_seconds(tc: Mapping[str, Any], default: float = OFFER_S) -> float:
    """How long the rematch offer under a match with this time control (`TimeControl.to_json`) stays open:
    `default`, or a correspondence match's time for a move (the longer of the two players' under odds)."""
    if tc.get("kind") != ClockKind.CORRESPONDENCE:
        return default
    moves = [float(tc["move"]), *(float(o["move"]) for o in (tc.get("odds") or {}).values() if "move" in o)]
    return max(default, *moves)


def offer_key(match_id: int) -> str:
    """`rematch:<finished match>`: the job of the offer under that match."""
    return f"{KIND}:{match_id}"


def rematch_clock(tc: Mapping[str, Any]) -> dict[str, Any]:
    """A finished match's time control (`TimeControl.to_json`, by its seats) as the clock settings of its
    rematch, whose players are named in the swapped order (its seat 2 first): odds go with their player."""
    out: dict[str, Any] = {k: tc[k] for k in (*LIVE_CLOCK_KEYS, *CORRESPONDENCE_KEYS) if tc.get(k) is not None}
    for seat, odds in (tc.get("odds") or {}).items():
        for key, value in odds.items():
            out[f"p{3 - int(seat)}:{key}"] = value
    return out


@dataclass(frozen=True)
class Offer:
    """An open rematch offer, as its job's payload keeps it."""

    match_id: int
    guild_id: int | None
    channel_id: int
    needed: dict[str, str]
    """Player id → name of everyone who must click (a practice match: the human alone)."""
    due: dt.datetime
    clicked: tuple[str, ...] = ()
    series_id: int | None = None
    """The series this offer ends (its rematch is a new series), else None."""
    message_id: int | None = None
    """The message that shows the offer, once posted."""
    lasts: float = OFFER_S
    """How long the offer stays open, in seconds (`offer_seconds`)."""

    @property
    def waiting(self) -> list[str]:
        """The names of those who have not clicked yet, in order."""
        return [name for pid, name in self.needed.items() if pid not in self.clicked]

    def payload(self) -> dict[str, Any]:
        """The job's payload (JSON)."""
        return {
            "match": self.match_id,
            "guild": self.guild_id,
            "channel": self.channel_id,
            "needed": [[pid, name] for pid, name in self.needed.items()],
            "clicked": list(self.clicked),
            "series": self.series_id,
            "message": self.message_id,
            "lasts": self.lasts,
        }

    @classmethod
    def from_job(cls, job: Job) -> Offer:
        """The offer its job keeps."""
        p = job.payload
        return cls(
            match_id=int(p["match"]),
            guild_id=None if p.get("guild") is None else int(p["guild"]),
            channel_id=int(p["channel"]),
            needed={str(pid): str(name) for pid, name in p["needed"]},
            due=job.due,
            clicked=tuple(str(c) for c in p.get("clicked") or ()),
            series_id=None if p.get("series") is None else int(p["series"]),
            message_id=None if p.get("message") is None else int(p["message"]),
            lasts=float(p.get("lasts") or OFFER_S),
        )


class Click(StrEnum):
    """What became of a click on a rematch offer."""

    LAPSED = "lapsed"
    """No open offer under that match (lapsed, accepted already, or never made)."""
    NOT_PLAYER = "not_player"
    """The clicker is not one of those who must click."""
    WAITING = "waiting"
    """Noted; someone else must still click."""
    STARTED = "started"
    """Everyone clicked: the rematch started (`match_id`, in `channel_id`)."""
    GONE = "gone"
    """Everyone clicked, but the finished match or its room is gone: no rematch."""


@dataclass(frozen=True)
class Clicked:
    """A click's result: what happened, the offer as it stands, and the rematch when one started."""

    kind: Click
    offer: Offer | None = None
    by: str = ""
    """The clicker's name (as the offer names them)."""
    match_id: int | None = None
    channel_id: int | None = None
    new_room: bool = False
    """Whether the rematch got a room of its own (a new thread), rather than the finished match's room."""
    practice: StoredMatch | None = None
    """The finished match when it was a practice match (the face seats the practice opponent again)."""


Room = Callable[[int | None, str, tuple[PlayerRef, PlayerRef]], Awaitable[tuple[int, bool] | None]]
"""Where a rematch is played, given the finished match's room, the game and the players in seat order: the
room's channel id and whether it is new; None when the finished match's room is gone."""
Lapsed = Callable[[Offer], Awaitable[None]]
"""Show that an offer lapsed (its job's run)."""


@dataclass
class Rematches:
    """The rematch offers of one process (built by `bot.compose`; its face sets `room` and `lapsed`)."""

    service: MatchService
    series: SeriesService
    jobs: JobQueue
    offer_s: float = OFFER_S
    room: Room | None = None
    lapsed: Lapsed | None = None
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    def start(self) -> None:
        """Run the offers' lapses from now on (the face has set its hooks)."""
        self.jobs.register(KIND, self._lapse)

    def stop(self) -> None:
        """Stop running lapses here (they stay stored for the next start)."""
        self.jobs.unregister(KIND)

    async def offer(
        self, match_id: int, guild_id: int | None, channel_id: int, needed: Mapping[str, str], series: Series | None
    ) -> Offer | None:
        """Open an offer under a finished match (or series), lapsing after `offer_s` (a correspondence match's:
        after its time for a move, `offer_seconds`); None when no rematch is offered there (a tournament's
        game: its next opponent is the pairing's business)."""
        stored = await self.service.record(match_id)
        if series is None and self._paired_elsewhere(stored):
            return None
        tc = stored.snapshot.get("clocks", {}).get("tc", {}) if stored is not None else {}
        lasts = offer_seconds(tc, self.offer_s)
        due = await self.jobs.now() + dt.timedelta(seconds=lasts)
        offer = Offer(
            match_id, guild_id, channel_id, dict(needed), due, series_id=series.id if series else None, lasts=lasts
        )
        scope = DIRECT_MESSAGES if guild_id is None else guild_id
        await self.jobs.add(KIND, offer_key(match_id), due, offer.payload(), scope=scope)
        return offer

    async def posted(self, offer: Offer, message_id: int) -> Offer:
        """The offer is shown by this message (kept with the offer, for its lapse and after a restart)."""
        async with self._lock(offer.match_id):
            current = await self.get(offer.match_id)  # a click may have come first
            shown = replace(current or offer, message_id=message_id)
            if current is not None:
                async with self.jobs.engine.begin() as conn:
                    await job_store.rewrite(conn, offer_key(offer.match_id), shown.payload(), await self.jobs.now())
        return shown

    async def withdraw(self, offer: Offer) -> None:
        """Forget an offer that could not be shown."""
        await self.jobs.cancel(offer_key(offer.match_id))

    async def get(self, match_id: int) -> Offer | None:
        """The offer under a finished match while it is open, else None."""
        job = await self.jobs.get(offer_key(match_id))
        if job is None or job.done or job.claimed_by is not None or job.due <= await self.jobs.now():
            return None
        return Offer.from_job(job)

    async def click(self, match_id: int, player_id: str) -> Clicked:
        """A player clicks the offer under a finished match: noted; the last click starts the rematch (once).
        HostError as `create_match` refuses the rematch (the offer is then used up)."""
        async with self._lock(match_id):
            offer = await self.get(match_id)
            if offer is None:
                return Clicked(Click.LAPSED)
            name = offer.needed.get(player_id)
            if name is None:
                return Clicked(Click.NOT_PLAYER, offer)
            if player_id not in offer.clicked:
                offer = replace(offer, clicked=(*offer.clicked, player_id))
            now = await self.jobs.now()
            async with self.jobs.engine.begin() as conn:
                if offer.waiting:
                    kept = await job_store.rewrite(conn, offer_key(match_id), offer.payload(), now)
                    return Clicked(Click.WAITING if kept else Click.LAPSED, offer, name)
                if not await job_store.take(conn, offer_key(match_id), now):
                    return Clicked(Click.LAPSED, offer, name)
        return await self._rematch(offer, player_id, name)

    def _lock(self, match_id: int) -> asyncio.Lock:
        return self._locks.setdefault(match_id, asyncio.Lock())

    async def _lapse(self, job: Job) -> None:
        """The offer's job fell due: the offer lapsed (the runner claims it once; a click can no longer take it)."""
        offer = Offer.from_job(job)
        self._locks.pop(offer.match_id, None)
        if self.lapsed is not None:
            await self.lapsed(offer)

    @staticmethod
    def _paired_elsewhere(stored: StoredMatch | None) -> bool:
        created = stored.events[0].data if stored is not None and stored.events else {}
        return str(created.get("by") or "").startswith("tournament:")

    async def _rematch(self, offer: Offer, by: str, name: str) -> Clicked:
        """Start the rematch (colours swapped, same options, clock and rules) in a room like the original's."""
        self._locks.pop(offer.match_id, None)
        old = await self.series.get(offer.series_id) if offer.series_id is not None else None
        if old is not None:
            room = await self._room(old.channel_id, old.game, old.players)
            if room is None:
                return Clicked(Click.GONE, offer, name)
            _, match_id = await self.series.create(
                old.game,
                list(old.players),
                old.best_of,
                options=old.options,
                clock=old.clock,
                rules=old.rules,
                first=3 - old.first,
                guild_id=old.guild_id,
                channel_id=room[0],
                by=by,
                rated=old.rated,
            )
            return Clicked(Click.STARTED, offer, name, match_id, room[0], room[1])
        stored = await self.service.record(offer.match_id)
        if stored is None:
            return Clicked(Click.GONE, offer, name)
        seats = {int(s): PlayerRef(pid, who) for s, (pid, who) in stored.snapshot["players"].items()}
        players = (seats[2], seats[1])  # colours swapped: who moved second moves first
        room = await self._room(stored.channel_id, stored.game, players)
        if room is None:
            return Clicked(Click.GONE, offer, name)
        created = stored.events[0].data if stored.events else {}
        practice = bool(created.get("practice"))
        try:
            chosen = house_rules.parse(stored.game, created.get("rules"))
        except house_rules.RulesError:
            chosen = None
        match_id = await self.service.create_match(
            stored.game,
            list(players),
            options=stored.options,
            clock=rematch_clock(stored.snapshot["clocks"]["tc"]),
            rules=chosen,
            first=1,
            guild_id=stored.guild_id,
            channel_id=room[0],
            by=by,
            rated=stored.rated and not practice,
            practice=practice,
        )
        return Clicked(Click.STARTED, offer, name, match_id, room[0], room[1], stored if practice else None)

    async def _room(
        self, channel_id: int | None, game: str, players: tuple[PlayerRef, PlayerRef]
    ) -> tuple[int, bool] | None:
        if self.room is not None:
            return await self.room(channel_id, game, players)
        return None if channel_id is None else (channel_id, False)


__all__ = ["KIND", "OFFER_S", "Click", "Clicked", "Offer", "Rematches", "offer_key", "offer_seconds", "rematch_clock"]
