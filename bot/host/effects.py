"""Changing a live match: a legal move played (`play`), and house rules' effects applied — the one place a
rule's answer changes a match; endings, clock deadlines and vacations; and the host events they make (`event`).

Everything here only changes the match in memory and adds to the action's `Batch` (log entries,
events); the service then commits the batch, publishes its events and re-arms the timers, in that order.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections.abc import Mapping
from typing import Any, overload

from bot.host.events import ClockFacts, EventKind, HostEvent, MatchResult
from bot.host.match import Live, turn_facts
from bot.host.rules import Effects, HouseRule, Provisional
from bot.store.matches import EntryKind, NewEvent
from bot.types import BACK, REMINDER, VACATION, ClockKind, ClockNotice, EndReason, MatchStatus, days_hours

HISTORY_DEPTH = 6
"""Earlier states kept for rules that rewind (take-backs)."""


@dataclasses.dataclass
class Batch:
    """What one action does to a match: log entries to commit together, then events to publish."""

    log: list[NewEvent] = dataclasses.field(default_factory=list)
    out: list[HostEvent] = dataclasses.field(default_factory=list)
    winner: int | None = None
    reason: EndReason | None = None
    players: dict[int, tuple[str, str]] | None = None


def start_turn(live: Live, now: float, seat: int | None = None) -> None:
    """A fresh action for the player on move (`seat`, when the caller has asked the game already; frozen while
    the match is paused, or the player is on vacation)."""
    if seat is None:
        seat = live.ruleset.to_move(live.state)
    if seat is not None:
        live.clocks.start(seat, now, paused=live.status == MatchStatus.PAUSED or seat in live.away)


@overload
def take(live: Live, rule: HouseRule, eff: Effects | None, into: Effects, now: float) -> Effects: ...
@overload
def take(live: Live, rule: HouseRule, eff: Effects | None, into: Effects | None, now: float) -> Effects | None: ...
def take(live: Live, rule: HouseRule, eff: Effects | None, into: Effects | None, now: float) -> Effects | None:
    """Collect a rule's effects (None: none so far); its timers are set at once (they belong to that rule)."""
    if eff is None:
        return into
    set_timers(live, rule, eff.timers, now)
    eff.timers = {}
    return eff if into is None else into.merge(eff)


def set_timers(live: Live, rule: HouseRule | None, timers: Mapping[str, float | None], now: float) -> None:
    """Set or clear a rule's timers (relative to the pause while the match is paused)."""
    if rule is None:
        return
    base = live.paused_at if live.paused_at is not None else now
    for name, after in timers.items():
        if after is None:
            live.due.pop((rule.key, name), None)
        else:
            live.due[(rule.key, name)] = base + after


def change(live: Live, eff: Effects, now: float) -> None:
    """The match-changing part of effects: rewind, status, seats, clocks."""
    if eff.rewind_to is not None:
        _seat, before, ply = live.history[eff.rewind_to]
        del live.history[eff.rewind_to :]
        live.state = before
        live.ply = ply
        for rule in live.rules:
            after = rule.on_rewind()
            if after is not None:
                set_timers(live, rule, after.timers, now)
    if eff.status is not None:
        live.status = eff.status
    if eff.swap_seats:
        live.players = {1: live.players[2], 2: live.players[1]}
        live.clocks.swap_seats()
    for op in eff.clock:
        if op == "pause":
            live.clocks.pause(now)
        elif (
            op == "resume"
            and live.status == MatchStatus.ONGOING
            and live.clock_may_run()
            and not any(r.holds_clock() for r in live.asks["holds_clock"])
        ):
            live.clocks.resume(now)
        elif op == "restart":
            start_turn(live, now)
        elif op == "stop":
            live.clocks.stop(now)
    if eff.start:
        start_turn(live, now)


