"""The match service: runs matches of any registered game, keeps clocks, stores everything.

No Discord and no sentences here. Adapters hand in `(match, player, text)` (or an action) and listen to
`HostEvent`s; refusals come back as `Refusal` values. `bot.wording` words both. The subscriber API
(`subscribe`) is described in `bot.host.events`.
Each match has one `asyncio.Lock`: texts are processed in arrival order, and only the first legal
move of a turn counts. House rules (`bot.host.rules`) answer hooks with effects; this module applies them
in one place: the match changes, the log is committed, then the room hears about it, then timers re-arm.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import heapq
import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from bot.host import rules
from bot.host.effects import after_move, apply, away, change, clock_deadline, end, ran_out, stamp, start_turn, take
from bot.host.events import (
    EventKind,
    Grave,
    HostError,
    HostEvent,
    Ignored,
    Listener,
    Outcome,
    PlayerRef,
    Refusal,
    SubmitResult,
)
from bot.host.idle import Hosted, Idle, lazy
from bot.host.match import (
    Batch,
    Live,
    Unsaved,
    clock_facts,
    dump,
    event,
    jsonable,
    keyword,
    loop_time_of,
    match_result,
    new_live,
    next_due,
    resumed,
    roll_back,
    started_event,
    to_stored,
)
from bot.host.rules import Effects, Provisional, Refused
from bot.host.subscribers import BatchListener, Subscribers
from bot.store.db import utcnow
from bot.store.leases import LeaseLost
from bot.store.matches import AlsoWrite, MatchStore, NewEvent, StoredMatch
from bot.types import OVER_STATUSES, ClockKind, ClockNotice, EndReason, MatchStatus
from games.base import IllegalMoveError, MoveError, MoveSyntaxError

__all__ = [
    "Grave",
    "HostError",
    "HostEvent",
    "Ignored",
    "Live",
    "MatchService",
    "Outcome",
    "PlayerRef",
    "Refusal",
    "SubmitResult",
    "keyword",
]

log = logging.getLogger(__name__)


class NotHosted(Unsaved):
    """The write was refused by the fencing epoch: another process hosts this match now (this one let it go)."""


class Unconfirmed(Unsaved):
    """A write whose outcome the database could not confirm either way: the match is reloaded before its next action."""


MAX_MOVE_TEXT = 200
HISTORY_DEPTH = 6
RESUME_BATCH = 500
"""Matches resumed together at start: their `resumed` entries go to the database in one write."""
WAKE_AHEAD = 0.5
"""Seconds before its deadline an idle correspondence match is built, so it is ruled on time."""


class MatchService:
    """Hosts matches; one instance per process (or per shard)."""

    def __init__(
        self,
        store: MatchStore,
        *,
        instance: str | None = None,
        heartbeat_seconds: float = 1.0,
        owns_guild: Callable[[int | None], bool] | None = None,
        wall: Callable[[], dt.datetime] | None = None,
    ) -> None:
        self.store = store
        self.wall = wall or utcnow
        """The wall clock (aware UTC) that players' message times are read against."""
        self.instance = instance or uuid.uuid4().hex
        self.heartbeat_seconds = heartbeat_seconds
        self.owns_guild = owns_guild or (lambda _g: True)
        self.live: Hosted = Hosted(self._wake)
        """The matches hosted here: idle correspondence matches are built on look-up (`bot.host.idle`)."""
        self._idle_due: list[tuple[float, int]] = []
        """(deadline, match id) of the idle matches, a heap; an entry whose match woke or moved is skipped."""
        self._idle_task: asyncio.Task[None] | None = None
        self._subscribers = Subscribers()
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._closed = False
        self._leaving: set[asyncio.Task[None]] = set()
        """Timer tasks of matches let go while they acted: awaited, not cancelled (see `_drop`)."""
        self._unsure: set[int] = set()
        """Matches whose last write may or may not have committed: reloaded from the database first thing."""
        self._late_turns: dict[int, tuple[tuple[int, int | None], dt.datetime]] = {}
        """Match → (its turn, Discord time) after an accepted late action, for the next late text."""
        self.caught_up = asyncio.Event()
        """Cleared by an adapter that first reads what players posted while no host ran: correspondence
        deadlines that passed meanwhile wait for it (`rule_overdue`), so a move posted in time still counts."""
        self.caught_up.set()
        self.room_privacy: Callable[[int | None], bool | None] | None = None
        """Set by a face that knows its rooms: whether the room (channel id) a match opens in is private. The
        answer is stored with the match (`created` event, key `private`), so lists keep a private room's
        matches out whatever the server's settings later say."""

    # -- lifecycle -----------------------------------------------------------------
    @staticmethod
    def now() -> float:
        """The event loop's clock."""
        return asyncio.get_running_loop().time()

    def subscribe(self, listener: Listener | BatchListener) -> None:
        """Receive every committed host event, in order: inline, or after the commit when the listener is
        marked `@after_commit` (see `bot.host.events` and `bot.host.subscribers` for the contract)."""
        self._subscribers.add(listener)

    async def drained(self) -> None:
        """Wait until every after-commit listener has handled the events committed so far."""
        await self._subscribers.drained()

    async def start(self, select: Callable[[StoredMatch], bool] | None = None) -> list[int]:
        """Migrate, then resume every unfinished match this process owns (and `select` picks)."""
        await self.store.open()
        resumed = await self.resume_owned(select)
        self._heartbeat_task = asyncio.create_task(self._heartbeat_loop())
        return resumed

    def abandon(self) -> list[int]:
        """Stop hosting, without writing anything, every live match this process no longer owns (its shard was
        taken over): timers cancelled, the match left to its new host. The ids let go."""
        idle = [i.id for i in self.live.idle.values() if not self.owns_guild(i.guild_id)]
        for match_id in idle:
            del self.live.idle[match_id]
        gone = [live for live in self.live.awake() if not self.owns_guild(live.guild_id)]
        for live in gone:
            self._drop(live)
            self._unsure.discard(live.id)
            self._late_turns.pop(live.id, None)
        return sorted([live.id for live in gone] + idle)

    async def resume_owned(self, select: Callable[[StoredMatch], bool] | None = None) -> list[int]:
        """Resume every unfinished match this process owns and does not host yet (at start, or on taking over).

        A correspondence match whose deadline is not near stays idle (`bot.host.idle`): it is built when it is
        looked up or its deadline comes. The others in batches: each batch's `resumed` entries are written
        together (the store folds concurrent appends into one transaction), then its matches are announced and
        their clocks armed, in id order."""
        resumed: list[int] = []
        todo = []
        now, wall = self.now(), self.wall()
        for stored, text in await self.store.unfinished_texts():
            if stored.id in self.live or not self.owns_guild(stored.guild_id) or (select and not select(stored)):
                continue
            if not lazy(stored):
                todo.append(stored)
                continue
            try:
                idle = Idle.of(stored, now, wall, text)
            except Exception:
                log.exception("match %s could not be read", stored.id)
                continue
            self._idle(idle)  # overdue or not: built by `_idle_loop` once what was posted meanwhile is read
            resumed.append(stored.id)
        alive: dict[str, tuple[float, dt.datetime] | None] = {}
        for start in range(0, len(todo), RESUME_BATCH):
            prepared: list[Live] = []
            for stored in todo[start : start + RESUME_BATCH]:
                try:
                    prepared.append(await self._resumed(stored, alive))
                except Exception:
                    log.exception("match %s could not be resumed", stored.id)
            written = await asyncio.gather(*(self._commit_resumed(live) for live in prepared), return_exceptions=True)
            for live, error in zip(prepared, written, strict=True):
                if isinstance(error, BaseException):
                    if isinstance(error, asyncio.CancelledError):
                        raise error
                    log.error("match %s could not be resumed: %s", live.id, error)
                    continue
                self.live[live.id] = live  # only once the database knows it runs here again
                await self._publish(started_event(live, EventKind.RESUMED))
                self._rearm(live)
                resumed.append(live.id)
        self._plan_idle()
        return sorted(resumed)

    # -- idle correspondence matches (bot.host.idle) ------------------------------------
    def _idle(self, idle: Idle) -> None:
        """Keep a match idle until it is looked up or its deadline comes near (`_plan_idle` then plans)."""
        self.live.idle[idle.id] = idle
        if idle.due is not None:
            heapq.heappush(self._idle_due, (idle.due, idle.id))

    def _plan_idle(self) -> None:
        """(Re)start the task that builds idle matches at their deadlines (it sleeps until the soonest)."""
        if self._idle_task is not None and not self._idle_task.done():
            self._idle_task.cancel()
        self._idle_task = None
        if not self._closed and self._idle_due:
            self._idle_task = asyncio.create_task(self._idle_loop(), name="idle-matches")

    def _wake(self, match_id: int) -> Live | None:
        """Build an idle match now (its clocks charged for the time it waited), arm its timers; its `resumed`
        event and log entry follow with its next action (`_announce`, `_commit`). None if it cannot be built."""
        idle = self.live.idle.pop(match_id, None)
        if idle is None:
            return None
        now, wall = self.now(), self.wall()
        try:
            live = idle.build(now, wall)
            live.committed = (dump(live, now, self.instance, wall), live.seq)
        except Exception:
            log.exception("match %s could not be resumed", match_id)
            return None
        live.unannounced = live.unlogged = True
        dict.__setitem__(self.live, live.id, live)
        self._rearm(live)
        return live

    async def wake(self, match_id: int) -> Live | None:
        """A hosted match, built if it was idle, its `resumed` event published (None: not hosted here)."""
        live = self.live.get(match_id)
        if live is not None and live.unannounced:
            async with live.lock:
                await self._announce(live)
        return live

    async def _announce(self, live: Live) -> None:
        """Publish the `resumed` event of a match built on demand, before anything else it says."""
        if live.unannounced:
            live.unannounced = False
            await self._publish(started_event(live, EventKind.RESUMED))

    async def _idle_loop(self) -> None:
        """Build each idle match a little before its deadline; ends when none is left, or until the offline
        catch-up is over (`rule_overdue` plans again)."""
        heap = self._idle_due
        while self.caught_up.is_set():
            while heap and (heap[0][1] not in self.live.idle or self.live.idle[heap[0][1]].due != heap[0][0]):
                heapq.heappop(heap)  # woke, dropped or re-read since
            if not heap:
                return
            delay = heap[0][0] - WAKE_AHEAD - self.now()
            if delay > 0:
                await asyncio.sleep(delay)
                continue
            _due, match_id = heapq.heappop(heap)
            self._wake(match_id)
            await asyncio.sleep(0)

    def rooms(self) -> list[int]:
        """The rooms (channel ids) of every match hosted here, idle ones included, without building any."""
        ids = {lv.channel_id for lv in self.live.awake()} | {i.channel_id for i in self.live.idle.values()}
        return sorted(c for c in ids if c is not None)

    def player_matches(self, player_id: str, guild_id: int | None) -> list[Live]:
        """A player's matches hosted here in a guild (all guilds for None), oldest first: only those are built."""
        self.live.wake_all(lambda i: player_id in i.players and (guild_id is None or i.guild_id == guild_id))
        return [lv for lv in self.live_in_guild_awake(guild_id) if lv.seat_of(player_id) is not None]

    def live_in_guild_awake(self, guild_id: int | None) -> list[Live]:
        """The built matches of a guild (all for None), oldest first."""
        return sorted(
            (lv for lv in self.live.awake() if guild_id is None or lv.guild_id == guild_id), key=lambda lv: lv.id
        )

    async def close(self) -> None:
        """Stop timers and the heartbeat (matches stay resumable in the database); the consequences of
        finished matches still queued are applied first."""
        await self._subscribers.close()
        self._closed = True
        tasks = [
            t for t in [*(lv.task for lv in self.live.awake()), self._heartbeat_task, self._idle_task] if t is not None
        ]
        for task in tasks:
            task.cancel()
        tasks += list(self._leaving)  # let go while acting: they end by themselves
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self.store.heartbeat(self.instance, self.now(), self.wall())
        self.live.clear()

    async def _heartbeat_loop(self) -> None:
        while True:
            try:
                await self.store.heartbeat(self.instance, self.now(), self.wall())
            except Exception:
                log.exception("heartbeat failed")
            await asyncio.sleep(self.heartbeat_seconds)

    # -- creating ------------------------------------------------------------------
    async def create_match(
        self,
        game: str,
        players: list[PlayerRef],
        *,
        options: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        first: int | None = 1,
        advantage: int | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        by: str | None = None,
        rated: bool = True,
        practice: bool = False,
        machine: str | None = None,
        also: AlsoWrite | None = None,
        private: bool | None = None,
    ) -> int:
        """Create and start a match. `first` is the seat (1 or 2, by list order) that moves first;
        `advantage` (1 or 2) instead names the player who chooses; `rules` are house-rule choices;
        `rated=False` makes a casual match (stored with it; `bot.ratings` leaves it out);
        `practice`: one player is the practice opponent; `machine`: its player id, when it plays here (its moves are
        final at once: no rule keeps them provisional); `also(conn, match_id)` writes more in the transaction
        that stores the match (see `MatchStore.create_match`); `private`: whether its room is private (None: asked of
        `room_privacy`), stored with the match."""
        live = new_live(game, players, options, clock, rules, first, advantage)
        live.guild_id, live.channel_id, live.practice, live.started_at = guild_id, channel_id, practice, self.wall()
        live.machine = live.seat_of(machine) if machine is not None else None
        ruleset, tc, raw_opts, settings = live.ruleset, live.clocks.tc, live.raw_options, live.settings
        now = self.now()
        eff = Effects()
        for rule in live.rules:
            eff = take(live, rule, rule.on_create(live, advantage), eff, now)
        change(live, eff, now)
        if live.status == MatchStatus.ONGOING:
            start_turn(live, now)
        created = NewEvent(
            "created",
            text=None,
            data={
                "game": ruleset.id,
                "options": raw_opts,
                "clock": tc.to_json(),
                "rules": settings,
                "players": {str(s): [p.id, p.name] for s, p in live.players.items()},
                "by": by,
                "advantage": advantage,
                "rated": rated,
                **({"practice": True} if practice else {}),
                **self._privacy(private, channel_id),
            },
        )
        snapshot = dump(live, now, self.instance, self.wall())
        try:
            live.id = await self.store.create_match(
                game=ruleset.id,
                options=raw_opts,
                clock=tc.to_json(),
                status=live.status,
                players={s: (p.id, p.name) for s, p in live.players.items()},
                guild_id=guild_id,
                channel_id=channel_id,
                snapshot=snapshot,
                events=[created],
                rated=rated,
                also=also,
            )
        except Exception:
            found = await self._created_after_all(snapshot)
            if found is None:
                log.exception("creating a %s match failed", ruleset.id)
                raise HostError(Refusal("not_saved")) from None
            log.warning("match %s: the database reported an error, but the match was created", found)
            live.id = found
        live.seq, live.committed = 1, (snapshot, 1)
        self.live[live.id] = live
        out = [event(live, n.kind, n.data, n.seat) for n in eff.say]
        for ev in out or [started_event(live)]:
            await self._publish(ev)
        self._rearm(live)
        return live.id

    def _privacy(self, private: bool | None, channel_id: int | None) -> dict[str, bool]:
        """The `created` event's `private` key: as given, else as the face's `room_privacy` says (no key
        when nobody knows: lists then go by the server's room mode)."""
        if private is None and self.room_privacy is not None:
            private = self.room_privacy(channel_id)
        return {} if private is None else {"private": bool(private)}

    async def record_forfeit(
        self,
        game: str,
        players: list[PlayerRef],
        winner: int,
        reason: str,
        *,
        options: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        by: str | None = None,
        rated: bool = True,
        also: AlsoWrite | None = None,
        private: bool | None = None,
    ) -> int:
        """Store a match that was never played as won by seat `winner` (1 or 2, by list order) for `reason`
        (an `EndReason` such as `no_show`): created and finished at once in one transaction (with `also`,
        as in `create_match`), nothing runs. Subscribers hear one `finished` event (its `detail` says
        `unplayed`), as for any match that ends, so ratings and tournaments record it at once. Returns its id.
        `rated=False` stores it as casual (a game of an unrated tournament)."""
        if winner not in (1, 2):
            raise HostError("winner must be 1 or 2")
        try:
            why = EndReason(reason)
        except ValueError:
            raise HostError(f"no such end reason: {reason!r}") from None
        live = new_live(game, players, options, clock, rules, 1, None)
        live.status, live.result = MatchStatus.FINISHED, (winner, why)
        live.guild_id, live.channel_id, live.started_at = guild_id, channel_id, self.wall()
        snapshot = dump(live, self.now(), self.instance)
        created = NewEvent(
            "created",
            data={
                "game": live.ruleset.id,
                "options": live.raw_options,
                "clock": live.clocks.tc.to_json(),
                "rules": live.settings,
                "players": {str(s): [p.id, p.name] for s, p in live.players.items()},
                "by": by,
                "advantage": None,
                **self._privacy(private, channel_id),
            },
        )
        ending = [
            NewEvent("forfeit", 3 - winner, data={"reason": why.value, "by": by}),
            NewEvent("finished", winner, data={"winner": winner, "reason": why.value}),
        ]
        try:
            match_id = await self.store.create_match(
                game=live.ruleset.id,
                options=live.raw_options,
                clock=live.clocks.tc.to_json(),
                status=MatchStatus.FINISHED,
                players={s: (p.id, p.name) for s, p in live.players.items()},
                guild_id=guild_id,
                channel_id=channel_id,
                snapshot=snapshot,
                events=[created, *ending],
                rated=rated,
                also=also,
                result=(winner, why.value),
            )
        except Exception:
            log.exception("recording a forfeit of a %s match failed", live.ruleset.id)
            raise HostError("the result could not be saved; try again in a moment") from None
        live.id = match_id
        data = {"winner": winner, "winner_name": live.players[winner].name, "reason": why.value}
        await self._publish(
            event(
                live,
                EventKind.FINISHED,
                data,
                detail={"by_host": True, "unplayed": True},
                result=match_result(live, winner, why, self.wall()),
            )
        )
        return match_id

    # -- reading -------------------------------------------------------------------
    def get(self, match_id: int) -> Live:
        """A live match, or HostError."""
        live = self.live.get(match_id)
        if live is None:
            raise HostError(Refusal("not_running", data={"match": match_id}))
        return live

    def matches_in_channel(self, channel_id: int) -> list[Live]:
        """Live matches whose room is this channel (idle ones built)."""
        self.live.wake_all(lambda i: i.channel_id == channel_id)
        return [lv for lv in self.live.awake() if lv.channel_id == channel_id]

    def pending_move(self, match_id: int) -> Provisional | None:
        """The provisional move of a running match, if it has one."""
        live = self.live.get(match_id)
        return None if live is None else live.provisional()

    def grave(self, match_id: int, player_id: str, text: str) -> Grave | None:
        """Whether a player's text, taken now, would end their match or their play by their own choice: a
        resignation, or a legal move the game says gives up the mover's play (Dots' `stop`). Reads only; a room
        that can ask confirms it first and then submits `Grave.text`. None for anything else (ordinary moves,
        chat, strangers, a move that would be refused anyway: `submit` says why)."""
        live = self.live.get(match_id)
        if live is None or live.status in OVER_STATUSES:
            return None
        seat = live.seat_of(player_id)
        text = text.strip()
        if seat is None or not text:
            return None
        said = keyword(text)
        if said == "resign":
            return Grave("resign", live.id, seat, "resign", live.ply)
        if said is not None or len(text) > MAX_MOVE_TEXT or live.status != MatchStatus.ONGOING:
            return None
        ruleset = live.ruleset
        try:
            parsed = ruleset.parse_syntax(text)
            ruleset.check_turn(live.state, seat)
            move = ruleset.validate(live.state, parsed, seat)
        except MoveError:
            return None
        if not ruleset.ends_own_play(move):
            return None
        return Grave("move", live.id, seat, ruleset.format(live.state, move), live.ply)

    async def history(self, player_id: str, limit: int = 20) -> list[StoredMatch]:
        """A player's recent matches, newest first."""
        return await self.store.history(player_id, limit=limit)

    async def record(self, match_id: int) -> StoredMatch | None:
        """A match as stored, with its whole log (running or over), or None when there is no such match."""
        return await self.store.load(match_id, with_events=True)

    async def channel_of(self, match_id: int) -> int | None:
        """The room of a match, running or over."""
        live = self.live.get(match_id)
        if live is not None:
            return live.channel_id
        stored = await self.store.load(match_id)
        return None if stored is None else stored.channel_id

    # -- players' texts ------------------------------------------------------------
    async def submit(
        self,
        match_id: int,
        player_id: str,
        text: str,
        *,
        message_id: str | None = None,
        posted_at: dt.datetime | None = None,
    ) -> SubmitResult:
        """Take a player's text: a move, a host keyword, or chat. `posted_at` (aware UTC): when a message read
        back late was posted; the mover is charged up to then, and loses on time if it was too late."""
        live = self.live.get(match_id)
        if live is None:
            return await to_stored(self.store, match_id, player_id)
        async with live.lock:
            now = self.now()
            arrived = self._arrival(live, posted_at, now)
            if live.id not in self.live:  # over, or let go to another host while this text waited
                if live.status not in OVER_STATUSES:
                    return _rejected(live, "taken_over", "error")
                return _rejected(live, "match_over", "finished")
            if not await self._settled(live):
                return _rejected(live, "unconfirmed", "error")
            seat = live.seat_of(player_id)
            if seat is None:
                return SubmitResult.ignored(Ignored.STRANGER)
            text = text.strip()
            if not text:
                return SubmitResult.ignored(Ignored.EMPTY)
            try:
                result = await self._text(live, seat, text, message_id, arrived, posted_at is not None)
                self._note_turn_start(live, result, posted_at)
                return result
            except NotHosted:  # fenced off: another process took the match over meanwhile
                return _rejected(live, "taken_over", "error")
            except Unconfirmed:
                return _rejected(live, "unconfirmed", "error")
            except Unsaved:
                return _rejected(live, "unsaved", "error")
            except Exception:
                # Nothing but a reply ever comes out of submit: an engine error leaves the match as it was.
                log.exception("match %s: handling %r failed", live.id, text[:MAX_MOVE_TEXT])
                roll_back(live, self.now())
                self._rearm(live)
                return _rejected(live, "failed", "error")

    async def _text(
        self, live: Live, seat: int, text: str, message_id: str | None, arrived: float, late: bool
    ) -> SubmitResult:
        kw = keyword(text)
        handled = None if kw is None else await self._keyword(live, seat, kw, arrived, message_id)
        if handled is not None:
            return handled
        if len(text) > MAX_MOVE_TEXT:
            return SubmitResult.ignored(Ignored.TOO_LONG)
        return await self._move(live, seat, text, message_id, arrived, late)

    # -- messages read back late (catch-up) ------------------------------------------------
    def _arrival(self, live: Live, posted_at: dt.datetime | None, now: float) -> float:
        """When a text counts on the loop clock: now, or for a message read back late its own Discord time —
        counted from the Discord time of the late action that started this turn, when there is one (so the
        gap between that action and the restart is charged to nobody)."""
        if posted_at is None:
            return now
        mark = self._late_turns.get(live.id)
        clocks = live.clocks
        if mark is not None and mark[0] == self._turn_key(live) and posted_at >= mark[1] and clocks.since is not None:
            start = clocks.since - clocks.elapsed
            return start + (posted_at - mark[1]).total_seconds()
        return loop_time_of(live, posted_at, now, self.wall())

    def _note_turn_start(self, live: Live, result: SubmitResult, posted_at: dt.datetime | None) -> None:
        """Remember the Discord time of an accepted late action: the next late text is counted from it."""
        if result.status != Outcome.ACCEPTED:
            return
        if posted_at is None:
            self._late_turns.pop(live.id, None)
        else:
            self._late_turns[live.id] = (self._turn_key(live), posted_at)

    @staticmethod
    def _turn_key(live: Live) -> tuple[int, int | None]:
        """Which turn a match is in (an illegal attempt or chat does not change it)."""
        return live.ply, live.clocks.running

    async def _keyword(
        self, live: Live, seat: int, action: str, at: float, message_id: str | None = None
    ) -> SubmitResult | None:
        """A host keyword: resignation, or an action of one of the match's rules (None: read it as a move)."""
        if action == "resign":
            return await self._resign(live, seat)
        base = action.partition(":")[0]
        for rule in live.rules:
            if base not in rule.keywords.values():
                continue
            if live.status == MatchStatus.PAUSED:
                return _rejected(live, "paused", "paused")
            try:
                eff = rule.on_keyword(live, seat, action, at)
            except Refused as exc:
                if message_id is not None:  # logged with its message, so a room read back never answers it twice
                    await self._record_attempt(live, seat, "refused", action, message_id, exc.code)
                return _rejected(live, exc.code, exc.kind, exc.data)
            if eff is None:
                continue
            if eff.replay is not None:
                text, message_id = eff.replay
                move = live.ruleset.validate(live.state, live.ruleset.parse_syntax(text), seat)
                return await self._play(live, seat, text, move, message_id, at)
            batch = Batch()
            apply(live, rule, eff, batch, self.now(), self.wall())
            stamp(batch, message_id)
            await self._flush(live, batch)
            return SubmitResult.accepted(batch.out)
        declared = rules.action(base)
        if (
            declared is not None
            and declared.answered_when_off
            and not any(base in r.keywords.values() for r in live.rules)
        ):
            return _rejected(live, f"no_rule:{base}")
        return None

    async def _move(
        self, live: Live, seat: int, text: str, message_id: str | None, at: float, late: bool
    ) -> SubmitResult:
        ruleset = live.ruleset
        try:
            parsed = ruleset.parse_syntax(text)
        except MoveSyntaxError as exc:
            if ruleset.looks_like_move(text) and live.status not in OVER_STATUSES:
                refusal = _refusal(live, "unreadable", "syntax", {"text": text, "hint": ruleset.move_hint()})
                await self._record_attempt(live, seat, "syntax", text, message_id, exc.reason)
                hint = event(live, EventKind.HINT, {}, seat, {"refusal": refusal})
                return SubmitResult.rejected(refusal, [hint])
            return SubmitResult.ignored(Ignored.CHAT)
        if live.status == MatchStatus.PAUSED:
            return _rejected(live, "paused", "paused")
        try:
            for rule in live.rules:
                rule.gate(live, seat)
        except Refused as exc:
            return _rejected(live, exc.code, exc.kind, exc.data)
        if live.status != MatchStatus.ONGOING or ruleset.to_move(live.state) is None:
            return _rejected(live, "over", "finished")
        try:
            for rule in live.rules:
                rule.gate_mover(live, seat)
        except Refused as exc:
            return _rejected(live, exc.code, exc.kind, exc.data)
        if late and ran_out(live, seat, at):  # read back late: posted after the mover's time ran out
            batch = clock_deadline(live, ClockNotice.TIMEOUT, seat, self.now(), self.wall())
            await self._flush(live, batch)
            return SubmitResult.rejected(_refusal(live, "late", "time"), batch.out)
        try:
            ruleset.check_turn(live.state, seat)
            move = ruleset.validate(live.state, parsed, seat)
        except IllegalMoveError as exc:
            return await self._illegal(live, seat, text, message_id, exc)
        except MoveError as exc:  # not this seat's turn (check_turn, or the engine itself in free-order Dots)
            kind = "finished" if exc.kind == "finished" else "turn"
            refusal = _refusal(live, "over" if kind == "finished" else "turn", kind, {"mover": live.to_move()})
            await self._record_attempt(live, seat, kind, text, message_id, exc.reason)
            return SubmitResult.rejected(refusal)
        for rule in live.rules:
            eff = rule.after_validate(live, seat, text, move, message_id)
            if eff is not None and eff.reject is not None:
                refusal = _refusal(live, eff.reject.code, eff.reject.kind, eff.reject.data)
                said = event(live, eff.reject.kind, {}, seat, {"refusal": refusal})
                return SubmitResult.rejected(refusal, [said])
        return await self._play(live, seat, text, move, message_id, at)

    async def _illegal(
        self, live: Live, seat: int, text: str, message_id: str | None, exc: IllegalMoveError
    ) -> SubmitResult:
        refusal = _refusal(live, "illegal", "illegal", {"text": text, "reason": exc.reason})
        batch = Batch(
            log=[NewEvent("illegal", seat, text[:MAX_MOVE_TEXT], message_id, {"reason": exc.reason})],
            out=[event(live, EventKind.ILLEGAL, {"reason": exc.reason}, seat, {"refusal": refusal})],
        )
        for rule in live.rules:
            apply(live, rule, rule.after_illegal(live, seat, exc.code), batch, self.now(), self.wall())
        await self._flush(live, batch)
        return SubmitResult.rejected(refusal, batch.out)

    async def _record_attempt(
        self, live: Live, seat: int, kind: str, text: str, message_id: str | None, reason: str
    ) -> None:
        """Log a move that was not played: the engine's reason (data, never the reply's sentence)."""
        await self._commit(live, [NewEvent(kind, seat, text[:MAX_MOVE_TEXT], message_id, {"reason": reason})])

    async def _play(
        self, live: Live, seat: int, text: str, move: Any, message_id: str | None, at: float
    ) -> SubmitResult:
        ruleset = live.ruleset
        notation = ruleset.format(live.state, move)
        before = live.state
        new_state, game_events = ruleset.apply(live.state, move)
        if any(rule.needs_history for rule in live.rules):
            # Only matches whose rules rewind keep earlier states.
            live.history.append((seat, before, live.ply))
            del live.history[:-HISTORY_DEPTH]
        live.state = new_state
        live.ply += 1
        data: dict[str, Any] = {
            "move": notation,
            "ply": live.ply,
            "events": [{"kind": e.kind, **jsonable(e.data)} for e in game_events],
        }
        eff = Effects()
        for rule in live.rules:
            eff = take(live, rule, rule.after_play(live, seat, notation, message_id, at), eff, self.now())
        batch = Batch()
        if eff.defer:
            # Provisional: the mover's clock stops at the move; the opponent's starts when it is final.
            live.clocks.pause(at)
            data["provisional"] = True
            batch.log.append(NewEvent("move", seat, text, message_id, data))
            apply(live, None, eff, batch, self.now(), self.wall())
        else:
            used = live.clocks.stop(at)
            data["used"] = round(used, 3)
            batch.log.append(NewEvent("move", seat, text, message_id, data))
            public = {"move": notation, "ply": live.ply, "used": round(used, 3), "events": data["events"]}
            batch.out.append(event(live, EventKind.MOVE, public, seat, {"events": data["events"]}))
            apply(live, None, eff, batch, self.now(), self.wall())
            # correspondence: the next player's days run from when the move was posted (even if read back late)
            after_move(live, batch, at if live.clocks.tc.kind == ClockKind.CORRESPONDENCE else self.now(), self.wall())
        await self._flush(live, batch)
        return SubmitResult.accepted(batch.out)

    async def _flush(self, live: Live, batch: Batch) -> None:
        """Commit, then publish, then re-arm: the order every action ends with."""
        if batch.log:
            await self._commit(live, batch.log, winner=batch.winner, reason=batch.reason, players=batch.players)
        if live.status in OVER_STATUSES:
            self._drop(live)
        await self._announce(live)
        for ev in batch.out:
            await self._publish(ev)
        self._rearm(live)

    def _drop(self, live: Live) -> None:
        self.live.pop(live.id, None)
        task, live.task = live.task, None
        if task is None or task is asyncio.current_task() or task.done():
            return
        if live.acting:
            # Its timer is in the middle of an action (let go by `abandon`, which takes no lock): cancelling it
            # could cut a database call short (the connection is then thrown away mid-statement). It ends by
            # itself once the action is over, the match being gone from `live`.
            self._leaving.add(task)
            task.add_done_callback(self._leaving.discard)
            return
        task.cancel()

    # -- endings and players' actions --------------------------------------------------
    async def _resign(self, live: Live, seat: int) -> SubmitResult:
        if live.status in OVER_STATUSES:
            raise HostError(_refusal(live, "already_over"))
        batch = Batch(log=[NewEvent("resign", seat)])
        end(live, 3 - seat, EndReason.RESIGN, batch, self.now(), self.wall(), score=False)
        await self._flush(live, batch)
        return SubmitResult.accepted(batch.out)

    async def act(self, match_id: int, player_id: str, action: str) -> SubmitResult:
        """A player's action from a button or a command: `resign`, or one a rule of the match declares
        (`ready`, `here`, `offer_draw`, ...; `NAME:via` says how, e.g. `NAME:button`). Refused: HostError."""
        live = self.get(match_id)
        async with self._host_action(live):
            seat = live.seat_of(player_id)
            if seat is None:
                raise HostError(_refusal(live, f"not_player:{action.partition(':')[0]}"))
            name = action.partition(":")[0]
            if name == "resign":
                return await self._resign(live, seat)
            result = await self._keyword(live, seat, action, self.now())
            if result is None:
                raise HostError(_refusal(live, f"no_rule:{name}"))
            if result.refusal is not None:
                raise HostError(result.refusal)
            return result

    async def resign(self, match_id: int, player_id: str) -> SubmitResult:
        """A player gives up."""
        return await self.act(match_id, player_id, "resign")

    async def withdraw(self, match_id: int, player_id: str, *, message_id: str | None = None, via: str) -> SubmitResult:
        """Withdraw a provisional move (by delete, edit, button or text) through the rule that declares it
        (`HouseRule.withdraw`); `message_id`: only the move posted there."""
        arrived = self.now()
        live = self.live.get(match_id)
        name = rules.withdraw_action()
        if live is None:
            return SubmitResult.ignored(Ignored.NOT_RUNNING)
        if name is None:
            return SubmitResult.ignored(Ignored.NOT_PROVISIONAL)
        async with live.lock:
            seat = live.seat_of(player_id)
            if seat is None:
                return SubmitResult.ignored(Ignored.STRANGER)
            pending = live.provisional()
            if message_id is not None and (pending is None or pending.message_id != message_id):
                return SubmitResult.ignored(Ignored.NOT_PROVISIONAL)
            try:
                result = await self._keyword(live, seat, f"{name}:{via}", arrived)
            except Unsaved:
                return _rejected(live, "unsaved", "error")
            if result is None:
                return _rejected(live, f"no_rule:{name}")
            return result

    async def withdraw_message(
        self, channel_id: int, message_id: str, author_id: str | None, via: str
    ) -> SubmitResult | None:
        """Withdraw the provisional move posted in message `message_id` of this room, if there is one."""
        for live in self.matches_in_channel(channel_id):
            if (pending := live.provisional()) is not None and pending.message_id == message_id:
                player = author_id or live.players[pending.seat].id
                return await self.withdraw(live.id, player, message_id=message_id, via=via)
        return None

    @contextlib.asynccontextmanager
    async def _host_action(self, live: Live) -> AsyncIterator[None]:
        """The match's lock for a host's action; a write that fails is a refusal (the match is unchanged)."""
        async with live.lock:
            if not await self._settled(live):
                raise HostError(_refusal(live, "unconfirmed", "error"))
            try:
                yield
            except NotHosted:
                raise HostError(_refusal(live, "not_hosted", "error")) from None
            except Unconfirmed:
                raise HostError(_refusal(live, "unconfirmed", "error")) from None
            except Unsaved:
                raise HostError(_refusal(live, "unsaved", "error")) from None

    # -- hosts' actions ----------------------------------------------------------------
    async def pause(self, match_id: int, by: str) -> None:
        """Stop both clocks and every timer of the match (the rules' too)."""
        live = self.get(match_id)
        async with self._host_action(live):
            if live.status in (MatchStatus.PAUSED, *OVER_STATUSES):
                code = "pause_paused" if live.status == MatchStatus.PAUSED else "pause_over"
                raise HostError(_refusal(live, code, data={"match": live.id}))
            now = self.now()
            live.resume_to, live.status, live.paused_at = live.status, MatchStatus.PAUSED, now
            live.clocks.pause(now)
            paused = event(live, EventKind.PAUSED, {}, detail={"match": live.id})
            await self._flush(live, Batch([NewEvent("pause", data={"by": by})], [paused]))

    async def resume(self, match_id: int, by: str) -> None:
        """Continue after a pause: the clocks and timers go on from where they stood."""
        live = self.get(match_id)
        async with self._host_action(live):
            if live.status != MatchStatus.PAUSED:
                raise HostError(_refusal(live, "not_paused", data={"match": match_id}))
            now = self.now()
            shift = now - (live.paused_at if live.paused_at is not None else now)
            live.due = {k: v + shift for k, v in live.due.items()}
            live.status, live.paused_at = live.resume_to, None
            held = any(r.holds_clock() for r in live.rules)
            if live.status == MatchStatus.ONGOING and live.clock_may_run() and not held:
                live.clocks.resume(now)
            unpaused = event(live, EventKind.UNPAUSED, {}, detail={"match": live.id})
            await self._flush(live, Batch([NewEvent("resume", data={"by": by})], [unpaused]))

    async def abort(self, match_id: int, by: str) -> None:
        """End without a result."""
        live = self.get(match_id)
        async with self._host_action(live):
            live.clocks.stop(self.now())
            live.status = MatchStatus.ABORTED
            live.due.clear()
            result = match_result(live, None, EndReason.ABORTED, self.wall())
            aborted = event(live, EventKind.ABORTED, {}, detail={"match": live.id}, result=result)
            batch = Batch([NewEvent("abort", data={"by": by})], [aborted])
            batch.reason = EndReason.ABORTED
            await self._flush(live, batch)

    async def adjust_time(self, match_id: int, seat: int, seconds: float, by: str) -> None:
        """Add (positive) or remove (negative) time for a seat."""
        if seat not in (1, 2):
            raise HostError(Refusal("seat"))
        live = self.get(match_id)
        async with self._host_action(live):
            live.clocks.adjust(seat, seconds, self.now())
            ev = event(live, EventKind.TIME, {}, seat, {"seconds": seconds}, clocks=clock_facts(live, self.now()))
            await self._flush(live, Batch([NewEvent("time", seat, data={"seconds": seconds, "by": by})], [ev]))

    async def award(self, match_id: int, seat: int | None, by: str) -> None:
        """The host declares the result (seat None: a draw)."""
        live = self.get(match_id)
        async with self._host_action(live):
            batch = Batch([NewEvent("award", seat, data={"by": by})])
            end(live, seat, EndReason.AWARD, batch, self.now(), self.wall(), score=False, by=by)
            await self._flush(live, batch)

    # -- correspondence vacation --------------------------------------------------------
    async def set_away(self, player_id: str, guild_id: int | None, until: dt.datetime | None) -> list[int]:
        """Correspondence vacation: the player's clock stands still until `until` (aware UTC) in every
        correspondence match of theirs hosted here in the guild; None ends the vacation now (the clocks run
        again). Each room hears it, addressed to the opponent. Returns the ids of the matches changed."""
        changed = []
        for live in self.player_matches(player_id, guild_id):
            seat = live.seat_of(player_id)
            if seat is None or live.clocks.tc.kind != ClockKind.CORRESPONDENCE:
                continue
            async with live.lock:
                if live.id not in self.live or live.status in OVER_STATUSES or not await self._settled(live):
                    continue
                if until is None and seat not in live.away:
                    continue
                try:
                    await self._flush(live, away(live, seat, until, self.now(), self.wall()))
                except Unsaved:
                    log.warning("match %s: the vacation of seat %s could not be saved", live.id, seat)
                    continue
                changed.append(live.id)
        return changed

    # -- clocks and timers ---------------------------------------------------------
    def _rearm(self, live: Live) -> None:
        if self._closed or live.id not in self.live:
            return
        current = asyncio.current_task()
        if live.task is not None and not live.task.done():
            if live.task is current:
                return
            live.task.cancel()
        live.task = asyncio.create_task(self._timer_loop(live), name=f"match-{live.id}-timers")

    async def _timer_loop(self, live: Live) -> None:
        loop = asyncio.get_running_loop()
        while live.id in self.live:
            due = next_due(live, self.now())
            if due is None:
                return
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if not self.caught_up.is_set() and live.clocks.tc.kind == ClockKind.CORRESPONDENCE:
                await self.caught_up.wait()
            async with live.lock:
                if live.id not in self.live:
                    return
                live.acting = True
                try:
                    if not await self._settled(live):
                        raise Unconfirmed
                    await self._fire_due(live)
                except Unsaved:
                    pass  # back to the saved state: the deadline is due again and is retried below
                except Exception:
                    log.exception("timer handling failed in match %s", live.id)
                    roll_back(live, self.now())
                else:
                    continue
                finally:
                    live.acting = False
            await asyncio.sleep(1)

    async def rule_overdue(self) -> None:
        """Rule now on every deadline that passed while no host ran (once the adapter has read what was
        posted meanwhile): reminders and losses on time of correspondence matches."""
        self.caught_up.set()
        now = self.now()
        self.live.wake_all(lambda i: i.due is not None and i.due <= now + WAKE_AHEAD)
        self._plan_idle()
        for live in self.live.awake():
            async with live.lock:
                if live.id in self.live and await self._settled(live):
                    await self._fire_due(live)

    async def _fire_due(self, live: Live) -> None:
        now = self.now()
        if live.status == MatchStatus.PAUSED:
            return
        for seat, (at, _unix) in sorted(live.away.items()):
            if at <= now + 1e-9:  # the vacation is over: the clock runs again
                await self._flush(live, away(live, seat, None, self.now(), self.wall()))
        for (key, name), at in sorted(live.due.items(), key=lambda kv: kv[1]):
            if at > now + 1e-9 or (key, name) not in live.due:
                continue
            del live.due[(key, name)]
            rule = next((r for r in live.rules if r.key == key), None)
            if rule is None:
                continue
            batch = Batch()
            apply(live, rule, rule.on_timer(live, name), batch, self.now(), self.wall())
            await self._flush(live, batch)
            if live.id not in self.live:
                return
        if live.status != MatchStatus.ONGOING:
            return
        for deadline in live.clocks.next_deadlines(now):
            if deadline.at > now + 1e-9:
                break
            await self._flush(live, clock_deadline(live, deadline.kind, deadline.seat, self.now(), self.wall()))
            if live.status != MatchStatus.ONGOING:
                return

    # -- persistence ---------------------------------------------------------------
    async def _commit(
        self,
        live: Live,
        events: list[NewEvent],
        *,
        winner: int | None = None,
        reason: EndReason | None = None,
        players: dict[int, tuple[str, str]] | None = None,
    ) -> None:
        if live.unlogged:  # built on demand: its `resumed` entry goes first in its first write
            events = [NewEvent("resumed", data={"downtime_uncharged": False}), *events]
        now = self.now()
        snapshot = dump(live, now, self.instance, self.wall())
        try:
            await self.store.append(
                live.id,
                live.seq,
                events,
                snapshot=snapshot,
                status=live.status,
                winner_seat=winner,
                result_reason=reason,
                players=players,
            )
        except LeaseLost:
            self.abandon()  # the store's fencing already forgot the shard: every match of it goes
            raise NotHosted from None
        except Exception:
            if await self.store.fenced_off(live.guild_id):
                # The write failed and the shard was taken over meanwhile (a process frozen inside its
                # transaction loses it to the server's timeout, then its lease): whatever this write did, the
                # match is the new host's now.
                self.abandon()
                raise NotHosted from None
            stood = await self._outcome(live, len(events), snapshot)
            if stood is not True:
                what = "did not commit" if stood is False else "may or may not have committed"
                log.exception(
                    "match %s: writing %d event(s) failed and %s; back to the last saved state",
                    live.id,
                    len(events),
                    what,
                )
                roll_back(live, self.now())
                self._rearm(live)
                raise (Unsaved if stood is False else Unconfirmed) from None
            log.warning(
                "match %s: the database reported an error, but the %d event(s) were committed", live.id, len(events)
            )
        live.seq += len(events)
        live.committed = (snapshot, live.seq)
        live.unlogged = False

    # -- writes whose outcome is unknown -------------------------------------------------
    async def _created_after_all(self, snapshot: dict[str, Any]) -> int | None:
        """After creating a match reported an error: the id of the match if it was stored all the same (found
        by its first snapshot, which names this process and the loop time), else None."""
        try:
            stored = await self.store.unfinished()
        except Exception:
            return None
        for match in stored:
            snap = match.snapshot
            if snap.get("instance") == snapshot["instance"] and snap.get("loop_at") == snapshot["loop_at"]:
                return match.id
        return None

    async def _outcome(self, live: Live, count: int, snapshot: dict[str, Any] | None = None) -> bool | None:
        """After a write reported an error: did it commit after all (True), not at all (False), or cannot the
        database tell now (None: the match is reloaded before its next action)? The stored event count says
        which — and, as another process may have written the same count (two terminals on one match), the
        stored snapshot must be the one written here before the write counts as committed."""
        try:
            stored = await self.store.event_count(live.id)
            if stored == live.seq + count and snapshot is not None:
                loaded = await self.store.load(live.id)
                if loaded is None or json.loads(json.dumps(loaded.snapshot)) != json.loads(json.dumps(snapshot)):
                    log.warning("match %s: another process wrote this match meanwhile; reloading it", live.id)
                    self._unsure.add(live.id)
                    return None
        except Exception:
            log.warning("match %s: the database cannot say whether the last write committed", live.id)
            self._unsure.add(live.id)
            return None
        if stored == live.seq + count:
            return True
        if stored == live.seq:
            return False
        self._unsure.add(live.id)
        return None

    async def _settled(self, live: Live) -> bool:
        """Make a match whose last write was unconfirmed equal to the database again (False: still cannot tell);
        a match built on demand is announced first."""
        await self._announce(live)
        if live.id not in self._unsure:
            return True
        try:
            stored = await self.store.load(live.id)
        except Exception:
            return False
        self._unsure.discard(live.id)
        if stored is None or stored.event_count == live.seq:
            return True
        log.warning(
            "match %s: reloaded from the database (%d stored events, %d here)", live.id, stored.event_count, live.seq
        )
        live.committed = (stored.snapshot, stored.event_count)
        roll_back(live, self.now())
        if live.status in OVER_STATUSES:  # the unconfirmed write was the end of the match
            self._drop(live)
            return True
        self._rearm(live)
        await self._publish(started_event(live, EventKind.RESUMED))
        return True

    async def _resumed(self, stored: StoredMatch, alive: dict[str, tuple[float, dt.datetime] | None]) -> Live:
        """A stored match made live again (not yet written, announced or armed); `alive` caches when each
        earlier process was last seen."""
        instance = stored.snapshot.get("instance")
        last = None
        if instance and instance != self.instance:
            if instance not in alive:
                alive[instance] = await self.store.last_alive(instance)
            last = alive[instance]
        return resumed(stored, self.now(), self.wall(), last)

    async def _commit_resumed(self, live: Live) -> None:
        await self._commit(live, [NewEvent("resumed", data={"downtime_uncharged": live.outage is not None})])

    async def _publish(self, event: HostEvent) -> None:
        await self._subscribers.publish(event)

    # -- overview queries (issue 28: /dm live, /dm status, results) ---------------------------------
    def live_in_guild(self, guild_id: int | None) -> list[Live]:
        """The matches hosted right now in a guild (all of them for None: the terminal room), oldest first
        (idle ones built)."""
        self.live.wake_all(lambda i: guild_id is None or i.guild_id == guild_id)
        return self.live_in_guild_awake(guild_id)


def _refusal(live: Live, code: str, kind: str = "host", data: Mapping[str, Any] | None = None) -> Refusal:
    """A refusal in this match (with the players' names, for refusals that speak of a player)."""
    return Refusal(code, kind, dict(data or {}), live.names())


def _rejected(live: Live, code: str, kind: str = "host", data: Mapping[str, Any] | None = None) -> SubmitResult:
    """A text refused in this match."""
    return SubmitResult.rejected(_refusal(live, code, kind, data))
