"""Players' texts: the walk of a posted move below `MatchService.submit` — a host keyword or a rule's action,
a move (read, gated, validated, played), an illegal attempt, chat; and messages read back late."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from bot.host import rules
from bot.host.core import refuse, reject
from bot.host.effects import after_move, apply, clock_deadline, end, ran_out, stamp, take
from bot.host.events import EventKind, HostError, Ignored, Outcome, RefusalKind, SubmitResult
from bot.host.lifecycle import Lifecycle
from bot.host.match import Batch, Live, event, jsonable, keyword, loop_time_of
from bot.host.rules import Effects, Refused
from bot.store.matches import NewEvent
from bot.types import OVER_STATUSES, ClockKind, ClockNotice, EndReason, MatchStatus
from games.base import IllegalMoveError, MoveError, MoveSyntaxError

log = logging.getLogger(__name__)

MAX_MOVE_TEXT = 200
HISTORY_DEPTH = 6


class Texts(Lifecycle):
    """What a player's text does, once `submit` has taken the match's lock."""

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
                return reject(live, "paused", "paused")
            try:
                eff = rule.on_keyword(live, seat, action, at)
            except Refused as exc:
                if message_id is not None:  # logged with its message, so a room read back never answers it twice
                    await self._record_attempt(live, seat, "refused", action, message_id, exc.code)
                return reject(live, exc.code, exc.kind, exc.data)
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
            return reject(live, f"no_rule:{base}")
        return None

    async def _move(
        self, live: Live, seat: int, text: str, message_id: str | None, at: float, late: bool
    ) -> SubmitResult:
        ruleset = live.ruleset
        try:
            parsed = ruleset.parse_syntax(text)
        except MoveSyntaxError as exc:
            if ruleset.looks_like_move(text) and live.status not in OVER_STATUSES:
                refusal = refuse(live, "unreadable", "syntax", {"text": text, "hint": ruleset.move_hint()})
                await self._record_attempt(live, seat, "syntax", text, message_id, exc.reason)
                hint = event(live, EventKind.HINT, {}, seat, {"refusal": refusal})
                return SubmitResult.rejected(refusal, [hint])
            return SubmitResult.ignored(Ignored.CHAT)
        if live.status == MatchStatus.PAUSED:
            return reject(live, "paused", "paused")
        try:
            for rule in live.rules:
                rule.gate(live, seat)
        except Refused as exc:
            return reject(live, exc.code, exc.kind, exc.data)
        if live.status != MatchStatus.ONGOING or ruleset.to_move(live.state) is None:
            return reject(live, "over", "finished")
        try:
            for rule in live.rules:
                rule.gate_mover(live, seat)
        except Refused as exc:
            return reject(live, exc.code, exc.kind, exc.data)
        if late and ran_out(live, seat, at):  # read back late: posted after the mover's time ran out
            batch = clock_deadline(live, ClockNotice.TIMEOUT, seat, self.now(), self.wall())
            await self._flush(live, batch)
            return SubmitResult.rejected(refuse(live, "late", "time"), batch.out)
        try:
            ruleset.check_turn(live.state, seat)
            move = ruleset.validate(live.state, parsed, seat)
        except IllegalMoveError as exc:
            return await self._illegal(live, seat, text, message_id, exc)
        except MoveError as exc:  # not this seat's turn (check_turn, or the engine itself in free-order Dots)
            kind = RefusalKind.FINISHED if exc.kind == RefusalKind.FINISHED else RefusalKind.TURN
            refusal = refuse(live, "over" if kind == RefusalKind.FINISHED else "turn", kind, {"mover": live.to_move()})
            await self._record_attempt(live, seat, kind, text, message_id, exc.reason)
            return SubmitResult.rejected(refusal)
        for rule in live.rules:
            eff = rule.after_validate(live, seat, text, move, message_id)
            if eff is not None and eff.reject is not None:
                refusal = refuse(live, eff.reject.code, eff.reject.kind, eff.reject.data)
                said = event(live, eff.reject.kind, {}, seat, {"refusal": refusal})
                return SubmitResult.rejected(refusal, [said])
        return await self._play(live, seat, text, move, message_id, at)

    async def _illegal(
        self, live: Live, seat: int, text: str, message_id: str | None, exc: IllegalMoveError
    ) -> SubmitResult:
        refusal = refuse(live, "illegal", "illegal", {"text": text, "reason": exc.reason})
        batch = Batch(
            log=[NewEvent("illegal", seat, text[:MAX_MOVE_TEXT], message_id, {"reason": exc.reason})],
            out=[event(live, EventKind.ILLEGAL, {"reason": exc.reason}, seat, {"refusal": refusal})],
        )
        now, wall = self.now(), self.wall()
        for rule in live.rules:
            apply(live, rule, rule.after_illegal(live, seat, exc.code), batch, now, wall)
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
        now, wall = self.now(), self.wall()  # one reading of the clocks for the whole move (nothing awaits here)
        eff = Effects()
        for rule in live.rules:
            eff = take(live, rule, rule.after_play(live, seat, notation, message_id, at), eff, now)
        batch = Batch()
        if eff.defer:
            # Provisional: the mover's clock stops at the move; the opponent's starts when it is final.
            live.clocks.pause(at)
            data["provisional"] = True
            batch.log.append(NewEvent("move", seat, text, message_id, data))
            apply(live, None, eff, batch, now, wall)
        else:
            used = live.clocks.stop(at)
            data["used"] = round(used, 3)
            batch.log.append(NewEvent("move", seat, text, message_id, data))
            public = {"move": notation, "ply": live.ply, "used": round(used, 3), "events": data["events"]}
            batch.out.append(event(live, EventKind.MOVE, public, seat, {"events": data["events"]}))
            apply(live, None, eff, batch, now, wall)
            # correspondence: the next player's days run from when the move was posted (even if read back late)
            after_move(live, batch, at if live.clocks.tc.kind == ClockKind.CORRESPONDENCE else now, wall)
        await self._flush(live, batch)
        return SubmitResult.accepted(batch.out)

    async def _resign(self, live: Live, seat: int) -> SubmitResult:
        if live.status in OVER_STATUSES:
            raise HostError(refuse(live, "already_over"))
        batch = Batch(log=[NewEvent("resign", seat)])
        end(live, 3 - seat, EndReason.RESIGN, batch, self.now(), self.wall(), score=False)
        await self._flush(live, batch)
        return SubmitResult.accepted(batch.out)