def apply(live: Live, rule: HouseRule | None, eff: Effects | None, batch: Batch, now: float, wall: dt.datetime) -> None:
    """Apply a rule's effects to the match and to this action's batch (committed later, in one go)."""
    if eff is None:
        return
    set_timers(live, rule, eff.timers, now)
    change(live, eff, now)
    batch.log += [NewEvent(e.kind, e.seat, data=dict(e.data)) for e in eff.log]
    if eff.swap_seats:
        batch.players = {s: (p.id, p.name) for s, p in live.players.items()}
    for note in eff.say:
        extra = clock_detail(live, note.seat) if note.kind == EventKind.CLOCK else None
        batch.out.append(event(live, note.kind, note.data, note.seat, extra))
    if eff.start:
        batch.out.append(started_event(live))
    if eff.hand_over is not None:
        hand_over(live, eff.hand_over, batch, now, wall)
    if eff.finish is not None:
        end(live, eff.finish[0], EndReason(eff.finish[1]), batch, now, wall, score=False)


def play(
    live: Live, seat: int, text: str, move: Any, message_id: str | None, at: float, now: float, wall: dt.datetime
) -> Batch:
    """A legal move, played at loop time `at` (`now`, `wall`: the clocks' one reading for the action): the engine
    applies it, the match's rules hear of it, then the mover's clock stops and the game goes on or ends — or, while
    a rule keeps the move provisional, the mover's clock only pauses. The batch to commit."""
    ruleset = live.ruleset
    notation = ruleset.format(live.state, move)
    before = live.state
    live.state, game_events = ruleset.apply(live.state, move)
    if live.asks["history"]:  # only matches whose rules rewind keep earlier states
        live.history.append((seat, before, live.ply))
        del live.history[:-HISTORY_DEPTH]
    live.ply += 1
    done = [{"kind": e.kind, **jsonable(e.data)} for e in game_events]
    data: dict[str, Any] = {"move": notation, "ply": live.ply, "events": done}
    heard = [(rule, rule.after_play(live, seat, notation, message_id, at)) for rule in live.asks["after_play"]]
    eff: Effects | None = None
    for rule, answer in heard:  # each rule's timers are its own: set once every rule has heard of the move
        eff = take(live, rule, answer, eff, now)
    if eff is not None and eff.defer:
        # Provisional: the mover's clock stops at the move; the opponent's starts when it is final.
        live.clocks.pause(at)
        data["provisional"] = True
        batch = Batch([NewEvent("move", seat, text, message_id, data)])
        apply(live, None, eff, batch, now, wall)
        return batch
    used = round(live.clocks.stop(at), 3)
    data["used"] = used
    batch = Batch([NewEvent("move", seat, text, message_id, data)])
    public = {"move": notation, "ply": live.ply, "used": used, "events": done}
    batch.out.append(event(live, EventKind.MOVE, public, seat, {"events": done}))
    apply(live, None, eff, batch, now, wall)
    # correspondence: the next player's days run from when the move was posted (even if read back late)
    after_move(live, batch, at if live.clocks.tc.kind == ClockKind.CORRESPONDENCE else now, wall)
    return batch


def hand_over(live: Live, p: Provisional, batch: Batch, now: float, wall: dt.datetime) -> None:
    """A provisional move becomes final: charge the mover, then the game goes on (or ends)."""
    used = round(live.clocks.stop(now), 3)
    batch.log.append(NewEvent(EntryKind.COMMIT, p.seat, data={"move": p.notation, "used": used}))
    detail = {"final": True, "events": consequences(live, p)}
    batch.out.append(event(live, EventKind.MOVE, {"move": p.notation, "ply": p.ply, "used": used}, p.seat, detail))
    after_move(live, batch, now, wall)


def consequences(live: Live, p: Provisional) -> list[dict[str, Any]]:
    """What a provisional move did (Trax's forced tiles, boxes taken), as the engine's events, once it is final."""
    for seat, before, ply in reversed(live.history):
        if seat == p.seat and ply == p.ply - 1:
            try:
                _after, game_events = live.ruleset.apply(before, live.ruleset.parse(before, p.notation, seat))
            except Exception:  # a move that was legal then replays; never let the report stop the host
                return []
            return [{"kind": e.kind, **jsonable(e.data)} for e in game_events]
    return []


