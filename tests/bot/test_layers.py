"""The layers of `bot/`, checked on the source: the host core and the store never word anything and never
reach up to an adapter; the store never imports the host. (Every import counts, lazy ones too.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests import ROOT

FORBIDDEN = {
    "bot/host": ("bot.wording", "discord", "bot.adapters", "bot.ops", "bot.records"),
    "bot/store": ("bot.wording", "discord", "bot.adapters", "bot.ops", "bot.records", "bot.host"),
}


def imports(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_a_layer_never_imports_what_lies_above_it(layer: str) -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted((ROOT / layer).rglob("*.py"))
        for line, name in imports(path)
        if any(name == banned or name.startswith(banned + ".") for banned in FORBIDDEN[layer])
    ]
    assert bad == []


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from bot import wording\n    import discord.ui\n", encoding="utf-8")
    names = [name for _line, name in imports(sample)]
    assert "bot.wording" in names and "discord.ui" in names
