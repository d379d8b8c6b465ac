"""Players' texts: the walk of a posted text, from the room's one entry (`post`, or `submit` for a known match) to
its commit — which match and seat it is for, a host keyword or a rule's action, a move (read, gated, validated,
confirmed first when grave, played), an illegal attempt, chat; and messages read back late."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import time
from collections.abc import Mapping
from typing import Any

from bot.host import rules
from bot.host.core import Committer, Hosting, NotHosted, Unconfirmed, loop_now
from bot.host.effects import Batch, apply, clock_deadline, end, event, play, ran_out, stamp
from bot.host.events import (
    EventKind,
    Grave,
    HostError,
    HostEvent,
    Ignored,
    Outcome,
    Posted,
    Refusal,
    RefusalKind,
    SubmitResult,
)
from bot.host.match import Live, Unsaved, roll_back, to_stored
from bot.host.rules import Refused
from bot.host.timers import Timers
from bot.metrics import MOVE_SECONDS, MOVES
from bot.store.matches import NewEvent
from bot.types import OVER_STATUSES, ClockNotice, EndReason, MatchStatus
from games.base import IllegalMoveError, MoveError, MoveSyntaxError

log = logging.getLogger(__name__)

MAX_MOVE_TEXT = 200


def loop_time_of(live: Live, posted_at: dt.datetime, now: float, wall_now: dt.datetime) -> float:
    """A message's own (Discord) time on this process's loop clock, within the current action.

    Posted while the host was away: as much after the restarted clocks as it was after the previous host's
    last sign of life (that time counts; the rest of the outage does not). Posted while this process ran
    (a gateway outage): its age, counted back from now. Never before the action started."""
    away = live.outage
    if away is not None and posted_at <= away.resumed_wall:
        # the clocks restarted here as they stood at the last sign of life: the outage is not in them
        latest = away.resumed_loop + (wall_now - away.last_alive).total_seconds()
        at = away.resumed_loop + (posted_at - away.last_alive).total_seconds()
    else:
        latest = now
        at = now - (wall_now - posted_at).total_seconds()
    clocks = live.clocks
    start = clocks.since - clocks.elapsed if clocks.since is not None else now
    return max(start, min(latest, at))


def refuse(live: Live, code: str, kind: str = "host", data: Mapping[str, Any] | None = None) -> Refusal:
    """A refusal in this match (with the players' names, for refusals that speak of a player)."""
    return Refusal(code, kind, dict(data or {}), live.names())


def reject(live: Live, code: str, kind: str = "host", data: Mapping[str, Any] | None = None) -> SubmitResult:
    """A text refused in this match."""
    refusal = refuse(live, code, kind, data)
    return SubmitResult(Outcome.REJECTED, refusal=refusal)


def refusal_event(
    live: Live, kind: str, seat: int, refusal: Refusal, data: Mapping[str, Any] | None = None
) -> HostEvent:
    """The event a refused text makes (a hint, an illegal attempt, a rule's refusal), its refusal beside it."""
    return event(live, kind, data, seat, {"refusal": refusal})


class TextWalk:
    """What a player's text does: the match it is for, then, under the match's lock, what it is and what it does
    (ended through the commit path, `commits`)."""

    def __init__(self, hosting: Hosting, commits: Committer, timers: Timers) -> None:
        self.live = hosting.live
        self.store = hosting.store
        self.wall = hosting.wall
        self.late_turns = hosting.late_turns
        self.commits = commits
        self.timers = timers

    # -- the rooms' entries ----------------------------------------------------------
    def matches_in_channel(self, channel_id: int) -> list[Live]:
        """Live matches whose room is this channel (idle ones built)."""
        self.live.wake_all(lambda i: i.channel_id == channel_id)
        here: list[Live] = []
        for live in self.live.awake():
            if live.channel_id == channel_id:
                here.append(live)
        return here

    def match_for(self, channel_id: int, player_id: str, guild_id: int | None) -> Live | None:
        """The player's match in this room (idle ones built); with several, the one where it is their turn."""
        found = self._seated(channel_id, player_id, guild_id)
        return None if found is None else found[0]

    def _seated(self, channel_id: int, player_id: str, guild_id: int | None) -> tuple[Live, int] | None:
        """`match_for`'s match, with the player's seat in it (a match's players never change seats)."""
        mine: list[tuple[Live, int]] = []
        for live in self.matches_in_channel(channel_id):
            if live.guild_id is None or live.guild_id == guild_id:
                seat = live.seat_of(player_id)
                if seat is not None:
                    mine.append((live, seat))
        if len(mine) > 1:
            for live, seat in mine:
                with contextlib.suppress(Exception):
                    if live.ruleset.to_move(live.state) == seat and live.provisional() is None:
                        return live, seat
        return mine[0] if mine else None

    async def post(
        self,
        channel_id: int,
        guild_id: int | None,
        player_id: str,
        text: str,
        *,
        message_id: str | None = None,
        posted_at: dt.datetime | None = None,
    ) -> Posted | None:
        """A message posted in a room, as a room that can ask first (Discord) hands it in: its match (`match_for`;
        None: the author plays no match here), then `submit`'s walk — except that a grave text (a resignation, or
        a legal move that gives up the mover's play, Dots' `stop`) is not taken but comes back as the `Grave` to
        confirm (the room submits `Grave.text` once the player confirms)."""
        found = self._seated(channel_id, player_id, guild_id)
        if found is None:
            return None
        live, seat = found
        taken = await self._take(live, player_id, text, message_id, posted_at, confirm=True, seat=seat)
        if isinstance(taken, Grave):
            return Posted(live.id, grave=taken)
        return Posted(live.id, result=taken)

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
        taken = await self._take(live, player_id, text, message_id, posted_at, confirm=False)
        assert isinstance(taken, SubmitResult), "nothing is asked without `confirm`"
        return taken

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
        said = rules.keyword(text)
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

    async def _take(
        self,
        live: Live,
        player_id: str,
        text: str,
        message_id: str | None,
        posted_at: dt.datetime | None,
        *,
        confirm: bool,
        seat: int | None = None,
    ) -> SubmitResult | Grave:
        """A player's text under the match's lock (`confirm`: a grave text comes back to be confirmed first;
        `seat`: the player's, when the room's match was found by it)."""
        began = time.perf_counter()  # post → commit, for the metrics (the wait for the match's lock included)
        async with live.lock:
            if live.id not in self.live:  # over, or let go to another host while this text waited
                if live.status not in OVER_STATUSES:
                    return reject(live, "taken_over", "error")
                return reject(live, "match_over", "finished")
            now = loop_now()  # the action's one reading of the loop clock
            settled = await self.commits.settled(live)
            if seat is None:
                seat = live.seat_of(player_id)
            if not settled:
                return reject(live, "unconfirmed", "error")
            if seat is None:
                return SubmitResult.ignored(Ignored.STRANGER)
            text = text.strip()
            if not text:
                return SubmitResult.ignored(Ignored.EMPTY)
            arrived = now if posted_at is None else self._arrival(live, posted_at, now)
            try:
                said = rules.keyword(text)
                result = await self._text(live, seat, text, said, message_id, (arrived, now), posted_at, confirm)
            except NotHosted:  # fenced off: another process took the match over meanwhile
                return reject(live, "taken_over", "error")
            except Unconfirmed:
                return reject(live, "unconfirmed", "error")
            except Unsaved:
                return reject(live, "unsaved", "error")
            except Exception:
                # Nothing but a reply ever comes out of submit: an engine error leaves the match as it was.
                log.exception(
                    "match %s: handling %r failed",
                    live.id,
                    text[:MAX_MOVE_TEXT],
                    extra={"match": live.id, "guild": live.guild_id},
                )
                roll_back(live, loop_now())
                self.timers.rearm(live)
                return reject(live, "failed", "error")
            if isinstance(result, SubmitResult) and result.status == Outcome.ACCEPTED:
                self._note_turn_start(live, posted_at)
                if any(ev.kind == EventKind.MOVE for ev in result.events):
                    MOVES.labels(live.game).inc()
                    MOVE_SECONDS.observe(time.perf_counter() - began)
            return result

    async def _text(
        self,
        live: Live,
        seat: int,
        text: str,
        said: str | None,
        message_id: str | None,
        times: tuple[float, float],
        posted_at: dt.datetime | None,
        confirm: bool,
    ) -> SubmitResult | Grave:
        """A player's text (`said`: the host keyword it is, if any; `times`: when it arrived on the loop clock, and
        the action's reading of that clock)."""
        if said == "resign" and confirm:
            return Grave("resign", live.id, seat, "resign", live.ply)
        handled = None if said is None else await self.action(live, seat, said, times[0], message_id)
        if handled is not None:
            return handled
        if len(text) > MAX_MOVE_TEXT:
            return SubmitResult.ignored(Ignored.TOO_LONG)
        return await self._move(live, seat, text, message_id, times, posted_at is not None, confirm)

    # -- messages read back late (catch-up) ------------------------------------------------
    def _arrival(self, live: Live, posted_at: dt.datetime | None, now: float) -> float:
        """When a text counts on the loop clock: now, or for a message read back late its own Discord time —
        counted from the Discord time of the late action that started this turn, when there is one (so the
        gap between that action and the restart is charged to nobody)."""
        if posted_at is None:
            return now
        mark = self.late_turns.get(live.id)
        clocks = live.clocks
        if mark is not None and mark[0] == self._turn_key(live) and posted_at >= mark[1] and clocks.since is not None:
            start = clocks.since - clocks.elapsed
            return start + (posted_at - mark[1]).total_seconds()
        return loop_time_of(live, posted_at, now, self.wall())

    def _note_turn_start(self, live: Live, posted_at: dt.datetime | None) -> None:
        """Remember the Discord time of an accepted late action: the next late text is counted from it."""
        if posted_at is None:
            self.late_turns.pop(live.id, None)
        else:
            self.late_turns[live.id] = (self._turn_key(live), posted_at)

    @staticmethod
    def _turn_key(live: Live) -> tuple[int, int | None]:
        """Which turn a match is in (an illegal attempt or chat does not change it)."""
        return live.ply, live.clocks.running

    async def action(
        self, live: Live, seat: int, action: str, at: float, message_id: str | None = None
    ) -> SubmitResult | None:
        """A host keyword: resignation, or an action of one of the match's rules (None: read it as a move)."""
        if action == "resign":
            return await self.resign(live, seat)
        base = action.partition(":")[0]
        for rule in live.rules:
            if base not in rule.keywords.values():
                continue
            if live.status == MatchStatus.PAUSED:
                return reject(live, "paused", "paused")
            try:
                eff = rule.on_keyword(live, seat, action, at)
            except Refused as exc:
                if message_id is not None:  # logged with its message, so a room read back never answers it twice
                    await self._record_attempt(live, seat, "refused", action, message_id, exc.code)
                return reject(live, exc.code, exc.kind, exc.data)
            live.reask()  # the action may put a rule in or out of play
            if eff is None:
                continue
            if eff.replay is not None:
                text, message_id = eff.replay
                move = live.ruleset.validate(live.state, live.ruleset.parse_syntax(text), seat)
                return await self._play(live, seat, text, move, message_id, at, loop_now())
            batch = Batch()
            apply(live, rule, eff, batch, loop_now(), self.wall())
            stamp(batch, message_id)
            await self.commits.flush(live, batch)
            return SubmitResult(Outcome.ACCEPTED, events=batch.out)
        declared = rules.action(base)
        if (
            declared is not None
            and declared.answered_when_off
            and not any(base in r.keywords.values() for r in live.rules)
        ):
            return reject(live, f"no_rule:{base}")
        return None

    async def _move(
        self,
        live: Live,
        seat: int,
        text: str,
        message_id: str | None,
        times: tuple[float, float],
        late: bool,
        confirm: bool,
    ) -> SubmitResult | Grave:
        at, now = times
        ruleset = live.ruleset
        try:
            parsed = ruleset.parse_syntax(text)
        except MoveSyntaxError as exc:
            if ruleset.looks_like_move(text) and live.status not in OVER_STATUSES:
                refusal = refuse(live, "unreadable", "syntax", {"text": text, "hint": ruleset.move_hint()})
                await self._record_attempt(live, seat, "syntax", text, message_id, exc.reason)
                hint = refusal_event(live, EventKind.HINT, seat, refusal)
                return SubmitResult(Outcome.REJECTED, refusal=refusal, events=[hint])
            return SubmitResult.ignored(Ignored.CHAT)
        on_move = ruleset.to_move(live.state) if live.status == MatchStatus.ONGOING else None
        if live.status == MatchStatus.PAUSED:
            return reject(live, "paused", "paused")
        try:
            for rule in live.asks["gate"]:
                rule.gate(live, seat)
            if on_move is None:
                return reject(live, "over", "finished")
            for rule in live.asks["gate_mover"]:
                rule.gate_mover(live, seat)
        except Refused as exc:
            return reject(live, exc.code, exc.kind, exc.data)
        if late and ran_out(live, seat, at):  # read back late: posted after the mover's time ran out
            batch = clock_deadline(live, ClockNotice.TIMEOUT, seat, loop_now(), self.wall())
            await self.commits.flush(live, batch)
            return SubmitResult(Outcome.REJECTED, refusal=refuse(live, "late", "time"), events=batch.out)
        try:
            ruleset.check_turn(live.state, seat)
            move = ruleset.validate(live.state, parsed, seat)
        except IllegalMoveError as exc:
            return await self._illegal(live, seat, text, message_id, exc)
        except MoveError as exc:  # not this seat's turn (check_turn, or the engine itself in free-order Dots)
            kind = RefusalKind.FINISHED if exc.kind == RefusalKind.FINISHED else RefusalKind.TURN
            refusal = refuse(
                live,
                "over" if kind == RefusalKind.FINISHED else "turn",
                kind,
                {"mover": live.ruleset.to_move(live.state)},
            )
            await self._record_attempt(live, seat, kind, text, message_id, exc.reason)
            return SubmitResult(Outcome.REJECTED, refusal=refusal)
        if confirm and ruleset.ends_own_play(move):  # the room asks the player first (`post`)
            return Grave("move", live.id, seat, ruleset.format(live.state, move), live.ply)
        for rule in live.asks["after_validate"]:
            eff = rule.after_validate(live, seat, text, move, message_id)
            if eff is not None and eff.reject is not None:
                refusal = refuse(live, eff.reject.code, eff.reject.kind, eff.reject.data)
                said = refusal_event(live, eff.reject.kind, seat, refusal)
                return SubmitResult(Outcome.REJECTED, refusal=refusal, events=[said])
        return await self._play(live, seat, text, move, message_id, at, now)

    async def _illegal(
        self, live: Live, seat: int, text: str, message_id: str | None, exc: IllegalMoveError
    ) -> SubmitResult:
        refusal = refuse(live, "illegal", "illegal", {"text": text, "reason": exc.reason})
        batch = Batch(
            log=[NewEvent("illegal", seat, text[:MAX_MOVE_TEXT], message_id, {"reason": exc.reason})],
            out=[refusal_event(live, EventKind.ILLEGAL, seat, refusal, {"reason": exc.reason})],
        )
        now, wall = loop_now(), self.wall()
        for rule in live.rules:
            apply(live, rule, rule.after_illegal(live, seat, exc.code), batch, now, wall)
        await self.commits.flush(live, batch)
        return SubmitResult(Outcome.REJECTED, refusal=refusal, events=batch.out)

    async def _record_attempt(
        self, live: Live, seat: int, kind: str, text: str, message_id: str | None, reason: str
    ) -> None:
        """Log a move that was not played: the engine's reason (data, never the reply's sentence)."""
        await self.commits.commit(live, [NewEvent(kind, seat, text[:MAX_MOVE_TEXT], message_id, {"reason": reason})])

    async def _play(
        self, live: Live, seat: int, text: str, move: Any, message_id: str | None, at: float, now: float
    ) -> SubmitResult:
        """Play a legal move posted at loop time `at`; `now`: the action's reading of the loop clock."""
        batch = play(live, seat, text, move, message_id, at, now, self.wall())
        await self.commits.flush(live, batch)
        return SubmitResult(Outcome.ACCEPTED, events=batch.out)

    async def resign(self, live: Live, seat: int) -> SubmitResult:
        if live.status in OVER_STATUSES:
            raise HostError(refuse(live, "already_over"))
        batch = Batch(log=[NewEvent("resign", seat)])
        end(live, 3 - seat, EndReason.RESIGN, batch, loop_now(), self.wall(), score=False)
        await self.commits.flush(live, batch)
        return SubmitResult(Outcome.ACCEPTED, events=batch.out)
