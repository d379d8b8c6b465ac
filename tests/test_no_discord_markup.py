"""Discord's markup is the Discord adapter's business: no string literal in `bot/` outside `bot/adapters/discord/`
carries it (`**`, `~~`, `<t:`, `<@`, `<#`, the zero-width space that breaks a mention). Words are runs
(`bot/text.py`) that each face renders; docstrings may quote the markup. The few literals allowed are named
below, each with why."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bot"
DISCORD = BOT / "adapters" / "discord"

MARKUP = re.compile(r"\*\*|~~|<t:|<@|<#|\u200b")
"""Discord's own marks: strong, strike-through, a timestamp, a user, role or channel mention, a mention broken."""

ALLOWED = {
    (
        "bot/schedule/when.py",
        "DISCORD_TIMESTAMP",
    ): "input: a pasted Discord timestamp (the command line takes it too)",
    ("bot/host/rules/cards.py", "_CARD_MARKS"): "CommonMark of the rule cards, which are Markdown documents (seeds/)",
}
"""(file, the constant or function holding the literal) → why it may."""


def _docstrings(tree: ast.Module) -> set[int]:
    """The string statements that document: a module's, class's or function's first, and one right after an
    assignment (an attribute's docstring)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for i, stmt in enumerate(body):
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                continue
            if not isinstance(stmt.value.value, str):
                continue
            first = i == 0 and isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            if first or (i > 0 and isinstance(body[i - 1], ast.Assign | ast.AnnAssign)):
                out.add(id(stmt.value))
    return out


def _holder(stmt: ast.stmt) -> str:
    """The name a top-level statement (or a class's) defines: a function, a class, an assigned constant."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return stmt.name
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    return names[0] if names else ""


def marked_literals(source: str) -> Iterator[tuple[str, int, str]]:
    """(holder, line, literal) of each non-docstring string literal in `source` with Discord markup."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    for stmt in tree.body:
        stmts = [stmt]
        if isinstance(stmt, ast.ClassDef):  # a class's constants are named on their own
            stmts = [s for s in stmt.body if isinstance(s, ast.Assign | ast.AnnAssign)] or [stmt]
            stmts += [s for s in stmt.body if not isinstance(s, ast.Assign | ast.AnnAssign)]
        for part in stmts:
            for node in ast.walk(part):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                    if MARKUP.search(node.value):
                        yield _holder(part) or _holder(stmt), node.lineno, node.value


def _found() -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(BOT.rglob("*.py")):
        if DISCORD in path.parents:
            continue
        relative = path.relative_to(ROOT).as_posix()
        for holder, line, literal in marked_literals(path.read_text(encoding="utf-8")):
            found.setdefault((relative, holder), []).append(f"{relative}:{line} ({holder}): {literal[:60]!r}")
    return found


def test_no_string_literal_outside_the_discord_adapter_carries_discord_markup() -> None:
    found = _found()
    unexpected = [said for key, lines in found.items() if key not in ALLOWED for said in lines]
    assert not unexpected, "Discord markup outside bot/adapters/discord/ (make the words runs):\n" + "\n".join(
        unexpected
    )


def test_every_allowed_literal_is_still_there() -> None:
    assert set(ALLOWED) <= set(_found()), "an allowance no longer needed: take it out of ALLOWED"


def test_the_check_sees_markup_in_code_and_not_in_docstrings() -> None:
    source = '''
"""A module's docstring may say **this**."""
TITLE = "**Results**"
"""An attribute's docstring may say <t:1:R>."""


def said(name: str) -> str:
    """A function's docstring too: <@1>."""
    return f"{name} ~~struck~~ <#5>"


class Rule:
    card = "**In grace.** `ready`"
    quiet = "no marks here, `code` is fine"
'''
    found = sorted((holder, literal) for holder, _line, literal in marked_literals(source))
    assert found == [("TITLE", "**Results**"), ("card", "**In grace.** `ready`"), ("said", " ~~struck~~ <#5>")]
