"""300 seeded random Pathing games through `python -m games replay pathing`, checked by an independent referee.

The referee below is written from shared/RULES.md §1 and §7 alone (lists of squares and sets of edges, no
bitmasks, nothing imported from `games`), and predicts every field of the replay contract: status, winner,
reason, seat to move, scores, round, board, phase, moves applied and the first rejected line. The games
use both rulesets, named and explicit layouts, round limits, all notations, seat prefixes, comments,
resignations and every kind of rejected line. A few games run as real subprocesses; the rest go through
the same CLI entry point in-process to keep the test fast.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from tests import ROOT

GAMES = 300
SUBPROCESS_GAMES = 4
SEEDS = [int(os.environ["DMHOST_TEST_SEED"])] if os.environ.get("DMHOST_TEST_SEED") else [20261123]
LAYOUT_PRESETS: dict[str, str] = {
    name: entry["layout"]
    for name, entry in json.loads((ROOT / "seeds" / "pathing" / "layouts.json").read_text()).items()
}

# -- the referee ---------------------------------------------------------------------------

COLS = "ABCD"
ADJACENT = {
    frozenset((r * 4 + c, r2 * 4 + c2))
    for r in range(4)
    for c in range(4)
    for r2, c2 in ((r, c + 1), (r + 1, c))
    if r2 < 4 and c2 < 4
}
BOXES = [
    {
        frozenset((r * 4 + c, r * 4 + c + 1)),
        frozenset(((r + 1) * 4 + c, (r + 1) * 4 + c + 1)),
        frozenset((r * 4 + c, (r + 1) * 4 + c)),
        frozenset((r * 4 + c + 1, (r + 1) * 4 + c + 1)),
    }
    for r in range(3)
    for c in range(3)
]
LINES = [[r * 4 + c for c in range(4)] for r in range(4)] + [[r * 4 + c for r in range(4)] for c in range(4)]
COLOUR = {1: "R", 2: "B"}
SQUARE = re.compile(r"([a-z]+)\s*(\d+)")


class Rejected(Exception):
    def __init__(self, kind: str) -> None:
        self.kind = kind


@dataclass
class Referee:
    """Pathing by the book: cells 'R', 'B' or '.', edges as sets of two squares."""

    ruleset: str
    max_rounds: int | None
    cells: list[str]
    turn: int = 1
    phase: str = "move"
    round: int = 1
    last_swapper: int = 1
    drawn: set[frozenset[int]] = field(default_factory=set)
    boxes: dict[int, int] = field(default_factory=dict)
    finished: bool = False
    winner: int | None = None
    reason: str | None = None
    applied: int = 0
    full_board_picks: int = 0

    def has_line(self, colour: str) -> bool:
        return any(all(self.cells[i] == colour for i in line) for line in LINES)

    def judge(self, actor: int) -> int | None:
        red, blue = self.has_line("R"), self.has_line("B")
        if red and blue:
            if self.ruleset == "original":
                nr, nb = self.cells.count("R"), self.cells.count("B")
                if nr != nb:
                    return 1 if nr > nb else 2
            return actor
        return 1 if red else 2 if blue else None

    def end(self, winner: int | None, reason: str) -> None:
        self.finished, self.winner, self.reason = True, winner, reason

    def play(self, line: str) -> None:
        """One input line (already known not to be blank or a comment)."""
        seat = None
        m = re.match(r"^\s*([12])\s*:\s*(.*)$", line)
        if m:
            seat, line = int(m.group(1)), m.group(2)
        text = line.strip().lower()
        if text in ("resign", "resigns"):
            if self.finished:
                raise Rejected("finished")
            self.end(3 - (seat or self.turn), "resign")
            self.applied += 1
            return
        words = text.replace("-", " ").replace(",", " ").split()
        keyword = words.pop(0) if words and words[0] in ("swap", "pick") else None
        rest = " ".join(w for w in words if w not in ("and", "to"))
        squares = SQUARE.findall(rest)
        if (
            not squares
            or len(squares) > 2
            or SQUARE.sub("", rest).strip()
            or any(int(n) == 0 for _c, n in squares)
            or (keyword == "swap" and len(squares) != 2)
            or (keyword == "pick" and len(squares) != 1)
        ):
            raise Rejected("syntax")
        if self.finished:
            raise Rejected("finished")
        if seat is not None and seat != self.turn:
            raise Rejected("turn")
        index = []
        for col, row in squares:
            if len(col) != 1 or col.upper() not in COLS or not 1 <= int(row) <= 4:
                raise Rejected("illegal")
            index.append((int(row) - 1) * 4 + COLS.index(col.upper()))
        if len(index) == 2:
            self.swap(*index)
        else:
            self.pick(index[0])
        self.applied += 1

    def swap(self, a: int, b: int) -> None:
        edge = frozenset((a, b))
        if self.phase != "move" or edge not in ADJACENT or edge in self.drawn:
            raise Rejected("illegal")
        seat = self.turn
        self.cells[a], self.cells[b] = self.cells[b], self.cells[a]
        self.drawn.add(edge)
        self.last_swapper = seat
        gained = False
        for number, box in enumerate(BOXES):
            if number not in self.boxes and box <= self.drawn:
                self.boxes[number] = seat
                gained = True
        winner = self.judge(seat)
        if winner is not None:
            self.end(winner, "four-in-a-row")
        elif len(self.drawn) == 24:
            self.phase = "penalty"
            red = sum(1 for owner in self.boxes.values() if owner == 1)
            self.turn = 2 if red > 4 else 1
        elif not gained:
            self.turn = 3 - seat

    def pick(self, square: int) -> None:
        loser = self.turn
        winner_colour = COLOUR[3 - loser]
        if self.phase != "penalty":
            raise Rejected("illegal")
        if "." in self.cells:
            if self.cells[square] != ".":
                raise Rejected("illegal")
            self.cells[square] = winner_colour
        else:
            if self.cells[square] != COLOUR[loser]:
                raise Rejected("illegal")
            self.full_board_picks += 1
            self.cells[square] = winner_colour if self.ruleset == "dm5" else "."
        winner = self.judge(loser)
        if winner is not None:
            self.end(winner, "four-in-a-row")
        elif self.max_rounds is not None and self.round >= self.max_rounds:
            nr, nb = self.cells.count("R"), self.cells.count("B")
            self.end(None if nr == nb else 1 if nr > nb else 2, "round-limit")
        else:
            self.round += 1
            self.phase, self.turn = "move", self.last_swapper
            self.drawn.clear()
            self.boxes.clear()

    def result(self, error: dict[str, Any] | None) -> dict[str, Any]:
        board = "/".join("".join(self.cells[r * 4 : r * 4 + 4]) for r in range(4))
        return {
            "game": "pathing",
            "moves_applied": self.applied,
            "status": "finished" if self.finished else "ongoing",
            "winner": self.winner,
            "reason": self.reason,
            "to_move": None if self.finished else self.turn,
            "scores": {str(s): sum(1 for owner in self.boxes.values() if owner == s) for s in (1, 2)},
            "error": error,
            "extra": {"round": self.round, "board": board, "phase": self.phase},
        }

    def copy(self) -> Referee:
        return replace(self, cells=list(self.cells), drawn=set(self.drawn), boxes=dict(self.boxes))

    # what a random player may do
    def legal_texts(self) -> list[tuple[int, int | None]]:
        if self.phase == "move":
            return [tuple(sorted(e)) for e in ADJACENT - self.drawn]  # type: ignore[misc]
        if "." in self.cells:
            return [(i, None) for i, c in enumerate(self.cells) if c == "."]
        return [(i, None) for i, c in enumerate(self.cells) if c == COLOUR[self.turn]]


def referee_replay(opts: dict[str, str], lines: list[str]) -> tuple[dict[str, Any], Referee]:
    """The contract's result object the referee expects, and the referee itself."""
    ref = referee_for(opts)
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            ref.play(line)
        except Rejected as exc:
            return ref.result({"line": number, "kind": exc.kind}), ref
    return ref.result(None), ref


