"""One alpha-beta search for every game: a game brings an evaluation and its candidate moves.

Values are from the point of view of one seat (`me`): a node maximises when `me` is to act and
minimises otherwise, so extra turns (Boxes, Pathing) and one-sided phases (Dots after a stop) need
no special case. Wins score `WIN` minus the plies it takes, so the nearest win is preferred and
the farthest loss.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.base import AnyRuleset, Seat

WIN = 1_000_000.0
Evaluate = Callable[[Any, Seat], float]
Candidates = Callable[[AnyRuleset, Any], list[Any]]
Forcing = Callable[[AnyRuleset, Any, "Budget", float], Any]
FORCING_SHARE = 0.3
"""Of `hard`'s budget: the part the forcing-win search may use before the ordinary search starts,
and the part kept at the end for checking the chosen moves against the opponent's forcing wins."""
REFUTE_CHECKS = 6


class OutOfTime(Exception):
    """The budget ran out in the middle of a search."""


@dataclass
class Budget:
    """What one move's thinking may spend: seconds of wall-clock time (play), or, when `nodes` is set,
    that many units of work (positions searched), which gives the same move on every machine, however
    busy (tests, reproducible duels). Phases of a search get a share of it: "the first 30 %"."""

    seconds: float
    nodes: int | None = None
    used: int = 0
    """Units of work done so far (counted in both modes)."""
    start: float = field(default_factory=time.monotonic)

    def spend(self, units: int = 1) -> None:
        """Count work done."""
        self.used += units

    def spent(self, share: float = 1.0) -> bool:
        """Whether the first `share` of the budget is used up."""
        if self.nodes is not None:
            return self.used >= share * self.nodes
        return time.monotonic() > self.start + share * self.seconds


def all_moves(ruleset: AnyRuleset, state: Any) -> list[Any]:
    """The default candidate list: every legal move."""
    return ruleset.legal_moves(state)


@dataclass(frozen=True)
class Profile:
    """What the search needs to know about one game."""

    evaluate: Evaluate
    """A heuristic score of a non-final state for a seat (higher is better for that seat)."""
    candidates: Candidates = all_moves
    """The moves worth searching (a subset of the legal ones, never empty while the game goes on)."""
    beam: int = 12
    """Below the root, only this many children (best first by the evaluation) are searched."""
    depth: dict[str, int] = field(default_factory=lambda: {"easy": 1, "medium": 2, "hard": 8})
    """Search depth per level; `hard` deepens one ply at a time up to this while time lasts."""
    noise: float = 0.0
    """Random spread added to `easy`'s scores, so it plays less predictably than a greedy rule."""
    play: Callable[[Any, Any], Any] | None = None
    """A faster `apply` returning only the new state (the engine's own), when the game has one."""
    quiet_leaves: bool = False
    """One ply from the horizon, look only for moves that end the game (the evaluation is costly):
    the node keeps its own evaluation unless a child finishes the game."""
    tactical: Candidates | None = None
    """The moves that may end the game at once (for `quiet_leaves`); the candidates when None."""
    root_all: bool = True
    """Search every legal move at the root (the candidate filter applies below it)."""
    depth_step: int = 1
    """`hard` deepens by this many plies at a time (2 keeps the opponent's reply last, for games
    where a capture at the horizon is often answered by a recapture)."""
    deeper_margin: float = 0.0
    """How much better (in evaluation units) a deeper iteration must find another move to switch."""
    medium_roots: int = 0
    """When set, `medium` searches only this many of its moves, those that look best one ply ahead
    (with `noise`): it checks the replies to a few candidate moves rather than to every one."""
    forcing: Forcing | None = None
    """For `hard`: a move that wins by force (beyond the search's horizon), looked for first within
    the given share of the budget; None when there is none or the share is used up."""
    refutes: Forcing | None = None
    """For `hard`: given the position after one of its moves, a winning move of the opponent's by
    force (None if none found in time). The best-scored moves are checked in order and the first
    that is not refuted is played."""


