"""What comes next in a tournament of any format: the round count and the next round's pairings."""

from __future__ import annotations

import math
from collections.abc import Sequence

from bot.tournaments.pairing import (
    elimination_first_round,
    elimination_next_round,
    elimination_progress,
    elimination_rounds,
    round_robin_rounds,
    swiss_round,
)
from bot.tournaments.rounds import Bye, Format, Game, Pairing, PairingError, Result, Round


def default_rounds(fmt: Format, players: int) -> int:
    """Rounds a tournament of `players` has: Swiss log2 of the field rounded up, the others fixed by the format."""
    if fmt is Format.SWISS:
        return max(1, math.ceil(math.log2(max(players, 2))))
    return fixed_rounds(fmt, players)


def fixed_rounds(fmt: Format, players: int) -> int:
    """Rounds of a round robin or an elimination (their count follows from the field)."""
    if fmt is Format.ELIMINATION:
        return elimination_rounds(players)
    per_cycle = players - 1 + players % 2
    return per_cycle * (2 if fmt is Format.DOUBLE_ROUND_ROBIN else 1)


def check_field(fmt: Format, players: int, rounds: int | None) -> int:
    """The number of rounds to play; a ValueError (a sentence) when the field or the rounds do not fit the format."""
    if players < 2:
        raise ValueError(f"a {fmt.value} tournament needs at least 2 players, not {players}")
    if rounds is None:
        return default_rounds(fmt, players)
    if fmt is not Format.SWISS:
        raise ValueError(f"--rounds is for swiss only: a {fmt.value} of {players} has {fixed_rounds(fmt, players)}")
    if not 1 <= rounds <= players - 1:
        raise ValueError(f"a swiss of {players} players has 1 to {players - 1} rounds, not {rounds}")
    return rounds


def _forfeits(pairings: Sequence[Pairing], active: set[int]) -> list[Pairing]:
    """Games against a withdrawn player are won by forfeit; games between two withdrawn players drop out."""
    out: list[Pairing] = []
    for p in pairings:
        if isinstance(p, Bye):
            if p.player in active:
                out.append(p)
            continue
        white_in, black_in = p.white in active, p.black in active
        if white_in and black_in:
            out.append(p)
        elif white_in or black_in:
            out.append(Game(p.white, p.black, Result.WHITE if white_in else Result.BLACK, forfeit=True))
    return out


def next_round(
    fmt: Format,
    seeds: Sequence[int],
    active: Sequence[int],
    history: Sequence[Round],
    total: int,
    bye_points: float = 1.0,
) -> list[Pairing] | None:
    """Pairings of round len(history)+1, or None when the tournament is over.

    `seeds` is every entrant in seed order, `active` those still playing (in seed order too). For an
    elimination the last round must be decided (see `rematches`). Raises PairingError when a Swiss
    round cannot be paired.
    """
    done = len(history)
    active_set = set(active)
    if fmt is Format.ELIMINATION:
        if not history:
            return _forfeits(elimination_first_round(seeds, bye_points), active_set)
        progress = elimination_progress(history[-1])
        if not progress.decided:
            raise PairingError(f"round {done} is not decided yet")
        if len(progress.winners) <= 1:
            return None
        return _forfeits(elimination_next_round(progress.winners, seeds), active_set)
    if done >= total:
        return None
    if fmt is Format.SWISS:
        if len(active) < 2:
            return None
        return swiss_round(active, history, bye_points)
    schedule = round_robin_rounds(seeds, 2 if fmt is Format.DOUBLE_ROUND_ROBIN else 1, bye_points)
    return _forfeits(schedule[done], active_set)


def rematches(fmt: Format, history: Sequence[Round]) -> list[Game]:
    """The rematches (colours swapped) an elimination round's drawn pairings need; nothing for other formats."""
    if fmt is not Format.ELIMINATION or not history:
        return []
    return elimination_progress(history[-1]).rematches


def round_finished(fmt: Format, round_: Round) -> bool:
    """Every game of the round has a result (and, in an elimination, every pairing a winner)."""
    if fmt is Format.ELIMINATION:
        return elimination_progress(round_).decided
    return all(isinstance(p, Bye) or p.result is not None for p in round_)
