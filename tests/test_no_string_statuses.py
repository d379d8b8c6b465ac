"""Statuses and kinds are enums: no comparison of a `status`, `kind` or `state` with a string literal in bot/."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parent.parent / "bot"
NAMES = {"status", "kind", "state"}


def _named(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id in NAMES) or (isinstance(node, ast.Attribute) and node.attr in NAMES)


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    return False


def string_comparisons(source: str) -> list[int]:
    """The lines of `source` comparing a status, kind or state with a string literal (or a collection of them)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) and _named(left) and _literal(right):
                found.append(node.lineno)
            left = right
    return found


def test_the_walk_catches_a_planted_comparison() -> None:
    planted = (
        "if ev.kind == 'move':\n    pass\n"
        "ok = status in ('finished', 'aborted')\n"
        'x = row.state != "open"\n'
        "y = kind not in ['a', 'b']\n"
        "fine = ev.kind == EventKind.MOVE or status in OVER or other == 'x'\n"
    )
    assert string_comparisons(planted) == [1, 3, 4, 5]


def test_no_string_status_or_kind_comparison_in_bot() -> None:
    offenders = []
    for path in sorted(BOT.rglob("*.py")):
        rel = path.relative_to(BOT).as_posix()
        offenders += [f"bot/{rel}:{line}" for line in string_comparisons(path.read_text(encoding="utf-8"))]
    assert offenders == []
