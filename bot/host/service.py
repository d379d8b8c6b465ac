"""The match service: runs matches of any registered game, keeps clocks, stores everything.

No Discord and no sentences here. Adapters hand in a room's message (`post`: room, player, text), or
`(match, player, text)` (`submit`), or an action, and listen to `HostEvent`s; refusals come back as `Refusal`
values. `bot.wording` words both. The subscriber API (`subscribe`) is described in `bot.host.events`.
Each match has one `asyncio.Lock`: texts are processed in arrival order, and only the first legal
move of a turn counts. House rules (`bot.host.rules`) answer hooks with effects; `bot.host.effects` applies them
in one place: the match changes, the log is committed, then the room hears about it, then timers re-arm.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import AsyncIterator, Collection, Mapping
from typing import Any

from bot.host import rules
from bot.host.core import NotHosted, Unconfirmed, refuse, reject
from bot.host.deadlines import deadline_of
from bot.host.effects import away, change, end, start_turn, take
from bot.host.events import (
    EventKind,
    Grave,
    HostError,
    HostEvent,
    Ignored,
    Outcome,
    PlayerRef,
    Posted,
    Refusal,
    SubmitResult,
)
from bot.host.match import (
    Batch,
    Live,
    Unsaved,
    clock_facts,
    dump,
    event,
    keyword,
    match_result,
    new_live,
    started_event,
)
from bot.host.notices import event_of
from bot.host.rules import Effects, Provisional
from bot.host.texts import MAX_MOVE_TEXT, Texts
from bot.store import outbox
from bot.store.matches import AlsoWrite, NewEvent, StoredMatch
from bot.types import OVER_STATUSES, ClockKind, EndReason, MatchStatus
from games.base import MoveError

__all__ = [
    "Grave",
    "HostError",
    "HostEvent",
    "Ignored",
    "Live",
    "MatchService",
    "Outcome",
    "PlayerRef",
    "Posted",
    "Refusal",
    "SubmitResult",
    "keyword",
]

log = logging.getLogger(__name__)


class MatchService(Texts):
    """Hosts matches; one instance per process (or per shard). Built in parts, each a base class: the state and
    the commit path (`bot.host.core`), idle matches (`bot.host.idle_matches`), start-up and catch-up
    (`bot.host.lifecycle`), the walk of a posted text (`bot.host.texts`: `post`, `submit`); here the other public
    actions."""

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
        live.reask()  # the start's choices (who chooses first) put rules in play
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
        wall = self.wall()
        snapshot = dump(live, now, self.instance, wall)
        job = deadline_of(live, now, wall)  # a correspondence match's first deadline, in the same transaction
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
                also=self.deadlines.with_create(job, also),
            )
        except Exception:
            found = await self._created_after_all(snapshot)
            if found is None:
                log.exception("creating a %s match failed", ruleset.id)
                raise HostError(Refusal("not_saved")) from None
            log.warning("match %s: the database reported an error, but the match was created", found)
            live.id = found
        live.seq, live.committed = 1, (snapshot, 1)
        self.live[live.id] = live  # hosted here before its deadline is looked at (the runner takes hosted ones)
        self.deadlines.written(job)
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

    def pending_move(self, match_id: int) -> Provisional | None:
        """The provisional move of a running match, if it has one."""
        live = self.live.get(match_id)
        return None if live is None else live.provisional()

    def played_by_machine(self, match_id: int, player_id: str) -> None:
        """The practice opponent plays this player's seat here (`tournament play`: bots in every seat): its
        moves are final at once, as the practice opponent's always are (no take-back window to wait out). Held
        in memory only; a process that plays the match again says so again."""
        live = self.live.get(match_id)
        seat = None if live is None else live.seat_of(player_id)
        if live is not None and seat is not None:
            live.machines.add(seat)

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

    def over_for(self, channel_id: int, player_id: str, text: str) -> int | None:
        """The match that ended last in this room for this player, when `text` reads as a move of its game
        (asked once `post` found no match of theirs here: a move posted after the end is answered, not taken
        for chat); else None. Remembered in memory for the latest ends (`core.ENDED_KEPT`)."""
        found = self.ended_here.get((channel_id, player_id))
        if found is None:
            return None
        match_id, ruleset = found
        try:
            return match_id if ruleset.looks_like_move(text.strip()) else None
        except Exception:
            return None

    async def latest_in_room(self, channel_id: int, player_id: str | None = None) -> int | None:
        """The newest match of a room, running or over (`player_id`: the newest that player played there)."""
        return await self.store.latest_in_channel(channel_id, player_id)

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

    # -- endings and players' actions --------------------------------------------------
    async def act(self, match_id: int, player_id: str, action: str) -> SubmitResult:
        """A player's action from a button or a command: `resign`, or one a rule of the match declares
        (`ready`, `here`, `offer_draw`, ...; `NAME:via` says how, e.g. `NAME:button`). Refused: HostError."""
        live = self.get(match_id)
        async with self._host_action(live):
            seat = live.seat_of(player_id)
            if seat is None:
                raise HostError(refuse(live, f"not_player:{action.partition(':')[0]}"))
            name = action.partition(":")[0]
            if name == "resign":
                return await self._resign(live, seat)
            result = await self._keyword(live, seat, action, self.now())
            if result is None:
                raise HostError(refuse(live, f"no_rule:{name}"))
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
                return reject(live, "unsaved", "error")
            if result is None:
                return reject(live, f"no_rule:{name}")
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
                raise HostError(refuse(live, "unconfirmed", "error"))
            try:
                yield
            except NotHosted:
                raise HostError(refuse(live, "not_hosted", "error")) from None
            except Unconfirmed:
                raise HostError(refuse(live, "unconfirmed", "error")) from None
            except Unsaved:
                raise HostError(refuse(live, "unsaved", "error")) from None

    # -- hosts' actions ----------------------------------------------------------------
    async def pause(self, match_id: int, by: str) -> None:
        """Stop both clocks and every timer of the match (the rules' too)."""
        live = self.get(match_id)
        async with self._host_action(live):
            if live.status in (MatchStatus.PAUSED, *OVER_STATUSES):
                code = "pause_paused" if live.status == MatchStatus.PAUSED else "pause_over"
                raise HostError(refuse(live, code, data={"match": live.id}))
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
                raise HostError(refuse(live, "not_paused", data={"match": match_id}))
            now = self.now()
            shift = now - (live.paused_at if live.paused_at is not None else now)
            live.due = {k: v + shift for k, v in live.due.items()}
            live.status, live.paused_at = live.resume_to, None
            held = any(r.holds_clock() for r in live.asks["holds_clock"])
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

    # -- notices owed (the outbox, `bot.host.notices`) ------------------------------------------------
    async def untold(self, match_ids: Collection[int]) -> list[HostEvent]:
        """The notices of these matches committed but not told yet (their process died in between), oldest
        first, as the events to tell again (`late`): a face tells them at its start, then marks them `told`."""
        async with self.store.engine.connect() as conn:
            stored = await outbox.untold(conn, match_ids)
        return [event_of(n) for n in stored]

    async def untold_here(self) -> list[HostEvent]:
        """The notices of the guilds this process hosts (their shards) committed but not told yet, oldest first,
        as the events to tell again (`late`): the Discord announcer tells them after the start's catch-up."""
        async with self.store.engine.connect() as conn:
            stored = await outbox.untold_in_guilds(conn)
        return [event_of(n) for n in stored if self.owns_guild(n.scope)]

    async def told(self, *events: HostEvent) -> None:
        """A face told these events: their notices are owed no more (an event owed nothing is skipped). A
        failure is logged and the notice stays owed (told again at the next start)."""
        keys = {ev.notice for ev in events if ev.notice}
        if not keys:
            return
        try:
            async with self.store.engine.begin() as conn:
                await outbox.mark_told(conn, keys, self.instance)
        except Exception:
            log.warning("notice(s) %s could not be marked told; they stay owed", sorted(keys), exc_info=True)
