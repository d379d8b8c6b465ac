"""The composition root is the only place that builds a service or a store: no face (`bot/adapters/`) and no
command line (`bot/ops/`) constructs one of these classes; they receive them from `bot.compose`. And a face
calls none of the root's builders (`build_*`), nor `bus_of` (the bus of a bare service): the entry point
(`bot/ops/`, `bot/__main__.py`, `bot/shardhost.py`) builds the process's application and hands it to its face,
whose bus is the application's (`Host.bus`, `App.bus`)."""

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


def root_builders(root: Path) -> set[str]:
    """The builders the composition root defines: its functions named `build_*`."""
    tree = ast.parse((root / "bot" / "compose.py").read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("build_")}


NOT_FOR_FACES = frozenset({"bus_of"})
"""What the root has besides its builders that no face may reach for: `bus_of` finds (or makes) the bus of a bare
host service; a face hears the host on the bus of the application it was handed (`Host.bus`, `App.bus`)."""


def builder_calls(root: Path) -> list[str]:
    """`path:line name` of every face (`bot/adapters/`) that imports or calls one of the root's builders or
    anything else of `NOT_FOR_FACES`."""
    builders = root_builders(root) | NOT_FOR_FACES
    found: list[str] = []
    for path in sorted((root / "bot" / "adapters").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        in_file: list[tuple[int, str]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "bot.compose":
                names = [a.name for a in node.names if a.name in builders]
            elif isinstance(node, ast.Call):
                names = [name] if (name := _called_name(node)) in builders else []
            else:
                continue
            in_file += [(node.lineno, name) for name in names]
        found += [f"{path.relative_to(root)}:{line} {name}" for line, name in sorted(in_file)]
    return found


def test_no_face_calls_a_builder_of_the_root() -> None:
    """Every face is handed its application (the Discord bot its `App`, the terminal faces their `Host`, the web
    face its `Readers`) by the entry point; a face that built its own would build a second one. Nor does a face
    look up the bus of a service (`bus_of`): it subscribes on its application's bus."""
    assert {"build_app", "build_host", "build_readers", "build_scheduler", "build_tournaments"} <= root_builders(ROOT)
    tree = ast.parse((ROOT / "bot" / "compose.py").read_text(encoding="utf-8"))
    assert NOT_FOR_FACES <= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}  # none is stale
    assert builder_calls(ROOT) == []


def test_the_builder_walk_finds_an_import_and_a_call(tmp_path: Path) -> None:
    (tmp_path / "bot" / "adapters" / "face").mkdir(parents=True)
    (tmp_path / "bot" / "compose.py").write_text("def build_host(url): ...\ndef hold(host): ...\n", encoding="utf-8")
    (tmp_path / "bot" / "adapters" / "face" / "room.py").write_text(
        "from bot import compose\nfrom bot.compose import build_host, hold\n"
        "host = compose.build_host('sqlite://')\nhold(host)\nbuild_log = len\nbuild_log([])\n",
        encoding="utf-8",
    )
    (tmp_path / "bot" / "adapters" / "face" / "bot.py").write_text(
        "from bot import compose\nfrom bot.compose import Stage, bus_of\n"
        "bus_of(service).subscribe(listener, Stage.FOLLOW)\ncompose.bus_of(service)\nhost.bus.subscribe(listener)\n",
        encoding="utf-8",
    )
    assert builder_calls(tmp_path) == [
        "bot/adapters/face/bot.py:2 bus_of",
        "bot/adapters/face/bot.py:3 bus_of",
        "bot/adapters/face/bot.py:4 bus_of",
        "bot/adapters/face/room.py:2 build_host",
        "bot/adapters/face/room.py:3 build_host",
    ]
