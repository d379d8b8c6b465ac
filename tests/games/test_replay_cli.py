"""`python -m games replay` against the contract, with expected results in tests/data/replay/*.jsonl."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games import registry
from tests import DATA as TEST_DATA

DATA = TEST_DATA / "replay"
CONTRACT_KEYS = {"game", "moves_applied", "status", "winner", "reason", "to_move", "scores", "error", "extra"}


def _cases() -> list[Any]:
    out = []
    for path in sorted(DATA.glob("*.jsonl")):
        game = path.stem
        for i, line in enumerate(path.read_text().splitlines()):
            if line.strip():
                case = json.loads(line)
                out.append(pytest.param(game, case, id=f"{game}-{i}-{case['name'][:40]}"))
    return out


def run_replay(game: str, opts: dict[str, Any], lines: list[str]) -> tuple[int, dict[str, Any]]:
    args = [sys.executable, "-m", "games", "replay", game]
    for k, v in opts.items():
        args += ["--opt", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
    proc = subprocess.run(args, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    return proc.returncode, json.loads(proc.stdout)


def check_subset(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    for key, want in expected.items():
        if key == "error" and want is not None:
            assert actual["error"] is not None, actual
            for k, v in want.items():
                assert actual["error"][k] == v, (key, k, actual["error"])
            assert actual["error"]["message"]
        elif key == "extra":
            for k, v in want.items():
                assert actual["extra"][k] == v, (k, actual["extra"])
        else:
            assert actual[key] == want, (key, actual)


@pytest.mark.parametrize(("game", "case"), _cases())
def test_replay_case(game: str, case: dict[str, Any]) -> None:
    code, result = run_replay(game, case.get("opts", {}), case["lines"])
    assert set(result) == CONTRACT_KEYS
    assert code == (3 if case["expect"].get("error") else 0)
    if result["status"] == "finished":
        assert result["to_move"] is None
    else:
        assert result["winner"] is None and result["reason"] is None
    check_subset(result, case["expect"])


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    def code(*args: str) -> int:
        return subprocess.run([sys.executable, "-m", "games", *args], capture_output=True, text=True).returncode

    assert code("replay", "chess") == 2
    assert code("replay", "boxes", "--opt", "rows=99") == 2
    assert code("replay", "boxes", "--opt", "nonsense") == 2
    assert code("replay", "boxes", str(tmp_path / "missing.txt")) == 2
    assert code("frobnicate") == 2


def test_list_names_every_game() -> None:
    proc = subprocess.run([sys.executable, "-m", "games", "list"], capture_output=True, text=True)
    assert proc.returncode == 0
    listed = {line.split("\t")[0] for line in proc.stdout.splitlines()}
    assert listed == set(registry.GAME_MODULES)


def test_replay_reads_a_file(tmp_path: Path) -> None:
    f = tmp_path / "game.txt"
    f.write_text("# a comment\nA1-B1\n\nA1-A2\n")
    proc = subprocess.run(
        [sys.executable, "-m", "games", "replay", "boxes", "--opt", "rows=2", "--opt", "cols=2", str(f)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["moves_applied"] == 2
