"""Modules stay small enough to read: none of `bot/` or `games/` is over `MOST_LINES` lines, except the rule
engines at the top of `games/` (one game each: its notation, rules and state in one place). A module that grows
past it is split along its seams (`bot/ops/room_cli.py` out of `cli.py`, `bot/store/listing.py` out of
`matches.py`), never given an exemption here. No class of `bot/` is over the same count with the classes of `bot/` it
inherits: a service is a façade over collaborators given their dependencies, never a chain of mixins."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

from tests import ROOT

MOST_LINES = 600


def oversized(root: Path, *, exempt: Path | None = None) -> dict[str, int]:
    """Every Python module under `root` over MOST_LINES lines (its path from `root`'s parent → its lines),
    except the modules directly in `exempt`."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        if exempt is not None and path.parent == exempt:
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MOST_LINES:
            found[str(path.relative_to(root.parent))] = lines
    return found


def test_no_module_of_bot_is_over_the_limit() -> None:
    assert oversized(ROOT / "bot") == {}


def test_no_module_of_games_is_over_the_limit_but_the_rule_engines() -> None:
    assert oversized(ROOT / "games", exempt=ROOT / "games") == {}


def test_a_module_over_the_limit_is_named_with_its_lines(tmp_path: Path) -> None:
    package = tmp_path / "bot"
    (package / "feature").mkdir(parents=True)
    (package / "feature" / "big.py").write_text("x = 1\n" * (MOST_LINES + 1), encoding="utf-8")
    (package / "feature" / "fits.py").write_text("x = 1\n" * MOST_LINES, encoding="utf-8")
    (package / "engine.py").write_text("x = 1\n" * (MOST_LINES + 5), encoding="utf-8")
    assert oversized(package) == {"bot/feature/big.py": MOST_LINES + 1, "bot/engine.py": MOST_LINES + 5}
    assert oversized(package, exempt=package) == {"bot/feature/big.py": MOST_LINES + 1}


def class_lines(cls: type) -> int:
    """A class's lines counting every base class of `bot/` it inherits (the lines one reads to know it)."""
    return sum(
        len(inspect.getsourcelines(klass)[0]) for klass in cls.__mro__ if klass.__module__.split(".")[0] == "bot"
    )


def bot_classes() -> dict[str, type]:
    """Every class defined in a module of `bot/` (imported), by its dotted name."""
    found = {}
    for info in pkgutil.walk_packages([str(ROOT / "bot")], prefix="bot."):
        if info.name.endswith(".__main__"):
            continue  # a program, not a module to import
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == info.name:
                found[f"{info.name}.{name}"] = value
    return found


def test_no_class_of_bot_is_over_the_limit_counting_its_bases() -> None:
    classes = bot_classes()
    assert "bot.host.service.MatchService" in classes and "bot.tournaments.service.TournamentService" in classes
    over = {name: lines for name, cls in classes.items() if (lines := class_lines(cls)) > MOST_LINES}
    assert over == {}


def test_a_class_counts_the_lines_of_its_bot_bases() -> None:
    from bot.host.core import NotHosted
    from bot.host.match import Unsaved

    assert NotHosted.__mro__[1] is Unsaved
    assert class_lines(NotHosted) == len(inspect.getsourcelines(NotHosted)[0]) + class_lines(Unsaved)

    class Sub(NotHosted):  # not of bot/: its own lines are not counted, its bases' are
        pass

    assert class_lines(Sub) == class_lines(NotHosted)
