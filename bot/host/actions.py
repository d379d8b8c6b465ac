"""Players' and hosts' actions on a running match, each under the match's lock (`HostActions.guarded`): a
player's action from a button or a command (`act`: resign, or a rule's action), withdrawing a provisional move,
pausing, resuming, aborting, adjusting a clock, awarding the result, and correspondence vacations."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import AsyncIterator

from bot.host import rules
from bot.host.core import Committer, Hosting, NotHosted, Unconfirmed, loop_now
from bot.host.effects import Batch, away, end, event, match_result
from bot.host.events import EventKind, HostError, Ignored, Refusal, SubmitResult
from bot.host.idle_matches import IdleMatches
from bot.host.match import Live, Unsaved, clock_facts
from bot.host.texts import TextWalk, refuse, reject
from bot.store.matches import NewEvent
from bot.types import OVER_STATUSES, ClockKind, EndReason, MatchStatus

log = logging.getLogger(__name__)


class HostActions:
    """The actions on a running match other than a posted text (those are `TextWalk`'s, which this asks for a
    rule's action and a resignation)."""

    def __init__(self, hosting: Hosting, commits: Committer, walk: TextWalk, idle: IdleMatches) -> None:
        self.live = hosting.live
        self.wall = hosting.wall
        self.commits = commits
        self.walk = walk
        self.idle = idle

    def get(self, match_id: int) -> Live:
        """A live match, or HostError."""
        live = self.live.get(match_id)
        if live is None:
            raise HostError(Refusal("not_running", data={"match": match_id}))
        return live

    # -- endings and players' actions --------------------------------------------------
    async def act(self, match_id: int, player_id: str, action: str) -> SubmitResult:
        """A player's action from a button or a command: `resign`, or one a rule of the match declares
        (`ready`, `here`, `offer_draw`, ...; `NAME:via` says how, e.g. `NAME:button`). Refused: HostError."""
        live = self.get(match_id)
        async with self.guarded(live):
            seat = live.seat_of(player_id)
            if seat is None:
                raise HostError(refuse(live, f"not_player:{action.partition(':')[0]}"))
            name = action.partition(":")[0]
            if name == "resign":
                return await self.walk.resign(live, seat)
            result = await self.walk.action(live, seat, action, loop_now())
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
        arrived = loop_now()
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
                result = await self.walk.action(live, seat, f"{name}:{via}", arrived)
            except Unsaved:
                return reject(live, "unsaved", "error")
            if result is None:
                return reject(live, f"no_rule:{name}")
            return result

    async def withdraw_message(
        self, channel_id: int, message_id: str, author_id: str | None, via: str
    ) -> SubmitResult | None:
        """Withdraw the provisional move posted in message `message_id` of this room, if there is one."""
        for live in self.walk.matches_in_channel(channel_id):
            if (pending := live.provisional()) is not None and pending.message_id == message_id:
                player = author_id or live.players[pending.seat].id
                return await self.withdraw(live.id, player, message_id=message_id, via=via)
        return None

    @contextlib.asynccontextmanager
    async def guarded(self, live: Live) -> AsyncIterator[None]:
        """The match's lock for a host's action; a write that fails is a refusal (the match is unchanged)."""
        async with live.lock:
            if not await self.commits.settled(live):
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
        async with self.guarded(live):
            if live.status in (MatchStatus.PAUSED, *OVER_STATUSES):
                code = "pause_paused" if live.status == MatchStatus.PAUSED else "pause_over"
                raise HostError(refuse(live, code, data={"match": live.id}))
            now = loop_now()
            live.resume_to, live.status, live.paused_at = live.status, MatchStatus.PAUSED, now
            live.clocks.pause(now)
            paused = event(live, EventKind.PAUSED, {}, detail={"match": live.id})
            await self.commits.flush(live, Batch([NewEvent("pause", data={"by": by})], [paused]))

    async def resume(self, match_id: int, by: str) -> None:
        """Continue after a pause: the clocks and timers go on from where they stood."""
        live = self.get(match_id)
        async with self.guarded(live):
            if live.status != MatchStatus.PAUSED:
                raise HostError(refuse(live, "not_paused", data={"match": match_id}))
            now = loop_now()
            shift = now - (live.paused_at if live.paused_at is not None else now)
            live.due = {k: v + shift for k, v in live.due.items()}
            live.status, live.paused_at = live.resume_to, None
            held = any(r.holds_clock() for r in live.asks["holds_clock"])
            if live.status == MatchStatus.ONGOING and live.clock_may_run() and not held:
                live.clocks.resume(now)
            unpaused = event(live, EventKind.UNPAUSED, {}, detail={"match": live.id})
            await self.commits.flush(live, Batch([NewEvent("resume", data={"by": by})], [unpaused]))

    async def abort(self, match_id: int, by: str) -> None:
        """End without a result."""
        live = self.get(match_id)
        async with self.guarded(live):
            live.clocks.stop(loop_now())
            live.status = MatchStatus.ABORTED
            live.due.clear()
            result = match_result(live, None, EndReason.ABORTED, self.wall())
            aborted = event(live, EventKind.ABORTED, {}, detail={"match": live.id}, result=result)
            batch = Batch([NewEvent("abort", data={"by": by})], [aborted])
            batch.reason = EndReason.ABORTED
            await self.commits.flush(live, batch)

    async def adjust_time(self, match_id: int, seat: int, seconds: float, by: str) -> None:
        """Add (positive) or remove (negative) time for a seat."""
        if seat not in (1, 2):
            raise HostError(Refusal("seat"))
        live = self.get(match_id)
        async with self.guarded(live):
            live.clocks.adjust(seat, seconds, loop_now())
            ev = event(live, EventKind.TIME, {}, seat, {"seconds": seconds}, clocks=clock_facts(live, loop_now()))
            await self.commits.flush(live, Batch([NewEvent("time", seat, data={"seconds": seconds, "by": by})], [ev]))

    async def award(self, match_id: int, seat: int | None, by: str) -> None:
        """The host declares the result (seat None: a draw)."""
        live = self.get(match_id)
        async with self.guarded(live):
            batch = Batch([NewEvent("award", seat, data={"by": by})])
            end(live, seat, EndReason.AWARD, batch, loop_now(), self.wall(), score=False, by=by)
            await self.commits.flush(live, batch)

    # -- correspondence vacation --------------------------------------------------------
    async def set_away(self, player_id: str, guild_id: int | None, until: dt.datetime | None) -> list[int]:
        """Correspondence vacation: the player's clock stands still until `until` (aware UTC) in every
        correspondence match of theirs hosted here in the guild; None ends the vacation now (the clocks run
        again). Each room hears it, addressed to the opponent. Returns the ids of the matches changed."""
        changed = []
        for live in self.idle.player_matches(player_id, guild_id):
            seat = live.seat_of(player_id)
            if seat is None or live.clocks.tc.kind != ClockKind.CORRESPONDENCE:
                continue
            async with live.lock:
                if live.id not in self.live or live.status in OVER_STATUSES or not await self.commits.settled(live):
                    continue
                if until is None and seat not in live.away:
                    continue
                try:
                    await self.commits.flush(live, away(live, seat, until, loop_now(), self.wall()))
                except Unsaved:
                    log.warning("match %s: the vacation of seat %s could not be saved", live.id, seat)
                    continue
                changed.append(live.id)
        return changed