# -- random games ---------------------------------------------------------------------------


def name(square: int) -> str:
    return f"{COLS[square % 4]}{square // 4 + 1}"


def write_swap(rng: random.Random, a: int, b: int) -> str:
    first, second = (a, b) if rng.random() < 0.7 else (b, a)
    x, y = name(first), name(second)
    if rng.random() < 0.3:
        x, y = x.lower(), y.lower()
    return rng.choice([f"{x}-{y}", f"{x} {y}", f"Swap {x} and {y}", f"swap {x} {y}", f"{x} to {y}", f"{x}, {y}"])


def write_pick(rng: random.Random, square: int) -> str:
    return rng.choice([name(square), f"pick {name(square)}", f"Pick {name(square).lower()}"])


BAD_LINES = {
    "syntax": ["good luck", "swap A1", "pick A1 B1", "A0-A1", "hello A1 there"],
    "illegal": ["A1-C1", "B2-B2", "D4-E4", "pick E1", "A1-B2"],
}


DENSE_LAYOUTS = ["RBBR/BRRB/RBBR/BRB.", "RRBB/BBRR/RRBB/BBR.", "chequer"]
"""Nearly full boards: with careful play the board fills up and full-board penalty picks happen."""


def choose(rng: random.Random, ref: Referee, careful: bool) -> tuple[int, int | None]:
    """A random legal action; a careful player avoids one that makes a line when it can."""
    options = ref.legal_texts()
    rng.shuffle(options)
    if careful:
        for a, b in options:
            trial = ref.copy()
            trial.swap(a, b) if b is not None else trial.pick(a)
            if trial.reason != "four-in-a-row":
                return a, b
    return options[0]


