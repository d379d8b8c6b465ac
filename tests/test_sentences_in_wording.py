"""Every sentence people read lives under `bot/wording/` (issue 46): outside it, no string literal or f-string in
`bot/` looks like a sentence. The house rules (`bot/host/rules/`) declare their own words by design.

A sentence here: a literal (an f-string's constant parts joined, each placeholder as `{}`) that starts with a
capital letter or a placeholder, has at least three words of letters, and ends with `.`, `:`, `!` or `?`.
Where the operator reads the lines (the command line `bot/ops/`, the terminal rooms `bot/adapters/terminal/`,
`dmhost doctor`'s `bot/adapters/discord/doctor.py`) they start lower-case and often end bare ("dmhost: there is no
match 7", "end of input: the match stays resumable"), so there an operator's line counts too: a literal of at least
four words of letters that says more after a `: `, `; ` or `, `, or ends with `.`, `:`, `;`, `!`, `?` or `)`. A
`printf` format (`%s`, `%(name)s`: logging's) is not one; JSON keys and event kinds are single tokens.
Not looked at:
- docstrings (they document; they may quote what people read);
- logging calls (`log.info(...)`, `logger.warning(...)`, `logging.error(...)`, `logging.getLogger(…).info(...)`):
  the operator's log, not words;
- the declaration of a command: `help=`, `description=`, `epilog=`, `usage=` (argparse's `--help`, a Discord
  command's description) stay next to the command they declare, as its name and options do;
- a developer's messages: `assert`s and the programming errors (`TypeError`, `RuntimeError`, `AssertionError`,
  `NotImplementedError`); a `ValueError` or `SystemExit` may reach people, so it is looked at;
- SQL statements.
The few literals allowed are named below, each with why."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.test_no_discord_markup import _holder

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bot"
EXEMPT = (BOT / "wording", BOT / "host" / "rules")

SENTENCE = re.compile(r"(?:[A-Z]|\{\}).*[.:!?]", re.DOTALL)
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
SQL = re.compile(r"(?:SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)\b")
OPERATOR_LINE = re.compile(r"[:;,] \S|[.:;!?)]$")
PRINTF = re.compile(r"%[(sdr]")
OPERATOR_PLACES = (BOT / "ops", BOT / "adapters" / "terminal", BOT / "adapters" / "discord" / "doctor.py")
"""Where the operator's lower-case lines are looked for too (see the module's docstring)."""
LOG_METHODS = {"debug", "info", "warning", "error", "exception", "critical", "log"}
DECLARATIONS = {"help", "description", "epilog", "usage"}
DEVELOPER_ERRORS = {"TypeError", "RuntimeError", "AssertionError", "NotImplementedError"}

FOUNDATION = "a foundation below bot.wording (the layers contract), so it words its own operator lines"
DECLARED = "the one-line `--help` of a command or option, declared next to it (as `help=` is)"
ALLOWED = {
    ("bot/opserrors.py", "check_database_url"): FOUNDATION,
    ("bot/opserrors.py", "_explain_dbapi"): FOUNDATION,
    ("bot/opserrors.py", "_explain_os"): FOUNDATION,
    ("bot/settings.py", "load_settings"): FOUNDATION,
    ("bot/settings.py", "_explain"): FOUNDATION,
    ("bot/ops/cli.py", "COMMANDS"): DECLARED + ": every subcommand's, in the table that registers it",
    ("bot/ops/coaching_cli.py", "DB_HELP"): DECLARED + ": `--db`'s, shared by the coaching commands",
    ("bot/ops/web_cli.py", "BASE_HELP"): DECLARED + ": `--base`'s, shared by the commands that print an address",
    ("bot/ops/ratings_cli.py", "add_parser"): DECLARED + ": whose page `--url` prints, given to add_url_options",
    ("bot/ops/tournament_cli.py", "add_parser"): DECLARED + ": the subcommands', given to its `command(name, help)`",
}
"""(file, the constant, function or class holding the literal) → why it may."""


def _said(node: ast.AST) -> str | None:
    """The words of a string literal, or of an f-string with each placeholder as `{}`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def looks_like_a_sentence(text: str) -> bool:
    """Whether words would read as a sentence people read (see the module's docstring)."""
    text = text.strip()
    return (
        SENTENCE.fullmatch(text) is not None
        and len(WORD.findall(text.replace("{}", " "))) >= 3
        and SQL.match(text) is None
    )


def looks_like_an_operator_line(text: str) -> bool:
    """Whether words would read as an operator's line where the operator reads them (see the module's docstring)."""
    text = text.strip()
    return (
        OPERATOR_LINE.search(text) is not None
        and len(WORD.findall(text.replace("{}", " "))) >= 4
        and PRINTF.search(text) is None
        and SQL.match(text) is None
    )


def _callee(call: ast.Call) -> tuple[str, str]:
    """(receiver, name) of a call: `log.info` → ("log", "info"), `logging.getLogger(…).info` → ("getLogger",
    "info"), `ValueError` → ("", "ValueError")."""
    func = call.func
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Call):
            return _callee(func.value)[1], func.attr
        receiver = func.value.id if isinstance(func.value, ast.Name) else getattr(func.value, "attr", "")
        return receiver, func.attr
    return "", func.id if isinstance(func, ast.Name) else ""