@dataclass
class Search:
    """Alpha-beta for the seat `me` within the first `share` of a budget (checked at every node)."""

    ruleset: AnyRuleset
    profile: Profile
    me: Seat
    budget: Budget
    share: float = 1.0
    nodes: int = 0

    def terminal(self, state: Any, ply: int) -> float | None:
        """The value of a finished state, else None."""
        out = self.ruleset.outcome(state)
        if out is None:
            return None
        if out.winner is None:
            return 0.0
        return WIN - ply if out.winner == self.me else -WIN + ply

    def static(self, state: Any, ply: int) -> float:
        """Terminal value or the evaluation."""
        t = self.terminal(state, ply)
        return self.profile.evaluate(state, self.me) if t is None else t

    def after(self, state: Any, move: Any) -> Any:
        """The state after `move`."""
        if self.profile.play is not None:
            return self.profile.play(state, move)
        return self.ruleset.apply(state, move)[0]

    def children(self, state: Any, ply: int, beam: int | None, root: bool = False) -> list[tuple[float, Any, Any]]:
        """(static value, move, child state), best first for the seat to act, cut to `beam`."""
        out = []
        moves = (
            self.ruleset.legal_moves(state)
            if root and self.profile.root_all
            else self.profile.candidates(self.ruleset, state)
        )
        for move in moves:
            child = self.after(state, move)
            out.append((self.static(child, ply + 1), move, child))
        maximise = self.ruleset.to_move(state) == self.me
        out.sort(key=lambda t: t[0], reverse=maximise)
        return out if beam is None else out[:beam]

    def value(self, state: Any, depth: int, alpha: float, beta: float, ply: int) -> float:
        """Alpha-beta value of `state` searched `depth` more plies."""
        t = self.terminal(state, ply)
        if t is not None:
            return t
        if depth <= 0:
            return self.profile.evaluate(state, self.me)
        self.nodes += 1
        self.budget.spend()
        if self.budget.spent(self.share):
            raise OutOfTime
        if depth == 1 and self.profile.quiet_leaves:
            return self.quiet(state, ply)
        kids = self.children(state, ply, self.profile.beam)
        if not kids:
            return self.profile.evaluate(state, self.me)
        maximise = self.ruleset.to_move(state) == self.me
        if depth == 1:
            return kids[0][0]
        best = -WIN * 2 if maximise else WIN * 2
        for _static, _move, child in kids:
            v = self.value(child, depth - 1, alpha, beta, ply + 1)
            if maximise:
                if v > best:
                    best = v
                alpha = max(alpha, v)
            else:
                if v < best:
                    best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        return best

    def quiet(self, state: Any, ply: int) -> float:
        """The evaluation of `state`, unless the seat to act can end the game at once."""
        maximise = self.ruleset.to_move(state) == self.me
        best: float | None = None
        for move in (self.profile.tactical or self.profile.candidates)(self.ruleset, state):
            t = self.terminal(self.after(state, move), ply + 1)
            if t is not None and (best is None or (t > best if maximise else t < best)):
                best = t
                if (t > 0) == maximise and t != 0:
                    break
        value = self.profile.evaluate(state, self.me)
        if best is None:
            return value
        return max(best, value) if maximise else min(best, value)


