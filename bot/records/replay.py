"""Rebuild a match's positions from its stored log: every accepted move, less what a rule rewound."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.host.rules import log_rewind
from bot.store.matches import EntryKind, StoredMatch
from bot.types import ClockKind, TimeControl
from bot.wording.log import is_correspondence, used_text
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
    """Each seat's clock after this ply: its reserve (or grace) in a live match; in a correspondence match
    the time its next move has (the move's time and what its bank saved)."""
    engine_move: Any = None
    at: dt.datetime | None = None
    """When the move was logged (None: the start)."""


def replay_match(match: StoredMatch) -> tuple[AnyRuleset, list[Frame]]:
    """The ruleset and the frames of a stored match (which must be loaded with its events)."""
    ruleset = registry.get(match.game)
    options = ruleset.parse_options(match.options)
    tc = TimeControl.from_json(match.clock)
    names = {seat: name for seat, (_pid, name) in match.players.items()}
    start_players = match.events[0].data.get("players") if match.events else None
    if start_players:
        names = {int(s): v[1] for s, v in start_players.items()}
    bank = {seat: _start_clock(own) for seat, own in ((1, tc.for_seat(1)), (2, tc.for_seat(2)))}
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
            frames.append(Frame(prev.ply + 1, state, e.seat, e.data["move"], used, "", dict(prev.clocks), move, e.at))
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
            elif tc.kind == ClockKind.CORRESPONDENCE:  # unused move time is saved in the bank, up to its cap
                own = tc.for_seat(seat)
                saved = max(0.0, frames[i - 1].clocks[seat] - own.move)
                banked = min(own.bank, max(0.0, saved + own.move - max(0.0, frames[i].used or 0.0)))
                frames[i].clocks[seat] = own.move + banked
        f = frames[i]
        f.caption = f"{f.ply}. {names.get(f.seat or 0, '?')} {f.move}" + (
            f" ({used_text(f.used, match.clock)})" if f.used is not None else ""
        )
    return ruleset, frames


def _start_clock(own: TimeControl) -> float:
    """A seat's clock before its first move: its reserve, its grace, or (correspondence) its move's time."""
    if own.kind == ClockKind.MOVE_RESERVE:
        return own.reserve
    if own.kind == ClockKind.CORRESPONDENCE:
        return own.move
    return own.grace


def clock_shown(value: float, clock: Mapping[str, Any]) -> str:
    """A replay frame's clock as the review shows it: `4:30`, or in days and hours for a correspondence match."""
    if is_correspondence(clock):
        return used_text(value, clock)
    from games.pictures.core import clock_text

    return clock_text(value)
