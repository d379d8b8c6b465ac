"""Switches for each search technique, so that its contribution can be measured (Barker & Korf, Table 1)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class SolveOptions:
    """Which techniques the exact search uses; every combination gives the same values."""

    chains: bool = True
    """Treat capturable boxes as one compound move: take them all, or all but a hard-hearted handout."""
    center_order: bool = True
    """Try edges from the centre outwards (third edges of a box always last); else left-right."""
    corners: bool = True
    """Two border strings of the same box are interchangeable (the corner rule; on 1×n boards every box)."""
    symmetry: bool = True
    """Store positions under a canonical reflection/rotation (4 symmetries, 8 on square boards)."""
    two_bounds: bool = True
    """Table entries keep a lower and an upper bound; else one bound and a flag."""
    impartial_tt: bool = True
    """Table entries serve either player to move; else they only match the same player to move."""
    tt_move: bool = True
    """The table also keeps each position's best move, which is searched first next time (compiled kernel)."""
    null_window: bool = True
    """Null-window searches: MTD(f) from 0 for a whole-range value, and a null window for every move
    after the first (principal variation search, compiled kernel)."""
    tt_buckets: bool = True
    """Four table entries per bucket (one cache line), a new entry replacing the one with the smallest
    subtree (most edges drawn); else one entry, always replaced (compiled kernel, boards of at most
    44 edges)."""

    def without(self, name: str) -> SolveOptions:
        """A copy with one technique switched off."""
        return replace(self, **{name: False})

    @classmethod
    def names(cls) -> list[str]:
        """The switch names, in declaration order."""
        return [f.name for f in fields(cls)]

    def flags(self) -> int:
        """The switches packed into an int (bit i = i-th switch), for the compiled kernel."""
        return sum(1 << i for i, f in enumerate(fields(self)) if getattr(self, f.name))


FULL = SolveOptions()
