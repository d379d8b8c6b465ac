"""Every data file the code reads ships inside the package: found from any working directory, and
present in the wheel (`pip wheel`), not only in the source tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from games import registry
from tests import ROOT

DATA = ROOT / "seeds"


def test_rule_cards_and_presets_from_another_working_directory(tmp_path: Path) -> None:
    code = (
        "import json; from games import registry; from games.resources import rule_card, moves_card; "
        "from games.pathing import layout_presets; "
        "print(json.dumps({'cards': [g for g in registry.ids() if rule_card(g) and moves_card(g)], "
        "'presets': sorted(layout_presets())}))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["cards"] == list(registry.ids())
    assert "corners" in found["presets"]


def test_a_preset_layout_plays_from_the_root_directory() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "games", "replay", "pathing", "--opt", "layout=corners", "-"],
        input="",
        cwd="/",
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["game"] == "pathing"


def test_the_wheel_carries_every_data_file(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("dmhost-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {str(p.relative_to(ROOT)) for p in DATA.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert wanted and wanted <= names, sorted(wanted - names)
    assert {"seeds/__init__.py", "seeds/rules/boxes.md", "seeds/pathing/layouts.json"} <= names
    assert "migrations/script.py.mako" in names


def test_the_constraints_pin_every_declared_dependency() -> None:
    import re
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0].lower().replace("_", "-").replace(".", "-") for d in declared}
    pinned = {
        line.split("==")[0].strip().lower()
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    assert names <= pinned, sorted(names - pinned)
