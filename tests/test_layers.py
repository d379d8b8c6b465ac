"""The architecture holds: the import-linter contracts in pyproject.toml (games never import bot, the
host core never imports discord or the adapters, the store never imports the layers above it, ...)
and no import cycles in `games` or `bot`."""

from __future__ import annotations

import logging
from pathlib import Path

import grimp
import pytest
from importlinter.cli import EXIT_STATUS_SUCCESS, lint_imports

from tests import ROOT


def test_the_layering_contracts_hold() -> None:
    # The report (each contract KEPT or BROKEN, with the offending import chains) is printed on stdout,
    # which pytest shows when this fails.
    # import-linter configures logging with `dictConfig`, which disables every logger that exists already
    # (`dmhost.web`, ...): a later test in this worker would then hear nothing. Their state is put back.
    loggers = [x for x in logging.root.manager.loggerDict.values() if isinstance(x, logging.Logger)]
    disabled = {x.name: x.disabled for x in loggers}
    try:
        status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    finally:
        for x in loggers:
            x.disabled = disabled[x.name]
    assert status == EXIT_STATUS_SUCCESS
    assert not any(x.disabled for x in loggers if x.name.startswith("dmhost"))


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def import_graph(*packages: str) -> grimp.ImportGraph:
    """The imports of `packages`. Every import counts: inside functions (they run too) and those only for type
    checkers (`TYPE_CHECKING`: a circle a type checker walks is a circle a reader walks)."""
    return grimp.build_graph(*packages, exclude_type_checking_imports=False, cache_dir=None)


def test_games_and_bot_have_no_import_cycles() -> None:
    assert _cycles(import_graph("games", "bot")) == []


def test_a_circle_closed_by_a_typing_import_is_a_circle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "circled"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "room.py").write_text("from circled.service import Service\n", encoding="utf-8")
    (package / "service.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from circled.room import Room\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _cycles(import_graph("circled")) == [["circled.room", "circled.service"]]


DISCORD = "bot.adapters.discord."
SHARED_DISCORD = {"errors"}
"""Packages of `adapters/discord/` every feature may use besides the modules at its top (`_parts`, `_shared`,
`_pictures`, `app`, ...): the error reporting."""


def _discord_features(graph: grimp.ImportGraph) -> set[str]:
    """The folders of the Discord adapter: one per feature (`announce`, `commands`, `overview`, ...)."""
    inside = [m[len(DISCORD) :] for m in graph.modules if m.startswith(DISCORD)]
    return {name.partition(".")[0] for name in inside if "." in name}


def _feature_of(module: str, features: set[str]) -> str | None:
    head = module[len(DISCORD) :].partition(".")[0] if module.startswith(DISCORD) else None
    return head if head in features else None


def test_discord_features_reach_each_other_only_through_parts() -> None:
    # A feature imports no other feature's modules (typing imports included): it asks `parts(bot).<field>`.
    graph = import_graph("bot")
    features = _discord_features(graph)
    crossing = sorted(
        f"{importer} -> {imported}"
        for importer in graph.modules
        if (mine := _feature_of(importer, features)) is not None
        for imported in graph.find_modules_directly_imported_by(importer)
        if (theirs := _feature_of(imported, features)) not in (None, mine) and theirs not in SHARED_DISCORD
    )
    assert {"announce", "commands", "overview", "room"} <= features and crossing == []


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for a, b in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")):
        graph.add_import(importer=a, imported=b)
    assert _cycles(graph) == [["p.a", "p.b", "p.c"]]