def random_game(seed: int) -> tuple[dict[str, str], list[str]]:
    """Options and input lines of one random game (possibly unfinished, possibly ending in a rejected line)."""
    rng = random.Random(seed)
    opts: dict[str, str] = {}
    careful = rng.random() < 0.3
    if rng.random() < 0.5:
        opts["ruleset"] = rng.choice(["dm5", "original", "Original"])
    roll = rng.random()
    if careful and roll < 0.5:
        opts["layout"] = rng.choice(DENSE_LAYOUTS)
    elif roll < 0.35:
        opts["layout"] = rng.choice(["corners", "centre", "rim", "lanes", "empty", "Corners"])
    elif roll < 0.5:
        opts["layout"] = rng.choice(["R..B/..../..../B..R", "rb../..../..br/....", ".R.B/B.R./.B.R/R.B."])
    if rng.random() < 0.3:
        opts["max_rounds"] = str(rng.randint(1, 4))
    ref = referee_for(opts)
    length = rng.choice([10, 40, 120, 400, 400, 400])
    error_at = rng.randrange(length) if rng.random() < 0.3 else None
    resign_at = rng.randrange(length) if rng.random() < 0.08 else None
    lines: list[str] = []
    while len(lines) < length:
        if rng.random() < 0.02:
            lines.append(rng.choice(["", "# a comment", "   "]))
            continue
        if ref.finished:
            if rng.random() < 0.5:
                lines.append(rng.choice(["A1-B1", "pick C3", "resign", "1: A1-B1", "2: resign"]))
            break
        if len(lines) == resign_at:
            lines.append(rng.choice(["resign", "1: resign", "2: resign", "Resigns"]))
        elif len(lines) == error_at:
            kind = rng.choice(["syntax", "illegal", "turn"])
            if kind == "turn":
                a, b = choose(rng, ref, careful=False)
                text = write_swap(rng, a, b) if b is not None else write_pick(rng, a)
                lines.append(f"{3 - ref.turn}: {text}")
            else:
                lines.append(rng.choice(BAD_LINES[kind]))
            lines += ["A1-B1", "pick C3"][: rng.randint(0, 2)]  # never read: replay stops at a rejected line
            break
        else:
            a, b = choose(rng, ref, careful)
            text = write_swap(rng, a, b) if b is not None else write_pick(rng, a)
            lines.append(f"{ref.turn}: {text}" if rng.random() < 0.1 else text)
        ref.play(lines[-1])
    return opts, lines


