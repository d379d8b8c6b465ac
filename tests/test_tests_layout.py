"""The suite mirrors the code (tests/README.md): every folder of tests/bot and tests/games is named after a package
(or a module) of bot/ or games/, and every module the fast loop leaves out (`SLOW_MODULES`) is still there."""

from __future__ import annotations

from tests import ROOT, TESTS
from tests.conftest import SLOW_MODULES


def test_every_test_folder_mirrors_a_package() -> None:
    strays = []
    for top in ("bot", "games"):
        for folder in (TESTS / top).rglob("*"):
            if not folder.is_dir() or folder.name == "__pycache__":
                continue
            code = ROOT / top / folder.relative_to(TESTS / top)
            if not code.is_dir() and not code.with_suffix(".py").is_file():  # a package, or a module's tests
                strays.append(str(folder.relative_to(ROOT)))
    assert strays == []


def test_every_slow_module_exists() -> None:
    assert SLOW_MODULES
    assert sorted(m for m in SLOW_MODULES if not (ROOT / m).is_file()) == []
