"""The match service: runs matches of any registered game, keeps clocks, stores everything.

No Discord here. Adapters hand in `(match, player, text)` and listen to `HostEvent`s.
Each match has one `asyncio.Lock`: texts are processed in arrival order, and only the first legal
move of a turn counts. House rules (`bot.rules`) answer hooks with effects; this module applies them
in one place: the match changes, the log is committed, then the room hears about it, then timers re-arm.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot import announce, rules
from bot.clocks import Clocks, TimeControl
from bot.rules import Effects, HouseRule, Provisional, Refused
from bot.store import MatchStore, NewEvent, StoredMatch
from games import registry
from games.base import AnyRuleset, IllegalMoveError, MoveError, MoveSyntaxError, OptionsError

log = logging.getLogger(__name__)

MAX_MOVE_TEXT = 200
HISTORY_DEPTH = 6
SNAPSHOT_FORMAT = 2


@dataclass(frozen=True)
class PlayerRef:
    """A player: a stable id (e.g. a Discord user id) and a display name."""

    id: str
    name: str


@dataclass
class HostEvent:
    """Something the room should hear about: a kind, its data, and the sentence `bot.announce` made of it."""

    match_id: int
    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    seat: int | None = None


@dataclass
class SubmitResult:
    """What became of a player's text: accepted, ignored (chat) or rejected (with a reason)."""

    status: str
    reason: str | None = None
    kind: str | None = None
    events: list[HostEvent] = field(default_factory=list)


class HostError(ValueError):
    """A refused request, with a message for the person who made it."""


Listener = Callable[[HostEvent], Awaitable[None] | None]

_KEYWORDS = {"resign": "resign", "i resign": "resign", **rules.keyword_actions()}
_PUNCT = re.compile(r"[!.?`*_~]+")


def keyword(text: str) -> str | None:
    """The host command a short text stands for, if any ('Take back!' → 'takeback')."""
    if len(text) > 40:
        return None
    norm = " ".join(_PUNCT.sub(" ", text.replace("\u2019", "'")).lower().split())
    return _KEYWORDS.get(norm)