def referee_for(opts: dict[str, str]) -> Referee:
    layout = opts.get("layout", "..../..../..../....")
    layout = LAYOUT_PRESETS.get(layout.lower(), layout).upper()
    max_rounds = int(opts["max_rounds"]) if "max_rounds" in opts else None
    return Referee(opts.get("ruleset", "dm5").lower(), max_rounds, list(layout.replace("/", "")))


# -- the command line ----------------------------------------------------------------------------


def cli_args(opts: dict[str, str], several_per_opt: bool) -> list[str]:
    pairs = [f"{k}={v}" for k, v in opts.items()]
    if several_per_opt:
        return ["replay", "pathing", *(["--opt", *pairs] if pairs else []), "-"]
    return ["replay", "pathing", *[x for pair in pairs for x in ("--opt", pair)]]


def replay_subprocess(opts: dict[str, str], lines: list[str], several: bool) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "games", *cli_args(opts, several)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc.returncode, json.loads(proc.stdout)


def replay_in_process(opts: dict[str, str], lines: list[str], several: bool) -> tuple[int, dict[str, Any]]:
    from games.cli import main

    out = io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO("\n".join(lines) + "\n")
    try:
        with contextlib.redirect_stdout(out):
            code = main(cli_args(opts, several))
    finally:
        sys.stdin = old_stdin
    return code, json.loads(out.getvalue())


def compare(label: str, opts: dict[str, str], lines: list[str], code: int, actual: dict[str, Any]) -> Referee:
    """Assert the CLI's answer is the referee's; returns the referee."""
    expected, ref = referee_replay(opts, lines)
    where = f"{label}, options {opts}, {len(lines)} lines"
    if actual.get("error") is not None:
        assert actual["error"].pop("message"), where
    assert actual == expected, f"{where}\nCLI:     {actual}\nreferee: {expected}\nlines: {lines}"
    assert code == (3 if expected["error"] else 0), where
    return ref


def test_cli_agrees_with_an_independent_referee_on_300_games() -> None:
    seen: dict[str, int] = {}
    for master in SEEDS:
        rng = random.Random(master)
        seeds = [rng.randrange(2**32) for _ in range(GAMES)]
        for i, seed in enumerate(seeds):
            opts, lines = random_game(seed)
            run = replay_subprocess if i < SUBPROCESS_GAMES else replay_in_process
            code, actual = run(opts, lines, several=i % 2 == 0)
            label = f"DMHOST_TEST_SEED={master} (game {i}, seed {seed})"
            ref = compare(label, opts, lines, code, actual)
            tag = actual["reason"] or actual["status"]
            if actual["error"]:
                tag = f"error-{actual['error']['kind']}"
            seen[tag] = seen.get(tag, 0) + 1
            if actual["reason"] == "round-limit" and actual["winner"] is None:
                seen["draw"] = seen.get("draw", 0) + 1
            if ref.full_board_picks:
                seen["full-board-pick"] = seen.get("full-board-pick", 0) + 1
    # The sample must reach every ending and every kind of rejected line, or it proves little.
    wanted = {"four-in-a-row", "round-limit", "resign", "ongoing", "draw", "full-board-pick"}
    wanted |= {f"error-{k}" for k in ("syntax", "illegal", "turn", "finished")}
    assert wanted <= set(seen), seen
