"""The pure vocabulary of a tournament: formats, games, byes and rounds (no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class Format(StrEnum):
    """How players are paired."""

    SWISS = "swiss"
    ROUND_ROBIN = "roundrobin"
    DOUBLE_ROUND_ROBIN = "double-roundrobin"
    ELIMINATION = "elimination"


class Result(StrEnum):
    """A finished game, from White's side."""

    WHITE = "1-0"
    BLACK = "0-1"
    DRAW = "1/2-1/2"


@dataclass(frozen=True)
class Game:
    """One pairing of a round; `result` is None while it is being played; `forfeit` when not played."""

    white: int
    black: int
    result: Result | None = None
    forfeit: bool = False

    def points(self, player: int) -> float:
        """Points `player` earned from this game (0 while unfinished)."""
        if self.result is None:
            return 0.0
        if self.result is Result.DRAW:
            return 0.5
        winner = self.white if self.result is Result.WHITE else self.black
        return 1.0 if player == winner else 0.0

    def opponent(self, player: int) -> int:
        """The other player of this game."""
        return self.black if player == self.white else self.white

    @property
    def winner(self) -> int | None:
        """The winner, or None for a draw or an unfinished game."""
        if self.result is Result.WHITE:
            return self.white
        if self.result is Result.BLACK:
            return self.black
        return None


@dataclass(frozen=True)
class Bye:
    """A player who sits a round out, scoring `points` (1 by default; ½ when the host says so)."""

    player: int
    points: float = 1.0


Pairing = Game | Bye
Round = Sequence[Pairing]


def players_of(pairing: Pairing) -> tuple[int, ...]:
    """The one or two players of a pairing."""
    return (pairing.player,) if isinstance(pairing, Bye) else (pairing.white, pairing.black)


def to_json(pairing: Pairing) -> dict[str, int]:
    """`{"white": I, "black": J}` or `{"bye": I}` (the contract's shape)."""
    if isinstance(pairing, Bye):
        return {"bye": pairing.player}
    return {"white": pairing.white, "black": pairing.black}


class PairingError(ValueError):
    """No pairing satisfies the format's hard rules (e.g. every remaining opponent was already met)."""
