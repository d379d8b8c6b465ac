"""Sentences of tournaments: refusals, pairings, standings and the winner (adapters use these)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.tournaments.rounds import Bye, Pairing
from bot.tournaments.standings import BUCHHOLZ, HEAD_TO_HEAD, REACHED, SONNEBORN_BERGER, Standing

TIEBREAK_LABELS = {BUCHHOLZ: "Bh", SONNEBORN_BERGER: "SB", HEAD_TO_HEAD: "H2H", REACHED: "round"}


def points_text(value: float) -> str:
    """`2½`, `½`, `3` (a half as ½)."""
    whole = int(value)
    return f"{whole}½" if value - whole == 0.5 and whole else ("½" if value == 0.5 else f"{value:g}")


def pairing_lines(round_number: int, pairings: Sequence[Pairing], names: Mapping[int, str]) -> list[str]:
    """`Round 2` then one line per board: `1. alice – bob` (White first), `bye: carol (1)`, results when known."""
    lines = [f"Round {round_number}"]
    for board, p in enumerate(pairings, start=1):
        if isinstance(p, Bye):
            lines.append(f"{board}. {names.get(p.player, str(p.player))}: bye ({points_text(p.points)})")
            continue
        result = f"  {p.result.value}" if p.result is not None else ""
        forfeit = " (forfeit)" if p.forfeit else ""
        lines.append(
            f"{board}. {names.get(p.white, str(p.white))} – {names.get(p.black, str(p.black))}{result}{forfeit}"
        )
    return lines


def standings_lines(table: Sequence[Standing], names: Mapping[int, str]) -> list[str]:
    """One line per player: rank, name, points and the tie-breaks."""
    out = []
    for s in table:
        breaks = ", ".join(f"{TIEBREAK_LABELS.get(k, k)} {points_text(v)}" for k, v in s.tiebreaks.items())
        out.append(f"{s.rank}. {names.get(s.player, str(s.player))} — {points_text(s.points)} ({breaks})")
    return out


def winner_line(tournament: str, winner: str, prize: str | None) -> str:
    """The announcement of the champion."""
    return f"{winner} wins {tournament}!" + (f" Prize: {prize}." if prize else "")