@dataclass
class Live:
    """A match being hosted right now."""

    id: int
    game: str
    ruleset: AnyRuleset
    options: Any
    raw_options: dict[str, Any]
    state: Any
    players: dict[int, PlayerRef]
    clocks: Clocks
    status: str
    seq: int
    guild_id: int | None = None
    channel_id: int | None = None
    ply: int = 0
    result: tuple[int | None, str] | None = None
    history: list[tuple[int, Any, int]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    rules: list[HouseRule] = field(default_factory=list)
    due: dict[tuple[str, str], float] = field(default_factory=dict)
    paused_at: float | None = None
    resume_to: str = "ongoing"
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    task: asyncio.Task[None] | None = None

    def seat_of(self, player_id: str) -> int | None:
        """The seat of a player id, or None for a non-player."""
        for seat, p in self.players.items():
            if p.id == player_id:
                return seat
        return None

    def name(self, seat: int | None) -> str:
        """Display name of a seat."""
        return announce.display(self.players[seat].name) if seat in self.players else "nobody"

    def to_move(self) -> int | None:
        """The seat whose turn it is."""
        return self.ruleset.to_move(self.state)

    def player_id(self, seat: int) -> str:
        """The stable id of a seat's player."""
        return self.players[seat].id

    def timer_due(self, rule: str, name: str) -> float | None:
        """When a rule's timer fires (infinity while the match is paused)."""
        due = self.due.get((rule, name))
        return None if due is None else (math.inf if self.paused_at is not None else due)

    def provisional(self) -> Provisional | None:
        """The move a rule keeps provisional, if any."""
        return next((p for r in self.rules if (p := r.provisional()) is not None), None)

    @property
    def pending(self) -> Provisional | None:
        """The provisional move (read-only; adapters use `MatchService.pending_move`)."""
        return self.provisional()


@dataclass
class _Batch:
    """What one action does to a match: log entries to commit together, then events to publish."""

    log: list[NewEvent] = field(default_factory=list)
    out: list[HostEvent] = field(default_factory=list)
    winner: int | None = None
    reason: str | None = None
    players: dict[int, tuple[str, str]] | None = None


class MatchService:
    """Hosts matches; one instance per process (or per shard)."""

    def __init__(
        self,
        store: MatchStore,
        *,
        instance: str | None = None,
        heartbeat_seconds: float = 1.0,
        owns_guild: Callable[[int | None], bool] | None = None,
    ) -> None:
        self.store = store
        self.instance = instance or uuid.uuid4().hex
        self.heartbeat_seconds = heartbeat_seconds
        self.owns_guild = owns_guild or (lambda _g: True)
        self.live: dict[int, Live] = {}
        self._listeners: list[Listener] = []
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._closed = False

    # -- lifecycle -----------------------------------------------------------------
    @staticmethod
    def now() -> float:
        """The event loop's clock."""
        return asyncio.get_running_loop().time()

    def subscribe(self, listener: Listener) -> None:
        """Receive every host event (announcements)."""
        self._listeners.append(listener)

    async def start(self, select: Callable[[StoredMatch], bool] | None = None) -> list[int]:
        """Migrate, then resume every unfinished match this process owns (and `select` picks)."""
        await self.store.open()
        resumed = []
        for stored in await self.store.unfinished():
            if not self.owns_guild(stored.guild_id) or (select is not None and not select(stored)):
                continue
            try:
                await self._resume(stored)
            except Exception:
                log.exception("match %s could not be resumed", stored.id)
                continue
            resumed.append(stored.id)
        self._heartbeat_task = asyncio.create_task(self._heartbeat_loop())
        return resumed

    async def close(self) -> None:
        """Stop timers and the heartbeat (matches stay resumable in the database)."""
        self._closed = True
        tasks = [lv.task for lv in self.live.values() if lv.task] + [self._heartbeat_task]
        for task in tasks:
            if task is not None:
                task.cancel()
        for task in tasks:
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        with contextlib.suppress(Exception):
            await self.store.heartbeat(self.instance, self.now())
        self.live.clear()

    async def _heartbeat_loop(self) -> None:
        while True:
            try:
                await self.store.heartbeat(self.instance, self.now())
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
    ) -> int:
        """Create and start a match. `first` is the seat (1 or 2, by list order) that moves first;
        `advantage` (1 or 2) instead names the player who chooses; `rules` are house-rule choices."""
        from bot import rules as house

        try:
            ruleset = registry.get(game)
        except (registry.UnknownGameError, registry.GameNotImplementedError) as exc:
            raise HostError(str(exc.args[0])) from None
        if len(players) != 2 or players[0].id == players[1].id:
            raise HostError("a match needs two different players")
        try:
            opts = ruleset.parse_options(options or {})
            settings = house.parse(ruleset.id, rules)
            spec = ruleset.default_clock(opts)
            tc = TimeControl.from_spec(spec, house.clock_overrides(settings, spec.kind, clock or {}))
        except (OptionsError, ValueError) as exc:
            raise HostError(str(exc)) from None
        if tc.takeback is not None and not (rules and "takeback" in rules):
            settings["takeback"] = tc.takeback
        settings["clock"] = tc.kind
        order = list(players)
        if advantage is not None and advantage not in (1, 2):
            raise HostError("advantage names player 1 or 2")
        if advantage is None and first == 2:
            order.reverse()
        elif advantage is None and first != 1:
            raise HostError("first must be 1 or 2")
        raw_opts = opts.model_dump(mode="json")
        live = Live(
            id=0,
            game=ruleset.id,
            ruleset=ruleset,
            options=opts,
            raw_options=raw_opts,
            state=ruleset.new_game(opts),
            players={1: order[0], 2: order[1]},
            clocks=Clocks.new(tc),
            status="ongoing",
            seq=0,
            guild_id=guild_id,
            channel_id=channel_id,
            settings=settings,
            rules=house.build(ruleset.id, settings),
        )
        now = self.now()
        eff = Effects()
        for rule in live.rules:
            eff = self._take(live, rule, rule.on_create(live, advantage), eff, now)
        self._change(live, eff, now)
        if live.status == "ongoing":
            self._start_turn(live, now)
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
            },
        )
        live.id = await self.store.create_match(
            game=ruleset.id,
            options=raw_opts,
            clock=tc.to_json(),
            status=live.status,
            players={s: (p.id, p.name) for s, p in live.players.items()},
            guild_id=guild_id,
            channel_id=channel_id,
            snapshot=self._snapshot(live, now),
            events=[created],
        )
        live.seq = 1
        self.live[live.id] = live
        out = [self._event(live, n.kind, n.data, n.seat) for n in eff.say]
        for ev in out or [self._started_event(live)]:
            await self._publish(ev)
        self._rearm(live)
        return live.id

    def _started_event(self, live: Live, kind: str = "started") -> HostEvent:
        p1, p2 = live.players[1], live.players[2]
        return self._event(
            live,
            kind,
            {"players": {"1": p1.name, "2": p2.name}, "game": live.game},
            extra={"match": live.id, "title": live.ruleset.title},
        )

    def _event(
        self,
        live: Live,
        kind: str,
        data: Mapping[str, Any],
        seat: int | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> HostEvent:
        """A host event with its sentence (`extra`: facts the sentence needs that the event does not carry)."""
        text = announce.say(kind, {**data, **(extra or {})}, seat, live.name, self._turn_text(live))
        return HostEvent(live.id, kind, text, dict(data), seat)

    # -- reading -------------------------------------------------------------------
    def get(self, match_id: int) -> Live:
        """A live match, or HostError."""
        live = self.live.get(match_id)
        if live is None:
            raise HostError(f"match {match_id} is not running")
        return live

    def matches_in_channel(self, channel_id: int) -> list[Live]:
        """Live matches whose room is this channel."""
        return [lv for lv in self.live.values() if lv.channel_id == channel_id]

    def pending_move(self, match_id: int) -> Provisional | None:
        """The provisional move of a running match, if it has one."""
        live = self.live.get(match_id)
        return None if live is None else live.provisional()

    async def history(self, player_id: str, limit: int = 20) -> list[StoredMatch]:
        """A player's recent matches, newest first."""
        return await self.store.history(player_id, limit=limit)

    async def record(self, match_id: int, *, with_events: bool = False) -> StoredMatch | None:
        """A stored match (running or over)."""
        return await self.store.load(match_id, with_events=with_events)

    async def channel_of(self, match_id: int) -> int | None:
        """The room of a match, running or over."""
        live = self.live.get(match_id)
        if live is not None:
            return live.channel_id
        stored = await self.store.load(match_id)
        return None if stored is None else stored.channel_id

    def status_lines(self, match_id: int) -> list[str]:
        """Whose turn it is and both clocks: the two lines under a board."""
        live = self.get(match_id)
        return [self._turn_text(live), self.clock_text(live)]

    def board_text(self, match_id: int) -> str:
        """The text board, whose turn it is and both clocks."""
        live = self.get(match_id)
        return "\n".join([live.ruleset.render_text(live.state), *self.status_lines(match_id)])

    def clock_text(self, live: Live) -> str:
        """One line with both clocks."""
        now = self.now()
        parts = []
        fmt = announce.seconds
        for seat in (1, 2):
            rem = live.clocks.remaining(seat, now)
            mark = "▶ " if live.clocks.running == seat else ""
            if live.clocks.tc.kind == "move_reserve":
                parts.append(f"{mark}{live.name(seat)} {fmt(rem['move'])} + {fmt(rem['reserve'])} reserve")
            else:
                g = "grace used" if rem["grace_used"] and rem["grace"] == 0 else f"grace {fmt(rem['grace'])}"
                parts.append(f"{mark}{live.name(seat)} {fmt(rem['move'])} ({g})")
        suffix = " (paused)" if live.status == "paused" else ""
        return "clocks: " + " | ".join(parts) + suffix

    def _turn_text(self, live: Live) -> str:
        p = live.provisional()
        to_move = None if live.status in rules.HOLD_STATUSES else live.to_move()
        prompt = (live.ruleset.turn_prompt(live.state) or "") if to_move is not None else ""
        status = live.resume_to if live.status == "paused" else live.status
        return announce.turn(status, to_move, prompt, None if p is None else p.seat, live.name)

    def _refusal(self, live: Live, exc: Refused) -> str:
        return announce.refusal(exc.code, exc.data, live.name)

    # -- players' texts ------------------------------------------------------------
    async def submit(
        self,
        match_id: int,
        player_id: str,
        text: str,
        *,
        message_id: str | None = None,
        at: float | None = None,
    ) -> SubmitResult:
        """Take a player's text: a move, a host keyword, or chat."""
        arrived = self.now() if at is None else at
        live = self.live.get(match_id)
        if live is None:
            return await self._submit_to_stored(match_id, player_id, text)
        async with live.lock:
            if live.id not in self.live:
                return SubmitResult("rejected", "The match is over.", "finished")
            seat = live.seat_of(player_id)
            if seat is None:
                return SubmitResult("ignored", "not a player of this match")
            text = text.strip()
            if not text:
                return SubmitResult("ignored", "empty")
            kw = keyword(text)
            if kw is not None:
                handled = await self._keyword(live, seat, kw, arrived)
                if handled is not None:
                    return handled
            if len(text) > MAX_MOVE_TEXT:
                return SubmitResult("ignored", "too long to be a move")
            return await self._move(live, seat, text, message_id, arrived)

    async def _submit_to_stored(self, match_id: int, player_id: str, text: str) -> SubmitResult:
        stored = await self.store.load(match_id)
        if stored is None:
            raise HostError(f"there is no match {match_id}")
        if not any(pid == player_id for pid, _ in stored.players.values()):
            return SubmitResult("ignored", "not a player of this match")
        return SubmitResult("rejected", f"Match {match_id} is over.", "finished")

    async def _keyword(self, live: Live, seat: int, action: str, at: float) -> SubmitResult | None:
        """A host keyword: resignation, or an action of one of the match's rules (None: read it as a move)."""
        if action == "resign":
            return await self._resign(live, seat)
        base = action.partition(":")[0]
        for rule in live.rules:
            if base not in rule.keywords.values():
                continue
            if live.status == "paused":
                return SubmitResult("rejected", announce.refusal("paused", {}, live.name), "paused")
            try:
                eff = rule.on_keyword(live, seat, action, at)
            except Refused as exc:
                return SubmitResult("rejected", self._refusal(live, exc), exc.kind)
            if eff is None:
                continue
            if eff.replay is not None:
                text, message_id = eff.replay
                move = live.ruleset.validate(live.state, live.ruleset.parse_syntax(text), seat)
                return await self._play(live, seat, text, move, message_id, at)
            batch = _Batch()
            self._effects(live, rule, eff, batch)
            await self._flush(live, batch)
            return SubmitResult("accepted", events=batch.out)
        return None

    async def _move(self, live: Live, seat: int, text: str, message_id: str | None, at: float) -> SubmitResult:
        ruleset = live.ruleset
        try:
            parsed = ruleset.parse_syntax(text)
        except MoveSyntaxError as exc:
            if ruleset.looks_like_move(text) and live.status not in ("finished", "aborted"):
                reason = f"I can't read {announce.quote(text)} as a move: {ruleset.move_hint()}."
                await self._record_attempt(live, seat, "syntax", text, message_id, exc.reason)
                return SubmitResult("rejected", reason, "syntax", [HostEvent(live.id, "hint", reason, seat=seat)])
            return SubmitResult("ignored", "chat")
        if live.status == "paused":
            return SubmitResult("rejected", announce.refusal("paused", {}, live.name), "paused")
        try:
            for rule in live.rules:
                rule.gate(live, seat)
        except Refused as exc:
            return SubmitResult("rejected", self._refusal(live, exc), exc.kind)
        if live.status != "ongoing" or ruleset.to_move(live.state) is None:
            return SubmitResult("rejected", "The game is over.", "finished")
        try:
            ruleset.check_turn(live.state, seat)
        except MoveError:
            reason = f"It is {live.name(ruleset.to_move(live.state))}'s turn."
            await self._record_attempt(live, seat, "turn", text, message_id, reason)
            return SubmitResult("rejected", reason, "turn")
        try:
            for rule in live.rules:
                rule.gate_mover(live, seat)
        except Refused as exc:
            return SubmitResult("rejected", self._refusal(live, exc), exc.kind)
        try:
            move = ruleset.validate(live.state, parsed, seat)
        except IllegalMoveError as exc:
            return await self._illegal(live, seat, text, message_id, exc)
        for rule in live.rules:
            eff = rule.after_validate(live, seat, text, move, message_id)
            if eff is not None and eff.reject is not None:
                reason = self._refusal(live, eff.reject)
                return SubmitResult(
                    "rejected", reason, eff.reject.kind, [HostEvent(live.id, eff.reject.kind, reason, seat=seat)]
                )
        return await self._play(live, seat, text, move, message_id, at)

    async def _illegal(
        self, live: Live, seat: int, text: str, message_id: str | None, exc: IllegalMoveError
    ) -> SubmitResult:
        reason = f"Illegal move {announce.quote(text)}: {exc.reason}."
        batch = _Batch(
            log=[NewEvent("illegal", seat, text[:MAX_MOVE_TEXT], message_id, {"reason": exc.reason})],
            out=[HostEvent(live.id, "illegal", reason, {"reason": exc.reason}, seat=seat)],
        )
        for rule in live.rules:
            self._effects(live, rule, rule.after_illegal(live, seat, exc.code), batch)
        await self._flush(live, batch)
        return SubmitResult("rejected", reason, "illegal", batch.out)

    async def _record_attempt(
        self, live: Live, seat: int, kind: str, text: str, message_id: str | None, reason: str
    ) -> None:
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
            "events": [{"kind": e.kind, **_jsonable(e.data)} for e in game_events],
        }
        eff = Effects()
        for rule in live.rules:
            eff = self._take(live, rule, rule.after_play(live, seat, notation, message_id, at), eff, self.now())
        batch = _Batch()
        if eff.defer:
            # Provisional: the mover's clock stops at the move; the opponent's starts when it is final.
            live.clocks.pause(at)
            data["provisional"] = True
            batch.log.append(NewEvent("move", seat, text, message_id, data))
            self._effects(live, None, eff, batch)
        else:
            used = live.clocks.stop(at)
            data["used"] = round(used, 3)
            batch.log.append(NewEvent("move", seat, text, message_id, data))
            said = announce.describe(game_events, live.name)
            batch.out.append(
                self._event(
                    live,
                    "move",
                    {"move": notation, "ply": live.ply, "used": round(used, 3), "events": data["events"]},
                    seat,
                    extra={"said": said},
                )
            )
            self._effects(live, None, eff, batch)
            self._after_move(live, batch)
        await self._flush(live, batch)
        return SubmitResult("accepted", events=batch.out)

    def _start_turn(self, live: Live, now: float) -> None:
        seat = live.ruleset.to_move(live.state)
        if seat is not None:
            live.clocks.start(seat, now, paused=live.status == "paused")

    # -- applying effects: the one place a rule's answer changes a match ------------------
    def _take(self, live: Live, rule: HouseRule, eff: Effects | None, into: Effects, now: float) -> Effects:
        """Collect a rule's effects; its timers are set at once (they belong to that rule)."""
        if eff is None:
            return into
        self._set_timers(live, rule, eff.timers, now)
        eff.timers = {}
        return into.merge(eff)

    def _set_timers(self, live: Live, rule: HouseRule | None, timers: Mapping[str, float | None], now: float) -> None:
        if rule is None:
            return
        base = live.paused_at if live.paused_at is not None else now
        for name, after in timers.items():
            if after is None:
                live.due.pop((rule.key, name), None)
            else:
                live.due[(rule.key, name)] = base + after

    def _change(self, live: Live, eff: Effects, now: float) -> None:
        """The match-changing part of effects: rewind, status, seats, clocks."""
        if eff.rewind_to is not None:
            _seat, before, ply = live.history[eff.rewind_to]
            del live.history[eff.rewind_to :]
            live.state = before
            live.ply = ply
            for rule in live.rules:
                after = rule.on_rewind()
                if after is not None:
                    self._set_timers(live, rule, after.timers, now)
        if eff.status is not None:
            live.status = eff.status
        if eff.swap_seats:
            live.players = {1: live.players[2], 2: live.players[1]}
        for op in eff.clock:
            if op == "pause":
                live.clocks.pause(now)
            elif op == "resume" and live.status == "ongoing" and not any(r.holds_clock() for r in live.rules):
                live.clocks.resume(now)
            elif op == "restart":
                self._start_turn(live, now)
            elif op == "stop":
                live.clocks.stop(now)
        if eff.start:
            self._start_turn(live, now)

    def _effects(self, live: Live, rule: HouseRule | None, eff: Effects | None, batch: _Batch) -> None:
        """Apply a rule's effects to the match and to this action's batch (committed later, in one go)."""
        if eff is None:
            return
        now = self.now()
        self._set_timers(live, rule, eff.timers, now)
        self._change(live, eff, now)
        batch.log += [NewEvent(e.kind, e.seat, data=dict(e.data)) for e in eff.log]
        if eff.swap_seats:
            batch.players = {s: (p.id, p.name) for s, p in live.players.items()}
        for note in eff.say:
            extra = {"move": live.clocks.tc.move, "grace": live.clocks.tc.grace} if note.kind == "clock" else None
            batch.out.append(self._event(live, note.kind, note.data, note.seat, extra))
        if eff.start:
            batch.out.append(self._started_event(live))
        if eff.hand_over is not None:
            self._hand_over(live, eff.hand_over, batch)
        if eff.finish is not None:
            self._end(live, eff.finish[0], eff.finish[1], batch, score=False)

    def _hand_over(self, live: Live, p: Provisional, batch: _Batch) -> None:
        """A provisional move becomes final: charge the mover, then the game goes on (or ends)."""
        used = round(live.clocks.stop(self.now()), 3)
        batch.log.append(NewEvent("commit", p.seat, data={"move": p.notation, "used": used}))
        batch.out.append(
            self._event(live, "move", {"move": p.notation, "ply": p.ply, "used": used}, p.seat, {"final": True})
        )
        self._after_move(live, batch)

    def _after_move(self, live: Live, batch: _Batch) -> None:
        outcome = live.ruleset.outcome(live.state)
        if outcome is None:
            self._start_turn(live, self.now())
            batch.out.append(self._event(live, "turn", {"seat": live.to_move()}))
            return
        for rule in live.rules:
            held = rule.at_result(live, outcome.winner, outcome.reason)
            if held is not None:
                self._effects(live, rule, held, batch)
                return
        self._end(live, outcome.winner, outcome.reason, batch, score=True)

    def _end(self, live: Live, winner: int | None, reason: str, batch: _Batch, *, score: bool) -> None:
        """The match is over (committed and announced with the rest of the batch)."""
        live.status = "finished"
        live.result = (winner, reason)
        live.clocks.stop(self.now())
        live.due.clear()
        for rule in live.rules:
            rule.on_finish()
        batch.winner, batch.reason = winner, reason
        batch.log.append(NewEvent("finished", winner, data={"winner": winner, "reason": reason}))
        extra: dict[str, Any] = {"by_host": not score}
        if score:
            scores = live.ruleset.scores(live.state)
            extra["score"] = (scores.get(1, 0), scores.get(2, 0))
        data = {"winner": winner, "winner_name": live.name(winner) if winner else None, "reason": reason}
        batch.out.append(self._event(live, "finished", data, extra=extra))

    async def _flush(self, live: Live, batch: _Batch) -> None:
        """Commit, then publish, then re-arm: the order every action ends with."""
        if batch.log:
            await self._commit(live, batch.log, winner=batch.winner, reason=batch.reason, players=batch.players)
        if live.status in ("finished", "aborted"):
            self._drop(live)
        for ev in batch.out:
            await self._publish(ev)
        self._rearm(live)

    def _drop(self, live: Live) -> None:
        self.live.pop(live.id, None)
        task = live.task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        live.task = None

    # -- endings and host actions ----------------------------------------------------
    async def _resign(self, live: Live, seat: int) -> SubmitResult:
        if live.status in ("finished", "aborted"):
            raise HostError("The match is already over.")
        batch = _Batch(log=[NewEvent("resign", seat)])
        self._end(live, 3 - seat, "resign", batch, score=False)
        await self._flush(live, batch)
        return SubmitResult("accepted", events=batch.out)

    async def _player_action(
        self,
        match_id: int,
        player_id: str,
        refusal: str,
        action: Callable[[Live, int], Awaitable[SubmitResult]],
    ) -> SubmitResult:
        """Run `action(live, seat)` under the match's lock for a player of the match, else refuse."""
        live = self.get(match_id)
        async with live.lock:
            seat = live.seat_of(player_id)
            if seat is None:
                raise HostError(refusal)
            return await action(live, seat)

    async def act(self, match_id: int, player_id: str, action: str, refusal: str) -> SubmitResult:
        """A rule's action from a button or a command (`mulligan`, `decline`, `ready`, `here`): HostError if refused."""

        async def run(live: Live, seat: int) -> SubmitResult:
            result = await self._keyword(live, seat, action, self.now())
            if result is None:
                raise HostError(announce.refusal(f"no_rule:{action}", {}, live.name))
            if result.status == "rejected":
                raise HostError(result.reason or "That is not possible now.")
            return result

        return await self._player_action(match_id, player_id, refusal, run)

    async def resign(self, match_id: int, player_id: str) -> SubmitResult:
        """A player gives up."""
        return await self._player_action(match_id, player_id, "only a player of this match can resign", self._resign)

    async def mulligan(self, match_id: int, player_id: str) -> SubmitResult:
        """Use a mulligan (button or command)."""
        return await self.act(match_id, player_id, "mulligan", "only a player of this match can use a mulligan")

    async def decline_mulligan(self, match_id: int, player_id: str) -> SubmitResult:
        """Decline the mulligan offered after a loss (button or command)."""
        return await self.act(match_id, player_id, "decline", "only a player of this match can decline")

    async def ready(self, match_id: int, player_id: str) -> SubmitResult:
        """A player in grace says they are ready to move."""
        return await self.act(match_id, player_id, "ready", "only a player of this match can do that")

    async def here(self, match_id: int, player_id: str) -> SubmitResult:
        """The opponent confirms presence (button or `here`)."""
        return await self.act(match_id, player_id, "here", "only the opponent can confirm presence")

    async def takeback(self, match_id: int, player_id: str, *, message_id: str | None = None, via: str) -> SubmitResult:
        """Take back a provisional move (by delete, edit, button or text); `message_id`: only the move posted there."""
        arrived = self.now()
        live = self.live.get(match_id)
        if live is None:
            return SubmitResult("ignored", "no such running match")
        async with live.lock:
            seat = live.seat_of(player_id)
            if seat is None:
                return SubmitResult("ignored", "not a player")
            pending = live.provisional()
            if message_id is not None and (pending is None or pending.message_id != message_id):
                return SubmitResult("ignored", "not the provisional move's message")
            result = await self._keyword(live, seat, f"takeback:{via}", arrived)
            if result is None:
                return SubmitResult("rejected", announce.refusal("no_rule:takeback", {}, live.name), "host")
            return result

    async def takeback_message(
        self, channel_id: int, message_id: str, author_id: str | None, via: str
    ) -> SubmitResult | None:
        """Take back the provisional move posted in message `message_id` of this room, if there is one."""
        for live in self.matches_in_channel(channel_id):
            pending = live.provisional()
            if pending is None or pending.message_id != message_id:
                continue
            player = author_id or live.players[pending.seat].id
            return await self.takeback(live.id, player, message_id=message_id, via=via)
        return None

    async def pause(self, match_id: int, by: str) -> None:
        """Stop both clocks and every timer of the match (the rules' too)."""
        live = self.get(match_id)
        async with live.lock:
            if live.status in ("paused", "finished", "aborted"):
                raise HostError(announce.paused_refusal(live.id, live.status))
            now = self.now()
            live.resume_to, live.status, live.paused_at = live.status, "paused", now
            live.clocks.pause(now)
            batch = _Batch(
                [NewEvent("pause", data={"by": by})], [self._event(live, "paused", {}, extra={"match": live.id})]
            )
            await self._flush(live, batch)

    async def resume(self, match_id: int, by: str) -> None:
        """Continue after a pause: the clocks and timers go on from where they stood."""
        live = self.get(match_id)
        async with live.lock:
            if live.status != "paused":
                raise HostError(f"match {match_id} is not paused")
            now = self.now()
            shift = now - (live.paused_at if live.paused_at is not None else now)
            live.due = {k: v + shift for k, v in live.due.items()}
            live.status, live.paused_at = live.resume_to, None
            if live.status == "ongoing" and not any(r.holds_clock() for r in live.rules):
                live.clocks.resume(now)
            batch = _Batch(
                [NewEvent("resume", data={"by": by})], [self._event(live, "unpaused", {}, extra={"match": live.id})]
            )
            await self._flush(live, batch)

    async def abort(self, match_id: int, by: str) -> None:
        """End without a result."""
        live = self.get(match_id)
        async with live.lock:
            live.clocks.stop(self.now())
            live.status = "aborted"
            live.due.clear()
            batch = _Batch(
                [NewEvent("abort", data={"by": by})], [self._event(live, "aborted", {}, extra={"match": live.id})]
            )
            batch.reason = "aborted"
            await self._flush(live, batch)

    async def adjust_time(self, match_id: int, seat: int, seconds: float, by: str) -> None:
        """Add (positive) or remove (negative) time for a seat."""
        if seat not in (1, 2):
            raise HostError("seat must be 1 or 2")
        live = self.get(match_id)
        async with live.lock:
            live.clocks.adjust(seat, seconds, self.now())
            ev = self._event(live, "time", {}, seat, extra={"seconds": seconds, "clocks": self.clock_text(live)})
            await self._flush(live, _Batch([NewEvent("time", seat, data={"seconds": seconds, "by": by})], [ev]))

    async def award(self, match_id: int, seat: int | None, by: str) -> None:
        """The host declares the result (seat None: a draw)."""
        live = self.get(match_id)
        async with live.lock:
            batch = _Batch([NewEvent("award", seat, data={"by": by})])
            self._end(live, seat, "award", batch, score=False)
            await self._flush(live, batch)

    # -- clocks and timers ---------------------------------------------------------
    def _next_due(self, live: Live) -> float | None:
        if live.status == "paused":
            return None
        times = [d.at for d in live.clocks.next_deadlines(self.now())[:1]] if live.status == "ongoing" else []
        times += list(live.due.values())
        return min(times) if times else None

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
            due = self._next_due(live)
            if due is None:
                return
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            async with live.lock:
                if live.id not in self.live:
                    return
                try:
                    await self._fire_due(live)
                except Exception:
                    log.exception("timer handling failed in match %s", live.id)
                    await asyncio.sleep(1)

    async def _fire_due(self, live: Live) -> None:
        now = self.now()
        if live.status == "paused":
            return
        for (key, name), at in sorted(live.due.items(), key=lambda kv: kv[1]):
            if at > now + 1e-9 or (key, name) not in live.due:
                continue
            del live.due[(key, name)]
            rule = next((r for r in live.rules if r.key == key), None)
            if rule is None:
                continue
            batch = _Batch()
            self._effects(live, rule, rule.on_timer(live, name), batch)
            await self._flush(live, batch)
            if live.id not in self.live:
                return
        if live.status != "ongoing":
            return
        for deadline in live.clocks.next_deadlines(now):
            if deadline.at > now + 1e-9:
                break
            live.clocks.fire(deadline.kind)
            seat = deadline.seat
            if deadline.kind == "timeout":
                batch = _Batch([NewEvent("timeout", seat)])
                self._end(live, 3 - seat, "time", batch, score=False)
                await self._flush(live, batch)
                return
            tc = live.clocks.tc
            ev = self._event(live, "clock", {"notice": deadline.kind}, seat, {"move": tc.move, "grace": tc.grace})
            await self._commit(live, [NewEvent("clock", seat, data={"notice": deadline.kind})])
            await self._publish(ev)

    # -- persistence ---------------------------------------------------------------
    def _snapshot(self, live: Live, now: float) -> dict[str, Any]:
        rs = live.ruleset
        base = live.paused_at if live.paused_at is not None else now
        timers: dict[str, dict[str, float]] = {}
        for (key, name), at in live.due.items():
            timers.setdefault(key, {})[name] = at - base
        return {
            "format": SNAPSHOT_FORMAT,
            "state": rs.to_json(live.state),
            "clocks": live.clocks.to_json(now),
            "status": live.status,
            "resume_to": live.resume_to,
            "ply": live.ply,
            "history": [[s, rs.to_json(b), p] for s, b, p in live.history],
            "settings": live.settings,
            "rules": {r.key: {"state": r.dump(now), "timers": timers.get(r.key, {})} for r in live.rules},
            "players": {str(s): [p.id, p.name] for s, p in live.players.items()},
            "instance": self.instance,
            "loop_at": now,
        }

    async def _commit(
        self,
        live: Live,
        events: list[NewEvent],
        *,
        winner: int | None = None,
        reason: str | None = None,
        players: dict[int, tuple[str, str]] | None = None,
    ) -> None:
        now = self.now()
        await self.store.append(
            live.id,
            live.seq,
            events,
            snapshot=self._snapshot(live, now),
            status=live.status,
            winner_seat=winner,
            result_reason=reason,
            players=players,
        )
        live.seq += len(events)

    async def _resume(self, stored: StoredMatch) -> None:
        from bot import rules as house

        ruleset = registry.get(stored.game)
        snap = stored.snapshot
        now = self.now()
        down = 0.0
        instance = snap.get("instance")
        if instance:
            last = await self.store.last_heartbeat(instance)
            if last is not None and instance != self.instance:
                down = max(0.0, last - float(snap["loop_at"]))
        opts = ruleset.parse_options(stored.options)
        clocks = Clocks.from_json(snap["clocks"], now, extra_elapsed=down)
        paused = snap["status"] == "paused"
        settings = snap.get("settings")
        if settings is None:  # written before house rules were chosen per match: the game's defaults
            settings = house.defaults(ruleset.id)
            if clocks.tc.takeback is not None:
                settings["takeback"] = clocks.tc.takeback
            settings["clock"] = clocks.tc.kind
        live = Live(
            id=stored.id,
            game=ruleset.id,
            ruleset=ruleset,
            options=opts,
            raw_options=stored.options,
            state=ruleset.from_json(snap["state"]),
            players={int(s): PlayerRef(pid, name) for s, (pid, name) in snap["players"].items()},
            clocks=clocks,
            status=snap["status"],
            seq=stored.event_count,
            guild_id=stored.guild_id,
            channel_id=stored.channel_id,
            ply=int(snap["ply"]),
            history=[(int(s), ruleset.from_json(b), int(p)) for s, b, p in snap["history"]],
            settings=dict(settings),
            rules=house.build(ruleset.id, settings),
            paused_at=now if paused else None,
            resume_to=snap.get("resume_to", "ongoing"),
        )

        def due(rel: Any) -> float:
            return now + float(rel) if paused else now + max(0.0, float(rel) - down)

        if "rules" in snap:
            for rule in live.rules:
                saved = snap["rules"].get(rule.key, {})
                rule.load(saved.get("state", {}), now - down)
                for name, rel in saved.get("timers", {}).items():
                    live.due[(rule.key, name)] = due(rel)
        else:
            for rule in live.rules:
                rule.load_legacy(snap.get("flags") or {}, snap.get("pending"), now - down)
                for old, rel in (snap.get("timers") or {}).items():
                    if old in rule.legacy_timers:
                        live.due[(rule.key, rule.legacy_timers[old])] = due(rel)
        self.live[live.id] = live
        await self._commit(live, [NewEvent("resumed", data={"downtime_uncharged": down > 0})])
        await self._publish(self._started_event(live, "resumed"))
        self._rearm(live)

    async def _publish(self, event: HostEvent) -> None:
        for listener in list(self._listeners):
            try:
                result = listener(event)
                if asyncio.iscoroutine(result):
                    await result
            except Exception:
                log.exception("listener failed for %s in match %s", event.kind, event.match_id)


def _jsonable(data: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in data.items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[k] = v
        elif isinstance(v, Mapping):
            out[k] = _jsonable(v)
        elif isinstance(v, (list, tuple)):
            out[k] = [x if isinstance(x, (str, int, float, bool)) or x is None else str(x) for x in v]
        else:
            out[k] = str(v)
    return out
