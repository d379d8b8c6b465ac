"""How much memory the compiled search may use, and the transposition table that fits the position.

A memory limit is a number of bytes the process's resident size may reach: a new table is sized to
what the limit leaves above the process's resident size at that moment (its code, the compiled
kernel and any tables it already keeps). Unless set (`set_limit`; `python -m games solve --memory`,
`DMHOST_SOLVER_MEMORY` for the bot), the limit is a quarter of the memory available on the machine
(or in its control group), taken when a table is made.

The table is sized to the position: about as many entries as the search is expected to visit
(estimated from the undrawn edges and the board's shape, and capped by a node budget), at least
2^12 and at most what fits. Values never depend on the table's size; only the nodes and the time do.
Nothing here imports numpy or numba.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from games.solver.board import Board

MIN_BITS = 12
"""The smallest table the compiled search gets (2^12 entries, 32 KiB)."""
MAX_BITS = 34
"""The biggest (2^34 one-word entries, 128 GiB): far beyond any board the search can finish."""
COMPACT_EDGES = 44
"""Boards with at most this many edges keep a table entry in one word, bigger ones in two (the
kernel's layout, `games.solver.kernel`)."""
RESERVE = 4 << 20
"""Bytes kept free under the limit beside the table: the search's other arrays and Python objects."""
MACHINE_SHARE = 4
"""Without a limit set, a table may take a quarter of the memory available."""
FALLBACK_AVAILABLE = 2 << 30
"""Memory assumed available where the system does not say (2 GiB)."""

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)

_limit: int | None = None


class MemoryLimitError(ValueError):
    """The memory limit leaves no room for the smallest table."""


@dataclass(frozen=True)
class TableSize:
    """A table chosen for a search: 2^bits entries of `bytes` in all, under a limit of `limit` bytes."""

    bits: int
    bytes: int
    limit: int

    @property
    def entries(self) -> int:
        """Number of entries."""
        return 1 << self.bits


def parse_size(text: str) -> int:
    """Bytes from a size like `512M`, `4G`, `1.5G`, `300K` or `1048576` (powers of 1024); ValueError
    for anything else."""
    m = _SIZE.match(text)
    if m is None:
        raise ValueError(f"a memory size looks like 512M or 4G, not {text!r}")
    n = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    if n <= 0:
        raise ValueError(f"a memory size must be above zero, not {text!r}")
    return n


def format_size(n: int) -> str:
    """`512 MiB`, `4.0 GiB`, `32 KiB`: a byte count for people."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}" if unit == "GiB" else f"{n // scale} {unit}"
    return f"{n} B"


def set_limit(limit: int | None) -> None:
    """Set the process's memory limit in bytes (None: a quarter of the memory available)."""
    global _limit
    if limit is not None and limit <= 0:
        raise ValueError("the memory limit must be above zero")
    _limit = limit


def limit() -> int:
    """The memory limit in force: the one set, else a quarter of the memory available now."""
    return _limit if _limit is not None else machine_limit()


def machine_limit() -> int:
    """A quarter of the memory available on the machine, or left in its control group if less."""
    return available() // MACHINE_SHARE


def available() -> int:
    """Bytes of memory available now (MemAvailable of /proc/meminfo, within a control group's limit)."""
    free = _meminfo_available()
    group = _cgroup_room()
    if group is not None:
        free = min(free, group) if free is not None else group
    if free is None:
        try:
            free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            free = FALLBACK_AVAILABLE
    return max(0, free)


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _read_int(path: str) -> int | None:
    try:
        text = Path(path).read_text(encoding="ascii").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _cgroup_room() -> int | None:
    """Memory left under the control group's limit (v2, else v1), None when there is no limit."""
    for limit_file, usage_file in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        cap = _read_int(limit_file)
        if cap is not None and cap < 1 << 60:
            return max(0, cap - (_read_int(usage_file) or 0))
    return None


def resident() -> int:
    """The process's resident size now, in bytes (its peak so far where /proc is missing)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def entry_bytes(b: Board) -> int:
    """Bytes per table entry on a board (one word up to 44 edges, else two)."""
    return 8 if b.n_edges <= COMPACT_EDGES else 16


def table_bytes(b: Board, bits: int) -> int:
    """Memory of a table of 2^bits entries on a board."""
    return entry_bytes(b) << bits


def expected_log2_nodes(b: Board, drawn: int = 0) -> float:
    """log2 of the nodes the full search is expected to visit from a position. Fitted to the empty
    boards of Barker & Korf's Table 1 (within a factor of about 2 from 3×3 to 4×4; boards of one row
    or column search about half as many) and to the shared test positions: what counts is the safe
    edges (undrawn, and no box of theirs has two sides drawn), each about doubling the search; an
    edge that would give a box away counts about a third as much."""
    free = b.n_edges - drawn.bit_count()
    safe = 0
    rest = b.full & ~drawn
    while rest:
        e = (rest & -rest).bit_length() - 1
        rest &= rest - 1
        if all((drawn & b.box_mask[y]).bit_count() < 2 for y in b.edge_boxes[e]):
            safe += 1
    thin = b.rows == 1 or b.cols == 1
    slope, offset = (0.77, -2.9) if thin else (0.8, -2.3)
    return slope * safe + 0.35 * (free - safe) + offset


def wanted_bits(b: Board, drawn: int = 0, node_limit: int | None = None) -> int:
    """The table size (log2 entries) a position calls for without a memory limit: half as many
    entries as expected nodes while they stay under 2^24 (a bigger table costs cache misses on
    small searches), as many beyond (a table under pressure costs far more nodes on big searches);
    never more entries than a node budget, at least 2^12."""
    est = expected_log2_nodes(b, drawn)
    bits = round(est) - 1 if est < 24 else math.ceil(est)
    if node_limit is not None:
        bits = min(bits, max(MIN_BITS, node_limit.bit_length()))
    return max(MIN_BITS, min(MAX_BITS, bits))


def fit(b: Board, bits: int, room: int, limit_bytes: int) -> TableSize:
    """The biggest table of at most 2^bits entries within `room` bytes (what the limit leaves);
    MemoryLimitError when not even 2^12 entries fit."""
    while bits >= MIN_BITS:
        size = table_bytes(b, bits)
        if size + RESERVE <= room:
            return TableSize(bits, size, limit_bytes)
        bits -= 1
    used = limit_bytes - room
    raise MemoryLimitError(
        f"a memory limit of {format_size(limit_bytes)} leaves no room for the solver's table: "
        f"the process already uses {format_size(max(0, used))} and the smallest table needs "
        f"{format_size(table_bytes(b, MIN_BITS) + RESERVE)} more"
    )


def choose(b: Board, drawn: int = 0, node_limit: int | None = None, limit_bytes: int | None = None) -> TableSize:
    """The table for a position: `wanted_bits`, shrunk to what the limit (the one in force when
    None) leaves above the process's resident size now."""
    cap = limit_bytes if limit_bytes is not None else limit()
    return fit(b, wanted_bits(b, drawn, node_limit), cap - resident(), cap)