def _not_looked_at(tree: ast.Module) -> set[int]:
    """The literals skipped: docstrings, logging calls, declarations, developer messages (and everything below)."""
    skipped: list[ast.AST] = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            skipped += [s.value for s in body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)]
        if isinstance(node, ast.Call):
            receiver, name = _callee(node)
            if (name in LOG_METHODS and "log" in receiver.lower()) or name in DEVELOPER_ERRORS:
                skipped += node.args
            skipped += [k.value for k in node.keywords if k.arg in DECLARATIONS]
        if isinstance(node, ast.Assert) and node.msg is not None:
            skipped.append(node.msg)
        if isinstance(node, ast.JoinedStr):  # its parts are looked at as one
            skipped += node.values
    return {id(inner) for node in skipped for inner in ast.walk(node)}


def sentences(source: str, *, operator: bool = False) -> Iterator[tuple[str, int, str]]:
    """(holder, line, words) of each literal in `source` that looks like a sentence people read (`operator`: or
    like an operator's line, where the operator reads them)."""
    tree = ast.parse(source)
    skipped = _not_looked_at(tree)
    for stmt in tree.body:
        for node in ast.walk(stmt):
            said = None if id(node) in skipped else _said(node)
            if said is not None and (looks_like_a_sentence(said) or (operator and looks_like_an_operator_line(said))):
                yield _holder(stmt), getattr(node, "lineno", 0), said


def _found() -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(BOT.rglob("*.py")):
        if any(exempt in path.parents for exempt in EXEMPT):
            continue
        relative = path.relative_to(ROOT).as_posix()
        operator = any(place == path or place in path.parents for place in OPERATOR_PLACES)
        for holder, line, said in sentences(path.read_text(encoding="utf-8"), operator=operator):
            found.setdefault((relative, holder), []).append(f"{relative}:{line} ({holder}): {said[:70]!r}")
    return found


def test_no_sentence_people_read_lives_outside_bot_wording() -> None:
    found = _found()
    unexpected = [said for key, lines in found.items() if key not in ALLOWED for said in lines]
    assert not unexpected, "sentences outside bot/wording/ (move them to a module there):\n" + "\n".join(unexpected)


def test_every_allowed_sentence_is_still_there() -> None:
    assert set(ALLOWED) <= set(_found()), "an allowance no longer needed: take it out of ALLOWED"


def test_the_check_sees_sentences_and_not_what_it_leaves_alone() -> None:
    source = '''
"""A module's docstring: Such words are fine."""
import argparse
import logging

log = logging.getLogger(__name__)
DONE = "The match is over."
LABEL = "Match over"


def said(name: str, match: int) -> str:
    """A function's docstring: it may say anything."""
    log.info("Match %s ended in a draw.", match)
    logging.warning("The database is slow today.")
    assert match, "There must be a match here."
    if not name:
        raise TypeError("The name is missing here.")
    if match < 0:
        raise ValueError(f"Match {match} does not exist.")
    parser = argparse.ArgumentParser(description="Host one match in the terminal.")
    parser.add_argument("--db", help="The database to use for this.")
    query = "UPDATE matches SET status = ? WHERE id = ?"
    return f"{name} resigned the match." + "only a fragment, no capital." + query


class Card:
    title = f"Round {1}: the pairings"
'''
    found = sorted((holder, text) for holder, _line, text in sentences(source))
    assert found == [
        ("DONE", "The match is over."),
        ("said", "Match {} does not exist."),
        ("said", "{} resigned the match."),
    ]


def test_the_check_sees_operator_lines_where_the_operator_reads_them() -> None:
    source = '''
import argparse
import logging
import sys

EVENT = {"event": "eof", "kind": "standby_room", "text": "end of input: the match stays resumable"}
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
RESUME = "dmhost room --db {} --resume {}"


def said(prog: str, png: str, parent: str, game: str) -> int:
    """A function's docstring: it may say anything."""
    parser = argparse.ArgumentParser(prog="dmhost", description="host one match: in the terminal")
    parser.add_argument("--png", action="store_true", help="a folder for the pictures (made if missing)")
    logging.getLogger("dmhost").info("dmhost shard host starting: shards %s of %s", 0, 1)
    print(f"{prog}: {game}", file=sys.stderr)
    print("give a command (see dmhost --help)")
    print(f"--png {png}: {parent} is a file, so the folder cannot be made there")
    print(f"unknown game {game!r}; known: boxes, dots")
    print("SELECT id FROM matches WHERE status = 'live';")
    return len("the Discord bot, shard(s) 0 of 1")
'''
    found = sorted((holder, text) for holder, _line, text in sentences(source, operator=True))
    assert found == [
        ("EVENT", "end of input: the match stays resumable"),
        ("said", "--png {}: {} is a file, so the folder cannot be made there"),
        ("said", "give a command (see dmhost --help)"),
        ("said", "the Discord bot, shard(s) 0 of 1"),
        ("said", "unknown game {}; known: boxes, dots"),
    ]
    assert list(sentences(source)) == [], "elsewhere only the capitalised sentences count"
