"""games/ stays pure: no discord, sqlalchemy or asyncio anywhere in it."""

from __future__ import annotations

import ast

from tests import ROOT

FORBIDDEN = {"discord", "sqlalchemy", "asyncio", "aiosqlite", "asyncpg", "alembic", "bot"}
GAMES = ROOT / "games"


def test_games_imports_nothing_impure() -> None:
    offenders = []
    files = list(GAMES.rglob("*.py"))
    assert files
    for path in files:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in FORBIDDEN:
                    offenders.append(f"{path.relative_to(GAMES.parent)}: {name}")
    assert offenders == []
