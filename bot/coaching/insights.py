"""A player's insights, counted from the stored analyses move for move (pure: no database).

Per game: matches, analysed moves, the verdicts' counts, what was lost (in the game's own unit), by phase
(opening, middle, end: in each game's own terms, `phase_of`) and against each frequent opponent. Every
count is a sum over the stored analysis entries of the player's own moves: nothing is judged again.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

VERDICTS = ("best", "good", "inaccuracy", "mistake", "blunder")
PHASES = ("opening", "middle", "end")
FREQUENT = 3
"""An opponent met in at least this many analysed matches is a frequent one."""
MOST_OPPONENTS = 5
"""At most this many frequent opponents are listed (most matches first)."""
UNITS = {"boxes": "boxes", "pathing": "boxes", "dots": "dots", "dotdash": "points", "trax": "points"}
"""What `lost` counts in each game."""
SCALE = {"boxes": 0.5, "pathing": 0.5, "dots": 0.1, "dotdash": 1.0, "trax": 0.001}
"""From an entry's `loss` to `lost`: the solver's margin moves two for a box; Dots' engine counts 10 for a
dot; Trax's engine 1000 for a game (so a point is a game thrown away)."""


@dataclass
class AnalysedMatch:
    """A finished match with its stored analysis."""

    id: int
    game: str
    guild_id: int | None
    rated: bool
    options: dict[str, Any]
    players: dict[int, tuple[str, str]]
    """Seat → (player id, name)."""
    entries: list[dict[str, Any]]


def phase_of(game: str, entry: dict[str, Any], match: AnalysedMatch, last_ply: int, last_round: int) -> str:
    """The phase of a move, in the game's terms.

    Boxes: by the edges drawn before it (the first third of the board's edges is the opening, the last third
    the end, where the chains are taken). Pathing: by round (the first the opening, the deciding one the end).
    Trax, Dots and Dot Dash: by the match's moves (thirds of its length)."""
    ply = int(entry.get("ply") or 0)
    if game == "boxes":
        rows = int(match.options.get("rows", 3) or 3)
        cols = int(match.options.get("cols", rows) or rows)
        total = rows * (cols + 1) + cols * (rows + 1)
        share = (ply - 1) / max(total, 1)
    elif game == "pathing":
        rnd = int(entry.get("round") or 1)
        if rnd == 1:
            return "opening"
        return "end" if rnd >= last_round else "middle"
    else:
        share = (ply - 1) / max(last_ply, 1)
    return "opening" if share < 1 / 3 else "middle" if share < 2 / 3 else "end"


@dataclass
class Tally:
    """Counts over some moves."""

    matches: int = 0
    moves: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    lost: float = 0.0

    def add(self, entry: dict[str, Any], scale: float) -> None:
        self.moves += 1
        self.verdicts[str(entry.get("verdict"))] += 1
        self.lost += float(entry.get("loss") or 0) * scale

    def as_json(self, with_matches: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if with_matches:
            out["matches"] = self.matches
        out["moves"] = self.moves
        out["verdicts"] = {v: self.verdicts.get(v, 0) for v in VERDICTS}
        out["lost"] = round(self.lost, 3)
        return out


def insights(player_ids: Iterable[str], matches: Iterable[AnalysedMatch]) -> list[dict[str, Any]]:
    """One object per game the player has analysed matches of (sorted by game): `game`, `matches`, `moves`,
    `verdicts`, `lost`, `unit`, `phases` ({phase: counts}) and `opponents` (frequent ones, most met first)."""
    mine = set(player_ids)
    games: dict[str, Tally] = defaultdict(Tally)
    phases: dict[str, dict[str, Tally]] = defaultdict(lambda: {p: Tally() for p in PHASES})
    versus: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    names: dict[str, str] = {}
    for m in matches:
        seats = [s for s, (pid, _n) in m.players.items() if pid in mine]
        if not seats:
            continue
        scale = SCALE.get(m.game, 1.0)
        tally = games[m.game]
        tally.matches += 1
        others = [(pid, name) for s, (pid, name) in m.players.items() if s not in seats]
        opp = others[0][0] if others else None
        if opp is not None:
            names[opp] = others[0][1]
            versus[m.game][opp].matches += 1
        analysed = [e for e in m.entries if e.get("analysed")]
        last_ply = max((int(e.get("ply") or 0) for e in m.entries), default=1)
        last_round = max((int(e.get("round") or 1) for e in m.entries), default=1)
        for e in analysed:
            if e.get("seat") not in seats:
                continue
            tally.add(e, scale)
            phases[m.game][phase_of(m.game, e, m, last_ply, last_round)].add(e, scale)
            if opp is not None:
                versus[m.game][opp].add(e, scale)
    out = []
    for game in sorted(games):
        row = {"game": game, **games[game].as_json(), "unit": UNITS.get(game, "points")}
        row["phases"] = {p: phases[game][p].as_json(with_matches=False) for p in PHASES}
        frequent = sorted(
            ((pid, t) for pid, t in versus[game].items() if t.matches >= FREQUENT), key=lambda x: (-x[1].matches, x[0])
        )
        row["opponents"] = [{"opponent": names[pid], **t.as_json()} for pid, t in frequent[:MOST_OPPONENTS]]
        out.append(row)
    return out
