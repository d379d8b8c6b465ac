"""Modules stay small enough to read: none of `bot/` or `games/` is over `MOST_LINES` lines, except the rule
engines at the top of `games/` (one game each: its notation, rules and state in one place). A module that grows
past it is split along its seams (`bot/ops/room_cli.py` out of `cli.py`, `bot/store/listing.py` out of
`matches.py`), never given an exemption here."""

from __future__ import annotations

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
