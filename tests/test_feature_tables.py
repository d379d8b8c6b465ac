"""A feature core's tables are its own: no module of `bot/` outside `bot/tournaments` imports the tournament
tables (`bot.tournaments.tables`), none outside `bot/series` the series table (`bot.series.models`, or the
`SERIES`/`SeriesRow` names), none outside `bot/schedule` the schedule tables (`bot.schedule.models`,
`SCHEDULES`); they read through the services (`TournamentService.place_of`, `match_ids`,
`SeriesService.series_of`, `ScheduleStore.by_match`). `migrations/models.py` is not under `bot/`: it gives
Alembic every table."""

from __future__ import annotations

import ast
from pathlib import Path

from tests import ROOT

OWN_TABLES = {
    "bot/tournaments": (
        "bot.tournaments.tables",
        frozenset(
            {"tables", "GAMES", "TOURNAMENTS", "ENTRIES", "TournamentRow", "TournamentEntryRow", "TournamentGameRow"}
        ),
    ),
    "bot/series": ("bot.series.models", frozenset({"models", "SERIES", "SeriesRow"})),
    "bot/schedule": (
        "bot.schedule.models",
        frozenset({"models", "SCHEDULES", "SCHEDULE_SETTINGS", "ScheduleRow", "ScheduleSettingsRow"}),
    ),
}
"""Per feature folder: its tables' module and the names that are its tables."""


def _imports(tree: ast.AST) -> list[tuple[int, str, str | None]]:
    """(line, module, imported name or None) of every import."""
    out: list[tuple[int, str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            out += [(node.lineno, node.module, alias.name) for alias in node.names]
    return out


def trespasses(root: Path) -> list[str]:
    """`path:line module.name` of every import of a feature's tables from outside its folder."""
    found: list[str] = []
    for path in sorted((root / "bot").rglob("*.py")):
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for folder, (tables, names) in OWN_TABLES.items():
            if where.startswith(folder + "/"):
                continue
            package = folder.replace("/", ".")
            for line, module, name in _imports(tree):
                if module == tables or (module.startswith(package) and name in names):
                    found.append(f"{where}:{line} {module}{'.' + name if name else ''}")
    return found


def test_no_module_outside_a_feature_imports_its_tables() -> None:
    assert trespasses(ROOT) == []


def test_the_walk_finds_a_trespass(tmp_path: Path) -> None:
    (tmp_path / "bot" / "records").mkdir(parents=True)
    (tmp_path / "bot" / "tournaments").mkdir(parents=True)
    (tmp_path / "bot" / "records" / "page.py").write_text(
        "from bot.tournaments.tables import GAMES\nimport bot.series.models\nfrom bot.series.core import SERIES\n"
    )
    (tmp_path / "bot" / "tournaments" / "core.py").write_text("from bot.tournaments.tables import GAMES\n")
    assert trespasses(tmp_path) == [
        "bot/records/page.py:1 bot.tournaments.tables.GAMES",
        "bot/records/page.py:2 bot.series.models",
        "bot/records/page.py:3 bot.series.core.SERIES",
    ]
