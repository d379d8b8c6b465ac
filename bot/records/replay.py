"""Rebuild a match's positions from its stored log: every accepted move, less what a rule rewound."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.host.rules import log_rewind
from bot.store.matches import EntryKind, StoredMatch
from bot.types import ClockKind, TimeControl
from games import registry
from games.base import AnyRuleset


@dataclass
class Frame:
    """One position of the match: the state after `ply` accepted moves (0 = the start)."""

    ply: int
    state: Any
    seat: int | None
    move: str | None
    used: float | None
    caption: str
    clocks: dict[int, float]
    engine_move: Any = None


def replay_match(match: StoredMatch) -> tuple[AnyRuleset, list[Frame]]:
    """The ruleset and the frames of a stored match (which must be loaded with its events)."""
    ruleset = registry.get(match.game)
    options = ruleset.parse_options(match.options)
    tc = TimeControl.from_json(match.clock)
    names = {seat: name for seat, (_pid, name) in match.players.items()}
    start_players = match.events[0].data.get("players") if match.events else None
    if start_players:
        names = {int(s): v[1] for s, v in start_players.items()}
    bank = {
        seat: own.reserve if own.kind == ClockKind.MOVE_RESERVE else own.grace
        for seat, own in ((1, tc.for_seat(1)), (2, tc.for_seat(2)))
    }
    frames = [Frame(0, ruleset.new_game(options), None, None, None, "start", dict(bank))]
    for e in match.events:
        if e.kind == EntryKind.CHOICE:
            first = e.data.get("first")
            if first is not None and match.players.get(1, ("",))[0] == first:
                names = {seat: name for seat, (_pid, name) in match.players.items()}
        elif e.kind == EntryKind.MOVE:
            prev = frames[-1]
            move = ruleset.parse(prev.state, e.data["move"], e.seat)
            state, _events = ruleset.apply(prev.state, move)
            used = e.data.get("used")
            frames.append(Frame(prev.ply + 1, state, e.seat, e.data["move"], used, "", dict(prev.clocks), move))
        elif e.kind == EntryKind.COMMIT and frames[-1].used is None:
            frames[-1].used = e.data.get("used")
        elif (to_ply := log_rewind(e.kind, e.data, frames[-1].ply)) is not None:
            frames = frames[: to_ply + 1]
    # Clocks accumulate along the final line of play.
    for i in range(1, len(frames)):
        for seat in (1, 2):
            if frames[i].seat != seat:
                frames[i].clocks[seat] = frames[i - 1].clocks[seat]
            elif tc.kind == ClockKind.MOVE_RESERVE:
                frames[i].clocks[seat] = max(
                    0.0, frames[i - 1].clocks[seat] - max(0.0, (frames[i].used or 0.0) - tc.for_seat(seat).move)
                )
        f = frames[i]
        f.caption = f"{f.ply}. {names.get(f.seat or 0, '?')} {f.move}" + (
            f" ({f.used:.1f} s)" if f.used is not None else ""
        )
    return ruleset, frames
