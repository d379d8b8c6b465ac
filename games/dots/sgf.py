"""SGF records of Dots (FF[4], GM[40]): import to replay lines, export from a move list.

Points are two letters, column then row: `a`…`z` are 0…25 and `A`…`Z` are 26…51. `SZ[39:32]` is
width 39, height 32 (`SZ[n]` a square field). `AB`/`AW` are set-up dots, `B`/`W` moves; a move
value may carry an enclosure after a dot (`W[sm.rlqmrnsmrl]`, zagram.org) — ignored, capture is
automatic. An empty move `B[]` is that player's stop; an empty move after it ends the game.
Several values in one move property (`W[qh][qi]`) are several dots of that colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from games.base import AnyRuleset, MoveError, play_text


class _Start(Protocol):
    """What the export reads of Dots' options (`games.dots.DotsOptions`; typed here, not imported, so that
    this module and the package it serves import each other in one direction only)."""

    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def start(self) -> str: ...
    @property
    def seed(self) -> int: ...


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


class SgfError(ValueError):
    """The text is not a Dots SGF record this importer understands."""


Node = list[tuple[str, list[str]]]


def parse_nodes(text: str) -> list[Node]:
    """The main line of an SGF game tree: its nodes, each a list of (property, values)."""
    nodes: list[Node] = []
    i, n = 0, len(text)
    depth = 0
    skip_from: int | None = None  # depth of a side variation being skipped
    seen_main: dict[int, bool] = {}
    while i < n:
        ch = text[i]
        if ch == "(":
            depth += 1
            if skip_from is None and seen_main.get(depth - 1, False) and depth > 1:
                skip_from = depth
            i += 1
        elif ch == ")":
            if skip_from == depth:
                skip_from = None
            seen_main[depth] = False
            if depth >= 1:
                seen_main[depth - 1] = True
            depth -= 1
            i += 1
        elif ch == ";":
            if skip_from is None:
                nodes.append([])
            i += 1
        elif ch.isalpha():
            j = i
            while j < n and text[j].isalpha():
                j += 1
            ident = text[i:j]
            values: list[str] = []
            while True:
                while j < n and text[j].isspace():
                    j += 1
                if j >= n or text[j] != "[":
                    break
                j += 1
                buf = []
                while j < n and text[j] != "]":
                    if text[j] == "\\" and j + 1 < n:
                        j += 1
                    buf.append(text[j])
                    j += 1
                if j >= n:
                    raise SgfError(f"property {ident} has an unclosed value")
                values.append("".join(buf))
                j += 1
            if not values:
                raise SgfError(f"property {ident} has no value")
            if skip_from is None:
                if not nodes:
                    raise SgfError("property before the first node")
                nodes[-1].append((ident, values))
            i = j
        else:
            i += 1
    if not nodes:
        raise SgfError("no SGF game tree found")
    return nodes


def _point(value: str, width: int, height: int) -> tuple[int, int]:
    """'sf' → (18, 5); the enclosure after a '.' is dropped."""
    core = value.split(".", 1)[0].strip()
    if len(core) != 2 or core[0] not in _LETTERS or core[1] not in _LETTERS:
        raise SgfError(f"{value!r} is not an SGF point")
    x, y = _LETTERS.index(core[0]), _LETTERS.index(core[1])
    if x >= width or y >= height:
        raise SgfError(f"{value!r} is outside the {width}x{height} field")
    return x, y


def import_sgf(text: str) -> tuple[dict[str, Any], list[str]]:
    """(replay options, seat-prefixed lines); set-up dots come first, seat 1 and 2 alternating."""
    from games.coords import point_name

    nodes = parse_nodes(text)
    props: dict[str, list[str]] = {}
    for ident, values in nodes[0]:
        props.setdefault(ident, []).extend(values)
    if "GM" in props and props["GM"][0].strip() != "40":
        raise SgfError(f"GM[{props['GM'][0]}] is not a Dots record (GM[40])")
    size = props.get("SZ", ["39:32"])[0].strip()
    try:
        if ":" in size:
            width, height = (int(p) for p in size.split(":", 1))
        else:
            width = height = int(size)
    except ValueError:
        raise SgfError(f"SZ[{size}] is not a field size") from None
    setup: dict[int, list[str]] = {1: [], 2: []}
    lines: list[str] = []
    stopped = False
    for node in nodes:
        for ident, values in node:
            seat = {"B": 1, "W": 2, "AB": 1, "AW": 2}.get(ident)
            if seat is None:
                continue
            if ident in ("AB", "AW"):
                for v in values:
                    setup[seat].append(point_name(*_point(v, width, height)))
                continue
            for v in values:
                if v.strip() == "":
                    lines.append(f"{seat}: {'end' if stopped else 'stop'}")
                    stopped = True
                else:
                    lines.append(f"{seat}: {point_name(*_point(v, width, height))}")
    head: list[str] = []
    ones, twos = setup[1], setup[2]
    for k in range(max(len(ones), len(twos))):
        if k < len(ones):
            head.append(f"1: {ones[k]}")
        if k < len(twos):
            head.append(f"2: {twos[k]}")
    options = {"width": width, "height": height, "start": "empty", "free_order": True}
    return options, head + lines


def _sgf_point(x: int, y: int) -> str:
    return _LETTERS[x] + _LETTERS[y]


def export_sgf(ruleset: AnyRuleset, options: _Start, moves: Sequence[tuple[int, int]]) -> str:
    """The record of a game played from `options`' start; the moves are checked by replaying."""
    from games.dots.field import END, STOP
    from games.dots.start import start_dots

    w, h = options.width, options.height
    size = str(w) if w == h else f"{w}:{h}"
    root = f"FF[4]GM[40]CA[UTF-8]AP[dmhost]SZ[{size}]"
    dots = start_dots(options.start, w, h, options.seed)
    for seat, prop in ((1, "AB"), (2, "AW")):
        pts = [_sgf_point(x, y) for s, x, y in dots if s == seat]
        if pts:
            root += prop + "".join(f"[{p}]" for p in pts)
    state = ruleset.new_game(options)
    body: list[str] = []
    for seat, code in moves:
        text = ruleset.format(state, (seat, code))
        try:
            state, _, _ = play_text(ruleset, state, text, seat)
        except MoveError as exc:
            raise ValueError(f"move {len(body) + 1} cannot be exported: {exc}") from None
        colour = "B" if seat == 1 else "W"
        value = "" if code in (STOP, END) else _sgf_point(*state.geo.xy(code))
        body.append(f";{colour}[{value}]")
    out = ruleset.outcome(state)
    if out is not None:
        s = out.scores
        result = "0" if out.winner is None else f"{'B' if out.winner == 1 else 'W'}+{abs(s[1] - s[2])}"
        root += f"RE[{result}]"
    return "(;" + root + "".join(body) + ")"
