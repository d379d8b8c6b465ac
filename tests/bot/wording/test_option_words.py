"""Options and clock settings that do not validate are said in players' words (`bot.wording.options_text`),
never the validator's text; an unknown key lists the valid ones (issue 28, point 8)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bot.wording import options_text
from games import registry
from games.base import OptionsError
from tests import DMHOST

DATA = Path(__file__).parents[2] / "data/wording/options.jsonl"
CASES = [json.loads(line) for line in DATA.read_text().splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['game']}-{next(iter(c['opt']))}" for c in CASES])
def test_option_problems_in_players_words(case: dict[str, object]) -> None:
    ruleset = registry.get(str(case["game"]))
    with pytest.raises(OptionsError) as caught:
        ruleset.parse_options(case["opt"])  # type: ignore[arg-type]
    said = options_text(caught.value.problems, caught.value.valid)
    assert said == case["says"]
    assert "Input should" not in said and "Extra inputs" not in said


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--opt", "colour=red"], "there is no option 'colour'; the options are rows, cols"),
        (["--opt", "rows=99"], "rows must be at most 8"),
        (["--clock", "speed=3"], "there is no clock setting 'speed'; the settings are kind, move, reserve, grace"),
    ],
)
@pytest.mark.slow  # a `dmhost room` process per case
def test_the_terminal_room_says_them_too(tmp_path: Path, args: list[str], says: str) -> None:
    proc = subprocess.run(
        [*DMHOST, "room", "boxes", "--player", "a", "--player", "b", "--db", str(tmp_path / "o.db"), *args],
        capture_output=True,
        text=True,
        input="",
    )
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr
    assert "Input should" not in proc.stderr and "Traceback" not in proc.stderr
