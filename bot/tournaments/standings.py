"""Standings: points (win 1, draw ½, bye as the host set it) and tie-breaks, per format."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from bot.tournaments.pairing import elimination_progress
from bot.tournaments.rounds import Bye, Format, Game, Round

BUCHHOLZ = "buchholz"
SONNEBORN_BERGER = "sonneborn_berger"
HEAD_TO_HEAD = "head_to_head"
REACHED = "reached"


@dataclass(frozen=True)
class Standing:
    """One line of the table: `rank` is 1-based; `tiebreaks` by name (see the module's constants)."""

    rank: int
    player: int
    points: float
    tiebreaks: dict[str, float]

    def to_json(self) -> dict[str, object]:
        """`{"player", "points", "tiebreaks"}` (the contract's shape)."""
        return {"player": self.player, "points": self.points, "tiebreaks": dict(self.tiebreaks)}


def points(rounds: Sequence[Round]) -> dict[int, float]:
    """Points of every player who appears in `rounds` (unfinished games count nothing yet)."""
    out: dict[int, float] = defaultdict(float)
    for rnd in rounds:
        for p in rnd:
            if isinstance(p, Bye):
                out[p.player] += p.points
            else:
                out[p.white] += p.points(p.white)
                out[p.black] += p.points(p.black)
    return dict(out)


def _played(rounds: Sequence[Round]) -> list[Game]:
    """Finished games that were played over the board (forfeits give points but no tie-break)."""
    return [p for rnd in rounds for p in rnd if isinstance(p, Game) and p.result is not None and not p.forfeit]


def standings(players: Sequence[int], rounds: Sequence[Round], fmt: Format) -> list[Standing]:
    """The table after `rounds` for `players` (in seed order; the last resort of every tie-break).

    Swiss: points, Buchholz (sum of the opponents' points), Sonneborn–Berger (points of the opponents
    beaten plus half of those drawn), head-to-head (points among the players level on points).
    Round robin: points, head-to-head, Sonneborn–Berger, Buchholz. Elimination: the round reached
    (the champion one more than the rounds played), then points.
    """
    seed = {p: i for i, p in enumerate(players)}
    pts = points(rounds)
    score = {p: pts.get(p, 0.0) for p in players}
    if fmt is Format.ELIMINATION:
        return _elimination(players, rounds, score, seed)
    games = _played(rounds)
    buchholz: dict[int, float] = defaultdict(float)
    sb: dict[int, float] = defaultdict(float)
    for g in games:
        for me in (g.white, g.black):
            other = g.opponent(me)
            buchholz[me] += pts.get(other, 0.0)
            sb[me] += g.points(me) * pts.get(other, 0.0)
    h2h: dict[int, float] = defaultdict(float)
    for g in games:
        if score.get(g.white) == score.get(g.black):
            h2h[g.white] += g.points(g.white)
            h2h[g.black] += g.points(g.black)
    table = {p: {BUCHHOLZ: buchholz[p], SONNEBORN_BERGER: sb[p], HEAD_TO_HEAD: h2h[p]} for p in players}
    order = (
        (BUCHHOLZ, SONNEBORN_BERGER, HEAD_TO_HEAD)
        if fmt is Format.SWISS
        else (HEAD_TO_HEAD, SONNEBORN_BERGER, BUCHHOLZ)
    )
    ranked = sorted(players, key=lambda p: (-score[p], *(-table[p][k] for k in order), seed[p]))
    return [Standing(i + 1, p, score[p], table[p]) for i, p in enumerate(ranked)]


def _elimination(
    players: Sequence[int], rounds: Sequence[Round], score: dict[int, float], seed: dict[int, int]
) -> list[Standing]:
    reached = {p: 0.0 for p in players}
    for number, rnd in enumerate(rounds, start=1):
        for p in rnd:
            for who in (p.player,) if isinstance(p, Bye) else (p.white, p.black):
                reached[who] = float(number)
    if rounds:
        progress = elimination_progress(rounds[-1])
        if progress.decided and len(progress.winners) == 1:
            reached[progress.winners[0]] = float(len(rounds) + 1)
    ranked = sorted(players, key=lambda p: (-reached[p], -score[p], seed[p]))
    return [Standing(i + 1, p, score[p], {REACHED: reached[p]}) for i, p in enumerate(ranked)]
