"""The composition root is the only place that builds a service or a store: no face (`bot/adapters/`) and no
command line (`bot/ops/`) constructs one of these classes; they receive them from `bot.compose`."""

from __future__ import annotations

import ast
from pathlib import Path

from tests import ROOT

BUILT_BY_THE_ROOT = frozenset(
    {
        # the store and the host
        "MatchStore",
        "MatchService",
        "Bus",
        "Host",
        "App",
        "Readers",
        # the stores beside the matches'
        "GuildSettingsStore",
        "CorrespondenceStore",
        "ScheduleStore",
        "LeaseTable",
        "Fencing",
        # the feature cores and the subscribers
        "Ratings",
        "TournamentService",
        "Scheduler",
        "SeriesService",
        "Rematches",
        "Confirmations",
        "LeaseKeeper",
        "JobQueue",
        "AnalysisWorker",
        "Listings",
    }
)
"""Classes built only in `bot/compose.py`."""

FACES = ("bot/adapters", "bot/ops")


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def constructions(root: Path) -> list[str]:
    """`path:line Class` of every call of a class in `BUILT_BY_THE_ROOT` under the faces' folders."""
    found: list[str] = []
    for folder in FACES:
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and _called_name(node) in BUILT_BY_THE_ROOT:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {_called_name(node)}")
    return found


def test_no_face_or_command_line_builds_a_service_or_a_store() -> None:
    assert constructions(ROOT) == []


def test_the_walk_finds_a_construction(tmp_path: Path) -> None:
    """The walk itself sees a store built by name and one built through a module attribute."""
    faces = tmp_path / "bot" / "adapters" / "face"
    faces.mkdir(parents=True)
    (tmp_path / "bot" / "ops").mkdir()
    (faces / "room.py").write_text(
        "from bot.store import matches\nfrom bot.ratings.service import Ratings\n"
        "store = matches.MatchStore('sqlite://')\nratings = Ratings(store)\nnot_a_service = len([])\n",
        encoding="utf-8",
    )
    assert constructions(tmp_path) == [
        "bot/adapters/face/room.py:3 MatchStore",
        "bot/adapters/face/room.py:4 Ratings",
    ]


def test_the_root_builds_every_class_it_names() -> None:
    """Each class of the list is constructed in `bot/compose.py` (or by a function it calls): none is stale."""
    text = (ROOT / "bot" / "compose.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    built = {_called_name(n) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    indirect = {"LeaseTable", "Fencing", "AnalysisWorker"}  # inside LeaseKeeper and start_analysis_worker
    assert BUILT_BY_THE_ROOT - indirect - {"App", "Host", "Readers", "Bus"} <= built
    assert {"App", "Host", "Readers", "Bus"} <= built
