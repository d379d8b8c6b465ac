"""What the engines' commands share (`games.cli`, `games.opponents.cli`, `dmhost`): exit codes, usage
errors, KEY=VALUE pairs, reading move text, and replaying it into the contract's result object."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from games import registry
from games.base import AnyRuleset, GameFinishedError, MoveError, Termination, play_text

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_REJECTED = 3

_SEAT_PREFIX = re.compile(r"^\s*([12])\s*:\s*(.*)$", re.DOTALL)
_RESIGN = re.compile(r"^\s*resigns?\s*$", re.IGNORECASE)


class UsageError(Exception):
    """Bad command line: exit 2."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (where to read the usage), exit 2;
    its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def parse_kv(pairs: Iterable[str], what: str) -> dict[str, str]:
    """['rows=3', 'cols=4'] → {'rows': '3', 'cols': '4'}."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{what} must look like KEY=VALUE, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def spread_values(argv: Sequence[str], flag: str) -> list[str]:
    """`--opt rows=2 cols=2` (several KEY=VALUE words, or one quoted "rows=2 cols=2", after one flag) as
    `--opt rows=2 --opt cols=2`, so that a parser taking one value per flag reads both forms alike. A word
    without `=` ends the list (it is the next argument); a flag with no KEY=VALUE after it stays as it is."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word != flag:
            out.append(word)
            continue
        values: list[str] = []
        while i < len(argv) and "=" in argv[i] and not argv[i].startswith("-"):
            values.extend(argv[i].split())
            i += 1
        if not values:
            out.append(word)
        for value in values:
            out += [flag, value]
    return out


def replay_lines(ruleset: AnyRuleset, options: Any, lines: Sequence[str]) -> tuple[dict[str, Any], Any]:
    """Replay move lines; returns the contract's result object and the final state."""
    state = ruleset.new_game(options)
    applied = 0
    error: dict[str, Any] | None = None
    resigned: tuple[int, Termination] | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        seat: int | None = None
        m = _SEAT_PREFIX.match(line)
        if m:
            seat, line = int(m.group(1)), m.group(2)
        try:
            is_resign = bool(_RESIGN.match(line))
            if resigned is not None or (is_resign and ruleset.to_move(state) is None):
                if not is_resign:
                    ruleset.parse_syntax(line)  # syntax errors come first, as for any move
                raise_finished(line)
            if is_resign:
                who = ruleset.to_move(state) if seat is None else seat
                assert who is not None
                resigned = (3 - who, Termination.RESIGN)
                applied += 1
                continue
            state, _move, _events = play_text(ruleset, state, line, seat)
            applied += 1
        except MoveError as exc:
            error = {"line": number, "kind": exc.kind, "message": str(exc)}
            break
    result = summarise(ruleset, state, applied, error, resigned)
    return result, state


def raise_finished(text: str) -> None:
    """Refuse a line after the game ended."""
    raise GameFinishedError(text, "the game is already over")


def summarise(
    ruleset: AnyRuleset,
    state: Any,
    applied: int,
    error: dict[str, Any] | None,
    resigned: tuple[int, Termination] | None = None,
) -> dict[str, Any]:
    """The contract's JSON object for a state."""
    outcome = ruleset.outcome(state)
    scores = ruleset.scores(state)
    winner: int | None
    reason: str | None
    if resigned is not None:
        finished, winner, reason = True, resigned[0], resigned[1].value
    elif outcome is not None:
        finished, winner, reason = True, outcome.winner, outcome.termination.value
    else:
        finished, winner, reason = False, None, None
    return {
        "game": ruleset.id,
        "moves_applied": applied,
        "status": "finished" if finished else "ongoing",
        "winner": winner,
        "reason": reason,
        "to_move": None if finished else ruleset.to_move(state),
        "scores": {str(k): v for k, v in sorted(scores.items())},
        "error": error,
        "extra": ruleset.extra(state),
    }


def read_input(path: str | None) -> list[str]:
    """Lines of FILE, or stdin for '-' or nothing."""
    if path in (None, "-"):
        return sys.stdin.read().splitlines()
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def load_game(game_id: str) -> AnyRuleset:
    """Ruleset or a usage error."""
    try:
        return registry.get(game_id)
    except registry.UnknownGameError as exc:
        raise UsageError(str(exc.args[0])) from None
