"""The match service: runs matches of any registered game, keeps clocks, stores everything.

No Discord here. Adapters hand in `(match, player, text)` and listen to `HostEvent`s.
Each match has one `asyncio.Lock`: texts are processed in arrival order, and only the first legal
move of a turn counts. Every accepted action is committed to the database before it is announced.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.announce import describe
from bot.clocks import Clocks, TimeControl
from bot.policies import HostPolicy, policy_for
from bot.store import MatchStore, NewEvent, StoredMatch
from games import registry
from games.base import AnyRuleset, IllegalMoveError, MoveError, MoveSyntaxError, OptionsError

log = logging.getLogger(__name__)

MAX_MOVE_TEXT = 200
HISTORY_DEPTH = 6


@dataclass(frozen=True)
class PlayerRef:
    """A player: a stable id (e.g. a Discord user id) and a display name."""

    id: str
    name: str


@dataclass
class HostEvent:
    """Something the room should hear about."""

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

_KEYWORDS = {
    "resign": "resign",
    "i resign": "resign",
    "take back": "takeback",
    "takeback": "takeback",
    "undo": "takeback",
    "mulligan": "mulligan",
    "use mulligan": "mulligan",
    "decline": "decline",
    "no mulligan": "decline",
    "decline mulligan": "decline",
    "ready": "ready",
    "here": "here",
    "i'm here": "here",
    "im here": "here",
    "confirm": "confirm",
    "first": "first",
    "i go first": "first",
    "me": "first",
    "second": "second",
    "you go first": "second",
    "you": "second",
}
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
    policy: HostPolicy
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
    flags: dict[str, Any] = field(default_factory=dict)
    timers: dict[str, float] = field(default_factory=dict)
    pending: dict[str, Any] | None = None
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
        return _display(self.players[seat].name) if seat in self.players else "nobody"


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
        first: int | None = 1,
        advantage: int | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        by: str | None = None,
    ) -> int:
        """Create and start a match. `first` is the seat (1 or 2, by list order) that moves first;
        `advantage` (1 or 2) instead names the player who chooses."""
        try:
            ruleset = registry.get(game)
        except (registry.UnknownGameError, registry.GameNotImplementedError) as exc:
            raise HostError(str(exc.args[0])) from None
        if len(players) != 2 or players[0].id == players[1].id:
            raise HostError("a match needs two different players")
        try:
            opts = ruleset.parse_options(options or {})
        except OptionsError as exc:
            raise HostError(str(exc)) from None
        try:
            tc = TimeControl.from_spec(ruleset.default_clock(opts), clock)
        except ValueError as exc:
            raise HostError(str(exc)) from None
        order = list(players)
        status = "ongoing"
        if advantage is not None:
            if advantage not in (1, 2):
                raise HostError("advantage names player 1 or 2")
            status = "choosing"
        elif first == 2:
            order.reverse()
        elif first != 1:
            raise HostError("first must be 1 or 2")
        raw_opts = opts.model_dump(mode="json")
        live = Live(
            id=0,
            game=ruleset.id,
            ruleset=ruleset,
            options=opts,
            raw_options=raw_opts,
            policy=policy_for(ruleset.id),
            state=ruleset.new_game(opts),
            players={1: order[0], 2: order[1]},
            clocks=Clocks.new(tc),
            status=status,
            seq=0,
            guild_id=guild_id,
            channel_id=channel_id,
        )
        if advantage is not None:
            live.flags["chooser"] = advantage
        now = self.now()
        if status == "ongoing":
            self._start_turn(live, now)
        created = NewEvent(
            "created",
            text=None,
            data={
                "game": ruleset.id,
                "options": raw_opts,
                "clock": tc.to_json(),
                "players": {str(s): [p.id, p.name] for s, p in live.players.items()},
                "by": by,
                "advantage": advantage,
            },
        )
        live.id = await self.store.create_match(
            game=ruleset.id,
            options=raw_opts,
            clock=tc.to_json(),
            status=status,
            players={s: (p.id, p.name) for s, p in live.players.items()},
            guild_id=guild_id,
            channel_id=channel_id,
            snapshot=self._snapshot(live, now),
            events=[created],
        )
        live.seq = 1
        self.live[live.id] = live
        if status == "choosing":
            chooser = live.players[advantage or 1]
            await self._publish(
                HostEvent(
                    live.id,
                    "choose",
                    f"{live.name(advantage or 1)} has the advantage: post `first` to move first or `second` to let "
                    f"{live.name(3 - (advantage or 1))} start.",
                    {"chooser": chooser.id},
                )
            )
        else:
            await self._publish(self._started_event(live))
        self._rearm(live)
        return live.id

    def _started_event(self, live: Live, kind: str = "started") -> HostEvent:
        p1, p2 = live.players[1], live.players[2]
        verb = "resumed" if kind == "resumed" else "started"
        return HostEvent(
            live.id,
            kind,
            f"Match {live.id} ({live.ruleset.title}) {verb}: {live.name(1)} (seat 1) vs {live.name(2)} (seat 2). "
            f"{self._turn_text(live)}",
            {"players": {"1": p1.name, "2": p2.name}, "game": live.game},
        )

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

    def board_text(self, match_id: int) -> str:
        """The text board, whose turn it is and both clocks."""
        live = self.get(match_id)
        return "\n".join([live.ruleset.render_text(live.state), self._turn_text(live), self.clock_text(live)])

    def clock_text(self, live: Live) -> str:
        """One line with both clocks."""
        now = self.now()
        parts = []
        for seat in (1, 2):
            rem = live.clocks.remaining(seat, now)
            mark = "▶ " if live.clocks.running == seat else ""
            if live.clocks.tc.kind == "move_reserve":
                parts.append(f"{mark}{live.name(seat)} {_fmt(rem['move'])} + {_fmt(rem['reserve'])} reserve")
            else:
                g = "grace used" if rem["grace_used"] and rem["grace"] == 0 else f"grace {_fmt(rem['grace'])}"
                parts.append(f"{mark}{live.name(seat)} {_fmt(rem['move'])} ({g})")
        suffix = " (paused)" if live.status == "paused" else ""
        return "clocks: " + " | ".join(parts) + suffix

    def _turn_text(self, live: Live) -> str:
        if live.status == "choosing":
            return f"Waiting for {live.name(live.flags.get('chooser'))} to choose who starts."
        if live.status in ("finished", "aborted"):
            return "The match is over."
        seat = live.ruleset.to_move(live.state)
        if live.pending is not None:
            return f"{live.name(live.pending['seat'])}'s move becomes final in a few seconds."
        if seat is None:
            return "The game is over."
        prompt = live.ruleset.turn_prompt(live.state)
        return f"{live.name(seat)} to move" + (f": {prompt}." if prompt else ".")

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
                handled = await self._keyword(live, seat, kw, message_id, arrived)
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

    async def _keyword(self, live: Live, seat: int, kw: str, message_id: str | None, at: float) -> SubmitResult | None:
        try:
            if kw == "resign":
                return await self._resign(live, seat)
            if kw == "takeback" and self._takeback_window(live):
                return await self._takeback(live, seat, at, via="text")
            if kw in ("mulligan", "decline") and live.policy.mulligans:
                if kw == "mulligan":
                    return await self._mulligan(live, seat)
                return await self._decline_mulligan(live, seat)
            if kw == "ready" and live.clocks.tc.kind == "grace":
                return await self._ready(live, seat)
            if kw == "here" and live.clocks.tc.kind == "grace":
                return await self._here(live, seat)
            if kw == "confirm" and live.flags.get("confirm"):
                return await self._confirm(live, seat, at)
            if kw in ("first", "second") and live.status == "choosing":
                return await self._choose(live, seat, kw == "first")
        except HostError as exc:
            return SubmitResult("rejected", str(exc), "host")
        return None

    async def _move(self, live: Live, seat: int, text: str, message_id: str | None, at: float) -> SubmitResult:
        ruleset = live.ruleset
        try:
            parsed = ruleset.parse_syntax(text)
        except MoveSyntaxError as exc:
            if ruleset.looks_like_move(text) and live.status not in ("finished", "aborted"):
                reason = f"I can't read {_quote(text)} as a move: {ruleset.move_hint()}."
                await self._record_attempt(live, seat, "syntax", text, message_id, exc.reason)
                return SubmitResult("rejected", reason, "syntax", [HostEvent(live.id, "hint", reason, seat=seat)])
            return SubmitResult("ignored", "chat")
        if live.status == "choosing":
            return SubmitResult(
                "rejected", f"{live.name(live.flags.get('chooser'))} must first choose who starts.", "turn"
            )
        if live.status == "paused":
            return SubmitResult("rejected", "The match is paused.", "paused")
        if live.status in ("finished", "aborted", "mulligan_wait") or ruleset.to_move(live.state) is None:
            return SubmitResult("rejected", "The game is over.", "finished")
        if live.pending is not None:
            return SubmitResult("rejected", "Wait: the last move is not final yet.", "turn")
        try:
            ruleset.check_turn(live.state, seat)
        except MoveError:
            reason = f"It is {live.name(ruleset.to_move(live.state))}'s turn."
            await self._record_attempt(live, seat, "turn", text, message_id, reason)
            return SubmitResult("rejected", reason, "turn")
        if live.clocks.in_grace and live.clocks.running == seat and not live.flags.get("presence_ok"):
            reason = (
                f"You are in grace: post `ready` and wait for {live.name(3 - seat)} to confirm, then move."
                if not live.flags.get("presence_wait")
                else f"Waiting for {live.name(3 - seat)} to confirm they are here."
            )
            return SubmitResult("rejected", reason, "grace")
        try:
            move = ruleset.validate(live.state, parsed, seat)
        except IllegalMoveError as exc:
            return await self._illegal(live, seat, text, message_id, exc, at)
        if live.policy.confirm_shift and getattr(ruleset, "loses_by_shifting", None):
            if ruleset.loses_by_shifting(live.state, move):
                live.flags["confirm"] = {"seat": seat, "text": text, "message_id": message_id}
                reason = "That move lowers your five-row count and loses at once. Post `confirm` to play it anyway."
                return SubmitResult("rejected", reason, "confirm", [HostEvent(live.id, "confirm", reason, seat=seat)])
        return await self._play(live, seat, text, move, message_id, at)

    async def _illegal(
        self, live: Live, seat: int, text: str, message_id: str | None, exc: IllegalMoveError, at: float
    ) -> SubmitResult:
        reason = f"Illegal move {_quote(text)}: {exc.reason}."
        events = [HostEvent(live.id, "illegal", reason, {"reason": exc.reason}, seat=seat)]
        extra: dict[str, Any] = {}
        if exc.code == "three-same" and live.policy.three_same_restart and not live.flags.get("three_same_used"):
            live.flags["three_same_used"] = True
            live.clocks.start(seat, self.now())
            extra["clock_restarted"] = True
            note = f"{live.name(seat)}: that turn would leave three same-coloured tracks; your clock is restarted once."
            events.append(HostEvent(live.id, "clock", note, {"notice": "restart"}, seat=seat))
        await self._record_attempt(live, seat, "illegal", text, message_id, exc.reason, extra)
        for ev in events:
            await self._publish(ev)
        self._rearm(live)
        return SubmitResult("rejected", reason, "illegal", events)

    async def _record_attempt(
        self,
        live: Live,
        seat: int,
        kind: str,
        text: str,
        message_id: str | None,
        reason: str,
        extra: dict[str, Any] | None = None,
    ) -> None:
        await self._commit(
            live,
            [NewEvent(kind, seat, text[:MAX_MOVE_TEXT], message_id, {"reason": reason, **(extra or {})})],
        )

    async def _play(
        self, live: Live, seat: int, text: str, move: Any, message_id: str | None, at: float
    ) -> SubmitResult:
        ruleset = live.ruleset
        notation = ruleset.format(live.state, move)
        before = live.state
        new_state, game_events = ruleset.apply(live.state, move)
        now = self.now()
        if self._takeback_window(live) or live.policy.mulligans:
            # Only games with take-backs or mulligans ever rewind, so only they keep earlier states.
            live.history.append((seat, before, live.ply))
            del live.history[:-HISTORY_DEPTH]
        live.state = new_state
        live.ply += 1
        live.flags.pop("presence_ok", None)
        live.flags.pop("presence_wait", None)
        live.timers.pop("presence", None)
        live.flags.pop("confirm", None)
        data: dict[str, Any] = {
            "move": notation,
            "ply": live.ply,
            "events": [{"kind": e.kind, **_jsonable(e.data)} for e in game_events],
        }
        if self._takeback_window(live):
            # Provisional: the mover's clock stops at the move; the opponent's starts when it is final.
            live.clocks.pause(at)
            live.pending = {
                "seat": seat,
                "message_id": message_id,
                "at": at,
                "ply": live.ply,
                "notation": notation,
            }
            live.timers["commit"] = at + self._takeback_window(live)
            data["provisional"] = True
            await self._commit(live, [NewEvent("move", seat, text, message_id, data)])
            ev = HostEvent(
                live.id,
                "provisional",
                f"{live.name(seat)} played {notation}. It becomes final in {self._takeback_window(live):g} s "
                "(delete or edit your message, or post `take back`, to take it back).",
                {"move": notation, "ply": live.ply},
                seat=seat,
            )
            await self._publish(ev)
            self._rearm(live)
            return SubmitResult("accepted", events=[ev])
        used = live.clocks.stop(at)
        data["used"] = round(used, 3)
        events = [NewEvent("move", seat, text, message_id, data)]
        finished = self._engine_result(live)
        if finished is None:
            self._start_turn(live, now)
        out = [
            HostEvent(
                live.id,
                "move",
                f"{live.name(seat)} played {notation}." + describe(game_events, live.name),
                {"move": notation, "ply": live.ply, "used": round(used, 3), "events": data["events"]},
                seat=seat,
            )
        ]
        if finished is not None:
            out += await self._finish(live, finished[0], finished[1], events)
        else:
            await self._commit(live, events)
            out.append(HostEvent(live.id, "turn", self._turn_text(live), {"seat": ruleset.to_move(live.state)}))
        for ev in out:
            await self._publish(ev)
        self._rearm(live)
        return SubmitResult("accepted", events=out)

    @staticmethod
    def _takeback_window(live: Live) -> float:
        """Seconds a move stays provisional in this match (0: moves are final at once)."""
        tc = live.clocks.tc.takeback
        return live.policy.takeback_seconds if tc is None else tc

    def _engine_result(self, live: Live) -> tuple[int | None, str] | None:
        outcome = live.ruleset.outcome(live.state)
        return None if outcome is None else (outcome.winner, outcome.reason)

    def _start_turn(self, live: Live, now: float) -> None:
        seat = live.ruleset.to_move(live.state)
        if seat is not None:
            live.clocks.start(seat, now, paused=live.status == "paused")

    # -- endings -------------------------------------------------------------------
    async def _finish(
        self, live: Live, winner: int | None, reason: str, events: list[NewEvent] | None = None
    ) -> list[HostEvent]:
        """End the match (or, where mulligans exist, ask the loser first). Commits."""
        events = list(events or [])
        loser = None if winner is None else 3 - winner
        if (
            reason in ("loop", "line", "four-in-a-row")
            and live.policy.mulligans
            and loser is not None
            and not live.flags.get(f"mulligan_used_{loser}")
            and self._can_rewind(live, loser)
        ):
            live.status = "mulligan_wait"
            live.clocks.stop(self.now())
            live.flags["mulligan_wait"] = {"winner": winner, "reason": reason}
            live.timers["mulligan"] = self.now() + live.policy.mulligan_prompt_seconds
            events.append(NewEvent("mulligan_offer", loser, data={"winner": winner, "reason": reason}))
            await self._commit(live, events)
            return [
                HostEvent(
                    live.id,
                    "mulligan_offer",
                    f"{live.name(winner)} completed a {reason}. {live.name(loser)}, you still have your mulligan: "
                    f"post `mulligan` to rewind, or `decline` (you have {live.policy.mulligan_prompt_seconds:g} s).",
                    {"winner": winner, "loser": loser},
                    seat=loser,
                )
            ]
        live.status = "finished"
        live.result = (winner, reason)
        live.clocks.stop(self.now())
        live.timers.clear()
        live.pending = None
        events.append(NewEvent("finished", winner, data={"winner": winner, "reason": reason}))
        await self._commit(live, events, winner=winner, reason=reason)
        self._drop(live)
        text = f"Game over: {live.name(winner)} wins ({reason})." if winner else f"Game over: a draw ({reason})."
        scores = live.ruleset.scores(live.state)
        return [
            HostEvent(
                live.id,
                "finished",
                text + f" Score {scores.get(1, 0)}–{scores.get(2, 0)}.",
                {"winner": winner, "winner_name": live.name(winner) if winner else None, "reason": reason},
            )
        ]

    def _drop(self, live: Live) -> None:
        self.live.pop(live.id, None)
        task = live.task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        live.task = None

    async def _resign(self, live: Live, seat: int) -> SubmitResult:
        if live.status in ("finished", "aborted"):
            raise HostError("The match is already over.")
        live.status = "ongoing"
        live.flags.pop("mulligan_wait", None)
        events = await self._finish_now(live, 3 - seat, "resign", [NewEvent("resign", seat)])
        return SubmitResult("accepted", events=events)

    async def _finish_now(self, live: Live, winner: int | None, reason: str, events: list[NewEvent]) -> list[HostEvent]:
        """End at once (no mulligan offer): resignation, time, award."""
        live.status = "finished"
        live.result = (winner, reason)
        live.clocks.stop(self.now())
        live.timers.clear()
        live.pending = None
        events = [*events, NewEvent("finished", winner, data={"winner": winner, "reason": reason})]
        await self._commit(live, events, winner=winner, reason=reason)
        self._drop(live)
        text = f"Game over: {live.name(winner)} wins ({reason})." if winner else f"Game over: no winner ({reason})."
        out = [
            HostEvent(
                live.id,
                "finished",
                text,
                {"winner": winner, "winner_name": live.name(winner) if winner else None, "reason": reason},
            )
        ]
        for ev in out:
            await self._publish(ev)
        return out

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

    # -- host actions --------------------------------------------------------------
    async def resign(self, match_id: int, player_id: str) -> SubmitResult:
        """A player gives up."""
        return await self._player_action(match_id, player_id, "only a player of this match can resign", self._resign)

    async def pause(self, match_id: int, by: str) -> None:
        """Stop both clocks."""
        live = self.get(match_id)
        async with live.lock:
            if live.status != "ongoing":
                raise HostError(f"match {match_id} is {live.status}, not running")
            live.status = "paused"
            live.clocks.pause(self.now())
            await self._commit(live, [NewEvent("pause", data={"by": by})])
            await self._publish(HostEvent(live.id, "paused", f"Match {live.id} is paused by the host."))
            self._rearm(live)

    async def resume(self, match_id: int, by: str) -> None:
        """Continue after a pause."""
        live = self.get(match_id)
        async with live.lock:
            if live.status != "paused":
                raise HostError(f"match {match_id} is not paused")
            live.status = "ongoing"
            if live.pending is None:
                live.clocks.resume(self.now())
            await self._commit(live, [NewEvent("resume", data={"by": by})])
            await self._publish(HostEvent(live.id, "unpaused", f"Match {live.id} continues. {self._turn_text(live)}"))
            self._rearm(live)

    async def abort(self, match_id: int, by: str) -> None:
        """End without a result."""
        live = self.get(match_id)
        async with live.lock:
            live.clocks.stop(self.now())
            live.status = "aborted"
            live.timers.clear()
            await self._commit(live, [NewEvent("abort", data={"by": by})], reason="aborted")
            self._drop(live)
            await self._publish(HostEvent(live.id, "aborted", f"Match {live.id} was aborted by the host."))

    async def adjust_time(self, match_id: int, seat: int, seconds: float, by: str) -> None:
        """Add (positive) or remove (negative) time for a seat."""
        if seat not in (1, 2):
            raise HostError("seat must be 1 or 2")
        live = self.get(match_id)
        async with live.lock:
            live.clocks.adjust(seat, seconds, self.now())
            await self._commit(live, [NewEvent("time", seat, data={"seconds": seconds, "by": by})])
            verb = "gets" if seconds >= 0 else "loses"
            await self._publish(
                HostEvent(live.id, "time", f"{live.name(seat)} {verb} {abs(seconds):g} s. {self.clock_text(live)}")
            )
            self._rearm(live)

    async def award(self, match_id: int, seat: int | None, by: str) -> None:
        """The host declares the result (seat None: a draw)."""
        live = self.get(match_id)
        async with live.lock:
            await self._finish_now(live, seat, "award", [NewEvent("award", seat, data={"by": by})])

    # -- Trax flows: take-back, mulligan, grace -------------------------------------
    async def takeback(self, match_id: int, player_id: str, *, message_id: str | None = None, via: str) -> SubmitResult:
        """Take back a provisional move (by delete, edit or text)."""
        arrived = self.now()
        live = self.live.get(match_id)
        if live is None:
            return SubmitResult("ignored", "no such running match")
        async with live.lock:
            seat = live.seat_of(player_id)
            if seat is None:
                return SubmitResult("ignored", "not a player")
            pending = live.pending
            if message_id is not None and (pending is None or pending.get("message_id") != message_id):
                return SubmitResult("ignored", "not the provisional move's message")
            try:
                return await self._takeback(live, seat, arrived, via=via)
            except HostError as exc:
                return SubmitResult("rejected", str(exc), "host")

    async def _takeback(self, live: Live, seat: int, at: float, *, via: str) -> SubmitResult:
        pending = live.pending
        if pending is None or pending["seat"] != seat:
            raise HostError(
                f"There is no move of yours to take back: moves are final after {self._takeback_window(live):g} s."
            )
        if at > pending["at"] + self._takeback_window(live):
            raise HostError("Too late: the move is already final.")
        _last_seat, before, ply = live.history.pop()
        live.state = before
        live.ply = ply
        live.pending = None
        live.timers.pop("commit", None)
        live.clocks.resume(self.now())
        await self._commit(live, [NewEvent("takeback", seat, data={"via": via, "move": pending["notation"]})])
        ev = HostEvent(
            live.id,
            "takeback",
            f"{live.name(seat)} took back {pending['notation']}. {self._turn_text(live)}",
            {"move": pending["notation"], "via": via},
            seat=seat,
        )
        await self._publish(ev)
        self._rearm(live)
        return SubmitResult("accepted", events=[ev])

    async def _commit_pending(self, live: Live) -> None:
        pending = live.pending
        if pending is None:
            return
        live.pending = None
        live.timers.pop("commit", None)
        now = self.now()
        used = live.clocks.stop(now)
        events = [NewEvent("commit", pending["seat"], data={"move": pending["notation"], "used": round(used, 3)})]
        out = [
            HostEvent(
                live.id,
                "move",
                f"{live.name(pending['seat'])}'s move {pending['notation']} is final.",
                {"move": pending["notation"], "ply": pending["ply"], "used": round(used, 3)},
                seat=pending["seat"],
            )
        ]
        finished = self._engine_result(live)
        if finished is not None:
            out += await self._finish(live, finished[0], finished[1], events)
        else:
            self._start_turn(live, now)
            await self._commit(live, events)
            out.append(HostEvent(live.id, "turn", self._turn_text(live), {"seat": live.ruleset.to_move(live.state)}))
        for ev in out:
            await self._publish(ev)

    def _can_rewind(self, live: Live, seat: int) -> bool:
        return any(s == seat for s, _b, _p in live.history)

    async def mulligan(self, match_id: int, player_id: str) -> SubmitResult:
        """Use a mulligan (button or command)."""
        return await self._player_action(
            match_id, player_id, "only a player of this match can use a mulligan", self._mulligan
        )

    async def _mulligan(self, live: Live, seat: int) -> SubmitResult:
        if not live.policy.mulligans:
            raise HostError("This game has no mulligans.")
        if live.flags.get(f"mulligan_used_{seat}"):
            raise HostError("You have already used your mulligan.")
        waiting = live.flags.get("mulligan_wait")
        if waiting is None:
            if live.status != "ongoing" or live.pending is not None or live.ruleset.to_move(live.state) != seat:
                raise HostError("You can use your mulligan on your own turn.")
        elif waiting["winner"] == seat:
            raise HostError("Only the player who lost can use a mulligan now.")
        idx = max((i for i, (s, _b, _p) in enumerate(live.history) if s == seat), default=None)
        if idx is None:
            raise HostError("You have no turn of your own to rewind yet.")
        _s, before, ply = live.history[idx]
        rewound = live.ply - ply
        del live.history[idx:]
        live.state = before
        live.ply = ply
        live.flags[f"mulligan_used_{seat}"] = True
        live.flags.pop("mulligan_wait", None)
        live.timers.pop("mulligan", None)
        live.status = "ongoing"
        live.clocks.start(seat, self.now())
        await self._commit(live, [NewEvent("mulligan", seat, data={"rewound_plies": rewound, "to_ply": ply})])
        ev = HostEvent(
            live.id,
            "mulligan",
            f"{live.name(seat)} used their mulligan: the last {rewound} turn(s) are rewound. {self._turn_text(live)}",
            {"rewound": rewound},
            seat=seat,
        )
        await self._publish(ev)
        self._rearm(live)
        return SubmitResult("accepted", events=[ev])

    async def decline_mulligan(self, match_id: int, player_id: str) -> SubmitResult:
        """Decline the mulligan offered after a loss (button or command)."""
        return await self._player_action(
            match_id, player_id, "only a player of this match can decline", self._decline_mulligan
        )

    async def _decline_mulligan(self, live: Live, seat: int) -> SubmitResult:
        waiting = live.flags.get("mulligan_wait")
        if waiting is None or waiting["winner"] == seat:
            raise HostError("There is no mulligan offer for you to decline.")
        live.flags.pop("mulligan_wait", None)
        live.status = "ongoing"
        events = await self._finish_now(
            live, waiting["winner"], waiting["reason"], [NewEvent("mulligan_declined", seat)]
        )
        return SubmitResult("accepted", events=events)

    async def ready(self, match_id: int, player_id: str) -> SubmitResult:
        """A player in grace says they are ready to move."""
        return await self._player_action(match_id, player_id, "only a player of this match can do that", self._ready)

    async def _ready(self, live: Live, seat: int) -> SubmitResult:
        if not (live.clocks.in_grace and live.clocks.running == seat):
            raise HostError("`ready` is for a player in grace, on their turn.")
        if live.flags.get("presence_ok"):
            raise HostError("You are cleared to move.")
        live.flags["presence_wait"] = True
        live.clocks.pause(self.now())
        live.timers["presence"] = self.now() + live.clocks.tc.presence
        await self._commit(live, [NewEvent("ready", seat)])
        ev = HostEvent(
            live.id,
            "presence",
            f"{live.name(seat)} is ready to move from grace. {live.name(3 - seat)}, please confirm you are here "
            f"(button or `here`) within {live.clocks.tc.presence:g} s.",
            {"asker": seat, "confirmer": 3 - seat, "confirmer_id": live.players[3 - seat].id},
            seat=3 - seat,
        )
        await self._publish(ev)
        self._rearm(live)
        return SubmitResult("accepted", events=[ev])

    async def here(self, match_id: int, player_id: str) -> SubmitResult:
        """The opponent confirms presence (button or `here`)."""
        return await self._player_action(match_id, player_id, "only the opponent can confirm presence", self._here)

    async def _here(self, live: Live, seat: int) -> SubmitResult:
        if not live.flags.get("presence_wait") or live.clocks.running != 3 - seat:
            raise HostError("Nobody is waiting for your confirmation.")
        await self._clear_presence(live, seat, "confirmed")
        return SubmitResult("accepted")

    async def _clear_presence(self, live: Live, confirmer: int | None, how: str) -> None:
        live.flags.pop("presence_wait", None)
        live.flags["presence_ok"] = True
        live.timers.pop("presence", None)
        if live.status == "ongoing":
            live.clocks.resume(self.now())
        await self._commit(live, [NewEvent("here", confirmer, data={"how": how})])
        mover = live.clocks.running
        await self._publish(
            HostEvent(
                live.id,
                "presence_ok",
                f"{live.name(mover)}, you may move now ({how}).",
                {"how": how},
                seat=mover,
            )
        )
        self._rearm(live)

    async def _confirm(self, live: Live, seat: int, at: float) -> SubmitResult:
        pending = live.flags.get("confirm")
        if not pending or pending["seat"] != seat:
            raise HostError("There is nothing for you to confirm.")
        live.flags.pop("confirm", None)
        move = live.ruleset.validate(live.state, live.ruleset.parse_syntax(pending["text"]), seat)
        return await self._play(live, seat, pending["text"], move, pending["message_id"], at)

    async def _choose(self, live: Live, seat: int, chooser_first: bool) -> SubmitResult:
        chooser = live.flags.get("chooser")
        if seat != chooser:
            raise HostError(f"{live.name(chooser)} chooses who starts.")
        if (chooser == 1) != chooser_first:
            live.players = {1: live.players[2], 2: live.players[1]}
        live.status = "ongoing"
        live.flags.pop("chooser", None)
        self._start_turn(live, self.now())
        await self._commit(
            live,
            [NewEvent("choice", seat, data={"first": live.players[1].id})],
            players={s: (p.id, p.name) for s, p in live.players.items()},
        )
        ev = self._started_event(live)
        await self._publish(ev)
        self._rearm(live)
        return SubmitResult("accepted", events=[ev])

    # -- clocks and timers ---------------------------------------------------------
    def _next_due(self, live: Live) -> float | None:
        times = [d.at for d in live.clocks.next_deadlines(self.now())[:1]] if live.status == "ongoing" else []
        times += list(live.timers.values())
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
        for name, at in sorted(live.timers.items(), key=lambda kv: kv[1]):
            if at > now + 1e-9 or name not in live.timers:
                continue
            if name == "commit":
                await self._commit_pending(live)
            elif name == "mulligan":
                live.timers.pop("mulligan", None)
                waiting = live.flags.pop("mulligan_wait", None)
                if waiting is not None:
                    live.status = "ongoing"
                    loser = 3 - waiting["winner"]
                    await self._finish_now(
                        live,
                        waiting["winner"],
                        waiting["reason"],
                        [NewEvent("mulligan_declined", loser, data={"how": "timeout"})],
                    )
            elif name == "presence":
                await self._clear_presence(live, None, "no confirmation in time")
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
                await self._finish_now(live, 3 - seat, "time", [NewEvent("timeout", seat)])
                return
            text = _notice_text(deadline.kind, live.name(seat), live.clocks)
            await self._commit(live, [NewEvent("clock", seat, data={"notice": deadline.kind})])
            await self._publish(HostEvent(live.id, "clock", text, {"notice": deadline.kind}, seat=seat))

    # -- persistence ---------------------------------------------------------------
    def _snapshot(self, live: Live, now: float) -> dict[str, Any]:
        rs = live.ruleset
        return {
            "state": rs.to_json(live.state),
            "clocks": live.clocks.to_json(now),
            "status": live.status,
            "ply": live.ply,
            "history": [[s, rs.to_json(b), p] for s, b, p in live.history],
            "flags": live.flags,
            "timers": {k: v - now for k, v in live.timers.items()},
            "pending": None if live.pending is None else {**live.pending, "at": live.pending["at"] - now},
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
        live = Live(
            id=stored.id,
            game=ruleset.id,
            ruleset=ruleset,
            options=opts,
            raw_options=stored.options,
            policy=policy_for(ruleset.id),
            state=ruleset.from_json(snap["state"]),
            players={int(s): PlayerRef(pid, name) for s, (pid, name) in snap["players"].items()},
            clocks=clocks,
            status=snap["status"],
            seq=stored.event_count,
            guild_id=stored.guild_id,
            channel_id=stored.channel_id,
            ply=int(snap["ply"]),
            history=[(int(s), ruleset.from_json(b), int(p)) for s, b, p in snap["history"]],
            flags=dict(snap["flags"]),
            timers={k: now + max(0.0, float(v) - down) for k, v in snap["timers"].items()},
            pending=None
            if snap["pending"] is None
            else {**snap["pending"], "at": now + float(snap["pending"]["at"]) - down},
        )
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


def _fmt(seconds: float) -> str:
    s = max(0.0, seconds)
    if s >= 60:
        return f"{int(s // 60)}:{int(s % 60):02d}"
    return f"{s:.1f}s" if s < 10 else f"{int(s)}s"


def _quote(text: str) -> str:
    clean = "".join(ch if ch.isprintable() else " " for ch in text[:200])
    clean = clean.replace("`", "'").replace("@", "@\u200b")
    return f"`{clean[:40]}{'…' if len(clean) > 40 else ''}`"


def _display(name: str) -> str:
    """A player's name as the host says it: one line, at most 40 characters, and it can never ping
    (`@everyone`, `@here`, `<@&role>`, `<@user>`)."""
    clean = " ".join("".join(ch if ch.isprintable() else " " for ch in name[:200]).split())
    clean = clean.replace("@", "@\u200b")
    return (clean[:40] + "…" if len(clean) > 40 else clean) or "?"


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


def _notice_text(kind: str, name: str, clocks: Clocks) -> str:
    if kind == "reserve_started":
        return f"{name}: move time is up, your reserve is running."
    if kind == "grace_started":
        return (
            f"{name}: your {_fmt(clocks.tc.move)} are up and you are now in grace "
            f"(at most {_fmt(clocks.tc.grace)} more); post `ready` before you move."
        )
    if kind.startswith("move_warn"):
        return f"{name}: {kind.removeprefix('move_warn')} s left for this move."
    if kind.startswith("warn"):
        return f"{name}: {kind.removeprefix('warn')} s left before you lose on time."
    return f"{name}: {kind}"