def best_move(
    ruleset: AnyRuleset,
    profile: Profile,
    state: Any,
    level: str,
    rng: random.Random,
    budget: Budget,
    avoid: Sequence[Any] = (),
) -> Any:
    """The move `level` plays: `easy` looks one ply ahead (with noise), `medium` two, `hard` deepens
    while the budget lasts. Ties are broken with `rng`."""
    me = ruleset.to_move(state)
    if me is None:
        raise ValueError("the game is over")
    checks = level == "hard" and profile.refutes is not None
    search = Search(ruleset, profile, me, budget, 1.0 - FORCING_SHARE if checks else 1.0)
    roots = search.children(state, 0, None, root=True)
    roots = [r for r in roots if r[1] not in avoid] or roots
    if not roots:
        raise ValueError("no move")
    # A move that wins at once is always taken, at every level but random.
    if roots[0][0] >= WIN - 1:
        return _pick(rng, [(v, m) for v, m, _ in roots])
    if level == "hard" and profile.forcing is not None:
        forced = profile.forcing(ruleset, state, budget, FORCING_SHARE)
        if forced is not None and forced not in avoid:
            return forced
    if level == "easy":
        scored = [(v + rng.uniform(-profile.noise, profile.noise), m) for v, m, _ in roots]
        return _pick(rng, scored)
    if level == "medium" and profile.medium_roots:
        noisy = sorted(roots, key=lambda r: r[0] + rng.uniform(-profile.noise, profile.noise), reverse=True)
        roots = noisy[: profile.medium_roots]
    max_depth = profile.depth.get(level, 2)
    scored = [(v, m) for v, m, _ in roots]
    depth = 2
    while depth <= max_depth:
        cur: list[tuple[float, Any]] = []
        try:
            alpha = -WIN * 2
            for _v, move, child in roots:
                v = search.value(child, depth - 1, alpha - 1e-9, WIN * 2, 1)
                cur.append((v, move))
                alpha = max(alpha, v)
        except OutOfTime:
            # An iteration cut short is dropped: below the root the beam can hide the reply that
            # refutes a move, and a half-finished iteration trusts those moves too much. The first
            # one (two plies) is kept for the moves it searched, the most promising ones: without
            # it a loaded machine would leave only the one-ply scores.
            if depth == 2 and cur:
                scored = cur
            break
        if profile.deeper_margin and depth > 2:
            # Trust a deeper search only when it clearly prefers another move (its beam can hide
            # the reply that refutes a move; the shallower choice was searched in full).
            top = max(v for v, _ in scored)
            previous = {id(m) for v, m in scored if v >= top - 1e-6}
            cur = [(v + profile.deeper_margin if id(m) in previous else v, m) for v, m in cur]
        scored = cur
        if max(v for v, _ in scored) >= WIN - depth:
            break
        # Search the best moves first next time: alpha-beta cuts more.
        order = {id(m): v for v, m in scored}
        roots.sort(key=lambda t: (order[id(t[1])], t[0]), reverse=True)
        depth += profile.depth_step
        if budget.spent(search.share):
            break
    static = {id(m): v for v, m, _ in roots}
    if checks:
        scored = _unrefuted(ruleset, profile, roots, scored, budget)
    return _pick(rng, scored, static)


def _unrefuted(
    ruleset: AnyRuleset,
    profile: Profile,
    roots: list[tuple[float, Any, Any]],
    scored: list[tuple[float, Any]],
    budget: Budget,
) -> list[tuple[float, Any]]:
    """`scored` without the best moves that the opponent answers with a forcing win (checked best
    first, up to REFUTE_CHECKS of them, while the budget lasts): the best unrefuted move comes out on top."""
    assert profile.refutes is not None
    child = {id(m): c for _v, m, c in roots}
    refuted: set[int] = set()
    checked = 0
    for v, m in sorted(scored, key=lambda vm: vm[0], reverse=True):
        if checked >= REFUTE_CHECKS or v <= -WIN / 2 or budget.spent():
            break
        checked += 1
        if profile.refutes(ruleset, child[id(m)], budget, 1.0) is None:
            # the unchecked moves scored as high are left out: this one is known to hold
            return [(v, m)] + [(w, n) for w, n in scored if w < v - 1e-6]
        refuted.add(id(m))
    return [(v, m) for v, m in scored if id(m) not in refuted] or scored


def _pick(rng: random.Random, scored: list[tuple[float, Any]], static: dict[int, float] | None = None) -> Any:
    """A random move among the best (within a hair); among equals, the one that looks best now, so a
    gain the search sees as merely postponable (a capture, a five-row) is taken at once."""
    top = max(v for v, _ in scored)
    best = [m for v, m in scored if v >= top - 1e-6]
    if static is not None:
        now = max(static[id(m)] for m in best)
        best = [m for m in best if static[id(m)] >= now - 1e-6]
    return best[rng.randrange(len(best))]
