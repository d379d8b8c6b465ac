"""No module outside `bot/host/rules/` imports a named rule (a module of the package that declares a
`HouseRule`), typing imports included: everything else asks the registry (`bot.host.rules`), so a rule is
one module. The issue measured 7 such places before (the take-back rule in `host/match.py`, the
correspondence notices in `host/effects.py`, the practice opponent's `advantage` and `mulligan`, ...)."""

from __future__ import annotations

import grimp

from bot.host import rules

SHARED = {"bot.host.rules", "bot.host.rules.base", "bot.host.rules.cards"}
"""The registry, the seam every rule is written against, and the cards made from the registry."""


def named_rule_imports() -> list[str]:
    graph = grimp.build_graph("bot", "games", exclude_type_checking_imports=False, cache_dir=None)
    named = {rule.__module__ for rule in rules.REGISTRY}
    assert named and not named & SHARED
    return sorted(
        f"{importer} -> {module}"
        for module in named
        for importer in graph.find_modules_that_directly_import(module)
        if not importer.startswith("bot.host.rules")
    )


def test_no_module_outside_the_rules_imports_a_named_rule() -> None:
    assert named_rule_imports() == []
