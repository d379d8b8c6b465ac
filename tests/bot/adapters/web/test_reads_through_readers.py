"""The web face reads only through the readers the composition root hands it (`bot.compose.Readers`: the store's
API, the lists of `bot.records.listing`, the ratings, the tournaments): none of its modules imports SQLAlchemy or
touches a database engine."""

from __future__ import annotations

import ast
from pathlib import Path

from tests import ROOT


def direct_reads(folder: Path) -> list[str]:
    """`path:line what` of every SQLAlchemy import and every `.engine` under `folder`."""
    found: list[str] = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            elif isinstance(node, ast.Attribute) and node.attr == "engine":
                found.append(f"{path.relative_to(folder)}:{node.lineno} .engine")
                continue
            else:
                continue
            found += [
                f"{path.relative_to(folder)}:{node.lineno} {m}" for m in modules if m.split(".")[0] == "sqlalchemy"
            ]
    return found


def test_the_web_face_imports_no_sqlalchemy_and_touches_no_engine() -> None:
    assert direct_reads(ROOT / "bot" / "adapters" / "web") == []


def test_the_walk_finds_an_import_and_an_engine(tmp_path: Path) -> None:
    (tmp_path / "views.py").write_text(
        "import sqlalchemy.sql\nfrom sqlalchemy import select\nfrom bot.store import engine_of\n"
        "async def f(store):\n    async with store.engine.connect() as c:\n        return c\n",
        encoding="utf-8",
    )
    assert direct_reads(tmp_path) == ["views.py:1 sqlalchemy.sql", "views.py:2 sqlalchemy", "views.py:5 .engine"]