def after_move(live: Live, batch: Batch, now: float, wall: dt.datetime) -> None:
    """The game goes on (the next turn starts), or its result is held by a rule, or it ends."""
    outcome = live.ruleset.outcome(live.state)
    if outcome is None:
        seat = live.ruleset.to_move(live.state)
        start_turn(live, now, seat)
        batch.out.append(event(live, EventKind.TURN, {"seat": seat}))
        return
    for rule in live.asks["at_result"]:
        held = rule.at_result(live, outcome.winner, outcome.reason)
        if held is not None:
            apply(live, rule, held, batch, now, wall)
            return
    end(live, outcome.winner, outcome.termination, batch, now, wall, score=True)


def end(
    live: Live,
    winner: int | None,
    reason: EndReason,
    batch: Batch,
    now: float,
    wall: dt.datetime,
    *,
    score: bool,
    by: str | None = None,
) -> None:
    """The match is over (committed and announced with the rest of the batch); `by`: who decided an award (a
    user id, or `withdrawn:<player id>` when a tournament player withdrew), said in the event's detail."""
    live.status = MatchStatus.FINISHED
    live.result = (winner, reason)
    live.clocks.stop(now)
    live.due.clear()
    for rule in live.rules:
        rule.on_finish()
    batch.winner, batch.reason = winner, reason
    batch.log.append(NewEvent("finished", winner, data={"winner": winner, "reason": reason.value}))
    detail: dict[str, Any] = {"by_host": not score}
    if by is not None:
        detail["by"] = by
    with contextlib.suppress(Exception):  # the final position's score, however the match ended
        scores = live.ruleset.scores(live.state)
        detail["score"] = (scores.get(1, 0), scores.get(2, 0))
    winner_name = live.players[winner].name if winner in live.players else None
    data = {"winner": winner, "winner_name": winner_name, "reason": reason.value}
    result = match_result(live, winner, reason, wall)
    batch.out.append(event(live, EventKind.FINISHED, data, detail=detail, result=result))


def ran_out(live: Live, seat: int, at: float) -> bool:
    """Whether `seat`, on move, had used all its time by loop time `at` (a message read back late): the
    deadlines passed by then count as passed (grace begun), without announcements that are stale now."""
    clocks = live.clocks
    if clocks.running != seat or clocks.since is None:
        return False
    for deadline in clocks.next_deadlines(at):
        if deadline.at > at + 1e-9:
            break
        if deadline.kind == ClockNotice.TIMEOUT:
            return True
        clocks.fire(deadline.kind)
    return False


def clock_deadline(live: Live, kind: ClockNotice, seat: int, now: float, wall: dt.datetime) -> Batch:
    """A clock deadline of the player on move: a notice, or the loss on time."""
    live.clocks.fire(kind)
    if kind == ClockNotice.TIMEOUT:
        batch = Batch([NewEvent("timeout", seat)])
        end(live, 3 - seat, EndReason.TIME, batch, now, wall, score=False)
        return batch
    if kind == ClockNotice.REMINDER:
        return reminder(live, seat, now, wall)
    notice = event(live, EventKind.CLOCK, {"notice": kind}, seat, clock_detail(live, seat))
    return Batch([NewEvent("clock", seat, data={"notice": kind})], [notice])


def clock_detail(live: Live, seat: int | None) -> dict[str, Any]:
    """What a clock notice's sentence needs beyond its data: the seat's time per move and grace (its odds, if
    any, over the match's time control: `TimeControl.for_seat`)."""
    tc = live.clocks.tc
    own = tc.odds.get(seat, {}) if seat is not None else {}
    return {"move": own.get("move", tc.move), "grace": own.get("grace", tc.grace)}


