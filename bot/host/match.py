"""A hosted match and the values around it: the live match, its events as data, snapshots.

`Live` is what the service keeps in memory for a running match; `dump` and `restore` turn it into the
snapshot stored with every commit and back (including snapshots written before house rules had keys
of their own: `flags`, `timers`, `pending`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "HostError",
    "HostEvent",
    "Listener",
    "Live",
    "PlayerRef",
    "SubmitResult",
    "Unsaved",
    "keyword",
]

from bot.host import rules
from bot.host.clocks import Clocks
from bot.host.events import (
    ClockFacts,
    HostError,
    HostEvent,
    Ignored,
    Listener,
    PlayerRef,
    Refusal,
    SubmitResult,
    TurnFacts,
)
from bot.host.rules import HouseRule, Provisional
from bot.host.rules import keyword as keyword  # read where the rules' phrases are (`rules.keyword`)
from bot.store.db import utcnow
from bot.store.matches import MatchStore, StoredMatch
from bot.types import OVER_STATUSES, ClockKind, MatchStatus, TimeControl
from games import registry
from games.base import AnyRuleset, OptionsError

SNAPSHOT_FORMAT = 2


@dataclass(frozen=True)
class Outage:
    """How a resumed match came back: when its previous host was last alive (wall clock, UTC), and when
    its clocks restarted here (this process's loop clock and the wall clock)."""

    last_alive: dt.datetime
    resumed_loop: float
    resumed_wall: dt.datetime


HOOKS = ("gate", "gate_mover", "after_validate", "after_play", "at_result", "provisional", "holds_clock")
"""The hooks a move asks the rules on its way: a rule is asked only those its class takes (overrides), and
only while it is in play in the match (`HouseRule.in_play`)."""


def asked(live: Live) -> dict[str, tuple[HouseRule, ...]]:
    """For each hook of `HOOKS`, the match's rules (in their order) whose class takes it and that are in play:
    a hook a rule leaves as `HouseRule` has it does nothing, and a rule not in play (a setting this match does
    not have) does nothing either, so a move asks neither. Decided when the rules' state changes (`Live.reask`),
    never per text. `dump`: every rule whose class keeps something (its state is stored even while it is out of
    play); `history`: the rules that rewind."""
    playing = [r for r in live.rules if r.in_play(live)]
    asks = {hook: tuple(r for r in playing if getattr(type(r), hook) is not getattr(HouseRule, hook)) for hook in HOOKS}
    asks["dump"] = tuple(r for r in live.rules if type(r).dump is not HouseRule.dump)
    asks["history"] = tuple(r for r in live.rules if r.needs_history)
    return asks


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
    status: MatchStatus
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
    resume_to: MatchStatus = MatchStatus.ONGOING
    practice: bool = False
    """A match against the practice opponent (kept out of histories and ratings)."""
    machine: int | None = None
    """The practice opponent's seat, when known: its moves are final at once (no take-back window)."""
    machines: set[int] = field(default_factory=set)
    """More seats the practice opponent plays in this process (`MatchService.played_by_machine`; not stored)."""
    started_at: dt.datetime = field(default_factory=utcnow)
    outage: Outage | None = None
    """Set when the match was resumed after its host was away: maps messages posted meanwhile to the clock."""
    away: dict[int, tuple[float, int]] = field(default_factory=dict)
    """Correspondence vacation: seat → (loop time it ends, its Unix time); that seat's clock stands still."""
    committed: tuple[dict[str, Any], int] | None = None
    """The last snapshot the database has, and the log length with it: where a failed write goes back to."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    task: asyncio.Task[None] | None = None
    acting: bool = False
    """True while the timer task acts under the match's lock (a write may be in flight): a match let go then
    leaves that task to finish its action and end by itself, rather than cancelling it inside a write."""
    unannounced: bool = False
    """Loaded on demand after a restart (`bot.host.idle`): its `resumed` event is still to be published."""
    unlogged: bool = False
    """Loaded on demand after a restart: its `resumed` log entry goes with its next write."""
    asks: dict[str, tuple[HouseRule, ...]] = field(init=False, repr=False, compare=False)
    """Hook → the rules of the match that take it and are in play (`asked`), set with the rules and again when
    their state changes (`reask`)."""

    def __post_init__(self) -> None:
        self.reask()

    def reask(self) -> None:
        """Decide again which rules a move asks (`asked`): after the rules were built, loaded, or acted outside
        a move (an action, a timer, the start), which may put a rule in or out of play."""
        self.asks = asked(self)

    def seat_of(self, player_id: str) -> int | None:
        """The seat of a player id, or None for a non-player."""
        for seat, p in self.players.items():
            if p.id == player_id:
                return seat
        return None

    def names(self) -> dict[int, str]:
        """The players' names by seat (as they chose them; `bot.wording` makes them safe to show)."""
        return {seat: p.name for seat, p in self.players.items()}

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

    def clock_may_run(self) -> bool:
        """Whether the clock of the seat on move may run now: not while a player on vacation is on move."""
        return self.clocks.running not in self.away

    def provisional(self) -> Provisional | None:
        """The move a rule keeps provisional, if any."""
        for rule in self.asks["provisional"]:
            if (p := rule.provisional()) is not None:
                return p
        return None

    def final_at_once(self, seat: int) -> bool:
        """Whether a seat's moves are final when played (the practice opponent's: it never takes one back)."""
        return (self.machine is not None and seat == self.machine) or seat in self.machines


class Unsaved(Exception):
    """The database did not take an action's write; the match is back where it was saved."""


def new_live(
    game: str,
    players: list[PlayerRef],
    options: Mapping[str, Any] | None,
    clock: Mapping[str, Any] | None,
    chosen: Mapping[str, Any] | None,
    first: int | None,
    advantage: int | None,
) -> Live:
    """A new match, not stored yet (HostError for anything the host asked that cannot be)."""
    try:
        ruleset = registry.get(game)
    except registry.UnknownGameError as exc:
        raise HostError(Refusal("game", data={"detail": str(exc.args[0])})) from None
    if len(players) != 2 or players[0].id == players[1].id:
        raise HostError(Refusal("two_players"))
    try:
        opts = ruleset.parse_options(options or {})
        settings = rules.parse(ruleset.id, chosen)
        spec = ruleset.default_clock(opts)
        tc = TimeControl.from_spec(spec, rules.clock_overrides(settings, spec.kind, clock or {}))
    except rules.RulesError as exc:
        raise HostError(exc.refusal) from None
    except OptionsError as exc:
        raise HostError(Refusal("options", data={"problems": exc.problems, "valid": exc.valid})) from None
    except ValueError as exc:
        raise HostError(Refusal("options", data={"detail": str(exc)})) from None
    settings.update(rules.from_clock(clock or {}, chosen))
    settings["clock"] = tc.kind
    order = list(players)
    if advantage is not None and advantage not in (1, 2):
        raise HostError(Refusal("advantage_seat"))
    if advantage is None and first == 2:
        order.reverse()
        tc = tc.swapped()  # `p1:`/`p2:` time odds name the players by list order
    elif advantage is None and first != 1:
        raise HostError(Refusal("first_seat"))
    return Live(
        id=0,
        game=ruleset.id,
        ruleset=ruleset,
        options=opts,
        raw_options=opts.model_dump(mode="json"),
        state=ruleset.new_game(opts),
        players={1: order[0], 2: order[1]},
        clocks=Clocks.new(tc),
        status=MatchStatus.ONGOING,
        seq=0,
        settings=settings,
        rules=rules.build(ruleset.id, settings),
    )


def dump(live: Live, now: float, instance: str, wall: dt.datetime | None = None) -> dict[str, Any]:
    """The snapshot of a match at loop time `now` (timers relative to now, or to the pause); `wall`: the wall
    clock then, kept for a correspondence match, whose deadlines run on while no host runs."""
    rs = live.ruleset
    base = live.paused_at if live.paused_at is not None else now
    timers: dict[str, dict[str, float]] = {}
    for (key, name), at in live.due.items():
        timers.setdefault(key, {})[name] = at - base
    players = {str(s): [p.id, p.name] for s, p in live.players.items()}
    away = {str(s): [at - now, unix] for s, (at, unix) in live.away.items()}
    keeping = {id(r) for r in live.asks["dump"]}  # a rule that keeps nothing stores {}
    # asked in turn: the game's earlier states, the rules, then the game, then the clocks (each once)
    history = [[s, rs.to_json(b), p] for s, b, p in live.history]
    saved = {
        r.key: {"state": r.dump(now) if id(r) in keeping else {}, "timers": timers.get(r.key, {})} for r in live.rules
    }
    state = rs.to_json(live.state)
    clocks = live.clocks.to_json(now)
    return {
        "format": SNAPSHOT_FORMAT,
        "state": state,
        "clocks": clocks,
        "status": live.status,
        "resume_to": live.resume_to,
        "ply": live.ply,
        "history": history,
        "settings": live.settings,
        "rules": saved,
        "players": players,
        "instance": instance,
        "loop_at": now,
        **({"practice": True} if live.practice else {}),
        **({"away": away} if away else {}),
        **({"machine": live.machine} if live.machine is not None else {}),
        **(
            {"wall_at": wall.isoformat()}
            if wall is not None and live.clocks.tc.kind == ClockKind.CORRESPONDENCE
            else {}
        ),
    }


def restore(stored: StoredMatch, now: float, down: float) -> Live:
    """A stored match, live again at loop time `now`; `down` seconds ran (uncharged) before the restart."""
    ruleset = registry.get(stored.game)
    snap = stored.snapshot
    clocks = Clocks.from_json(snap["clocks"], now, extra_elapsed=down)
    paused = snap["status"] == MatchStatus.PAUSED
    settings = snap.get("settings")
    if settings is None:  # written before house rules were chosen per match: the game's defaults then
        settings = rules.defaults(ruleset.id)
        settings.update(rules.from_clock(snap["clocks"]["tc"]))
        settings["clock"] = clocks.tc.kind
    live = Live(
        id=stored.id,
        game=ruleset.id,
        ruleset=ruleset,
        options=ruleset.parse_options(stored.options),
        raw_options=stored.options,
        state=ruleset.from_json(snap["state"]),
        players={int(s): PlayerRef(pid, name) for s, (pid, name) in snap["players"].items()},
        clocks=clocks,
        status=MatchStatus(snap["status"]),
        seq=stored.event_count,
        guild_id=stored.guild_id,
        channel_id=stored.channel_id,
        ply=int(snap["ply"]),
        history=[(int(s), ruleset.from_json(b), int(p)) for s, b, p in snap["history"]],
        settings=dict(settings),
        rules=rules.build(ruleset.id, settings),
        paused_at=now if paused else None,
        resume_to=MatchStatus(snap.get("resume_to", MatchStatus.ONGOING)),
        practice=bool(snap.get("practice", False)),
        machine=int(snap["machine"]) if snap.get("machine") is not None else None,
        started_at=stored.created_at,
    )

    def due(rel: Any) -> float:
        return now + float(rel) if paused else now + max(0.0, float(rel) - down)

    for seat, (rel, unix) in (snap.get("away") or {}).items():
        live.away[int(seat)] = (now + max(0.0, float(rel) - down), int(unix))
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
    live.reask()  # the rules as loaded: in play or not
    return live


async def to_stored(store: MatchStore, match_id: int, player_id: str) -> SubmitResult:
    """A text for a match that is not running here: over, or (still running) hosted by another process now
    (or HostError: there is no such match)."""
    stored = await store.load(match_id)
    if stored is None:
        raise HostError(Refusal("no_match", data={"match": match_id}))
    if not any(pid == player_id for pid, _ in stored.players.values()):
        return SubmitResult.ignored(Ignored.STRANGER)
    if stored.status not in OVER_STATUSES:
        return SubmitResult.rejected(Refusal("taken_over", "error", {"match": match_id}))
    return SubmitResult.rejected(Refusal("stored_over", "finished", {"match": match_id}))


def resumed(stored: StoredMatch, now: float, wall_now: dt.datetime, last: tuple[float, dt.datetime] | None) -> Live:
    """A match its previous host left, live again here; `last`: that host's last sign of life (loop time
    there, wall time), up to which its clocks ran. The outage after it is not charged."""
    down = 0.0 if last is None else max(0.0, last[0] - float(stored.snapshot["loop_at"]))
    wall_at = stored.snapshot.get("wall_at")
    if wall_at is not None:  # correspondence: deadlines are absolute, the whole time away is charged
        live = restore(stored, now, max(0.0, (wall_now - dt.datetime.fromisoformat(wall_at)).total_seconds()))
        return live
    live = restore(stored, now, down)
    if last is not None:
        live.outage = Outage(last[1], now, wall_now)
    return live


def next_due(live: Live, now: float) -> float | None:
    """When the match's timers next need the host: a clock deadline or a rule's timer (None: nothing due)."""
    if live.status == MatchStatus.PAUSED:
        return None
    times = [d.at for d in live.clocks.next_deadlines(now)[:1]] if live.status == MatchStatus.ONGOING else []
    times += list(live.due.values())
    times += [at for at, _unix in live.away.values()]
    return min(times) if times else None


def roll_back(live: Live, now: float) -> None:
    """Put a match back to its last committed snapshot (after a write that failed), in place: the clocks
    are charged for the time since, as if the failed action had never been tried."""
    if live.committed is None:
        return
    snap, seq = live.committed
    stored = StoredMatch(
        id=live.id,
        game=live.game,
        options=live.raw_options,
        clock=live.clocks.tc.to_json(),
        status=snap["status"],
        guild_id=live.guild_id,
        channel_id=live.channel_id,
        created_at=utcnow(),
        finished_at=None,
        winner_seat=None,
        result_reason=None,
        event_count=seq,
        snapshot=snap,
        players={},
    )
    fresh = restore(stored, now, max(0.0, now - float(snap["loop_at"])))
    for name in ("state", "players", "clocks", "status", "seq", "ply", "history", "settings", "rules", "due", "away"):
        setattr(live, name, getattr(fresh, name))
    live.asks = fresh.asks  # asked of the rules just restored
    live.paused_at, live.resume_to, live.result = fresh.paused_at, fresh.resume_to, None


def clock_facts(live: Live, now: float) -> ClockFacts:
    """Both clocks as they stand at loop time `now`."""
    clocks = live.clocks
    remaining = {seat: clocks.remaining(seat, now) for seat in (1, 2)}
    held = live.status == MatchStatus.ONGOING and any(r.holds_clock() for r in live.asks["holds_clock"])
    running = None if held else clocks.running  # while a move is provisional (or presence asked), none runs
    away = {seat: unix for seat, (_at, unix) in live.away.items()}
    return ClockFacts(clocks.tc.kind, running, remaining, live.status == MatchStatus.PAUSED, away)


def turn_facts(live: Live) -> TurnFacts:
    """Whose turn it is, or what the match waits for."""
    held = any(live.status in rule.holds for rule in live.rules)
    p = live.provisional()
    to_move = None if held else live.ruleset.to_move(live.state)
    prompt = (live.ruleset.turn_prompt(live.state) or "") if to_move is not None else ""
    status = live.resume_to if live.status == MatchStatus.PAUSED else live.status
    held_by = next((rule.key for rule in live.rules if rule.holding()), None) if held else None
    return TurnFacts(status, to_move, prompt, None if p is None else p.seat, held_by)