def stamp(batch: Batch, message_id: str | None) -> None:
    """Record which message caused an action (a keyword) on its log entries that name none, so that a room
    read back after a restart never handles that message twice."""
    if message_id is None:
        return
    batch.log = [e if e.message_id else dataclasses.replace(e, message_id=message_id) for e in batch.log]


def reminder(live: Live, seat: int, now: float, wall: dt.datetime) -> Batch:
    """Correspondence: `remind` of the player's time for this move is used; they are reminded (once per move)."""
    left = max(0.0, live.clocks.limit() - live.clocks.action_elapsed(now))
    # The time may have run out too (no host could tell the reminder before the loss): it is told late, with
    # nothing left, rather than never; the loss on time follows at once.
    deadline = wall + dt.timedelta(seconds=left)
    data = {"player": live.players[seat].name, "left": round(left)}
    detail = {
        "left_text": days_hours(left),
        "deadline": int(deadline.timestamp()),
    }
    return Batch([NewEvent(REMINDER, seat, data={"left": round(left)})], [event(live, REMINDER, data, seat, detail)])


def away(live: Live, seat: int, until: dt.datetime | None, now: float, wall: dt.datetime) -> Batch:
    """Correspondence vacation: `seat`'s clock stands still until `until` (aware UTC), or (None) runs again now.
    The event is addressed to the opponent (its seat), who is the one told; `away` in its data is the player."""
    if until is not None:
        unix = int(until.timestamp())
        live.away[seat] = (now + (until - wall).total_seconds(), unix)
        if live.clocks.running == seat:
            live.clocks.pause(now)
        kind, data = VACATION, {"away": seat, "until": unix}
    else:
        live.away.pop(seat, None)
        if (
            live.clocks.running == seat
            and live.status == MatchStatus.ONGOING
            and not any(r.holds_clock() for r in live.asks["holds_clock"])
        ):
            live.clocks.resume(now)
        kind, data = BACK, {"away": seat}
    return Batch([NewEvent(kind, seat, data=dict(data))], [event(live, kind, data, 3 - seat)])


def jsonable(data: Mapping[str, Any]) -> dict[str, Any]:
    """Event data made JSON-ready (unknown values as text)."""
    out: dict[str, Any] = {}
    for k, v in data.items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[k] = v
        elif isinstance(v, Mapping):
            out[k] = jsonable(v)
        elif isinstance(v, (list, tuple)):
            out[k] = [x if isinstance(x, (str, int, float, bool)) or x is None else str(x) for x in v]
        else:
            out[k] = str(v)
    return out


# -- the host events a change makes ------------------------------------------------
def event(
    live: Live,
    kind: str,
    data: Mapping[str, Any] | None = None,
    seat: int | None = None,
    detail: Mapping[str, Any] | None = None,
    *,
    clocks: ClockFacts | None = None,
    result: MatchResult | None = None,
) -> HostEvent:
    """A host event of this match, with the facts its sentence needs (`detail`: facts beyond the public data)."""
    return HostEvent(
        live.id,
        kind,
        dict(data or {}),
        seat,
        names=live.names(),
        turn=turn_facts(live),
        clocks=clocks,
        detail=dict(detail or {}),
        result=result,
    )


def started_event(live: Live, kind: EventKind = EventKind.STARTED) -> HostEvent:
    """`started` or `resumed`: who plays whom, and whose turn it is."""
    p1, p2 = live.players[1], live.players[2]
    data = {"players": {"1": p1.name, "2": p2.name}, "game": live.game}
    return event(live, kind, data, detail={"match": live.id, "title": live.ruleset.title})


def match_result(live: Live, winner: int | None, reason: EndReason, ended_at: dt.datetime) -> MatchResult:
    """The record of how a match ended, for subscribers."""
    return MatchResult(
        match_id=live.id,
        guild_id=live.guild_id,
        channel_id=live.channel_id,
        game=live.game,
        players=dict(live.players),
        winner=winner,
        reason=reason,
        practice=live.practice,
        started_at=live.started_at,
        ended_at=ended_at,
    )
