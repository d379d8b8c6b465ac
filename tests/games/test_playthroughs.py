"""Every game's committed playthroughs (tests/data/playthroughs) replay to exactly the same text."""

from __future__ import annotations

import difflib
from typing import Any

import pytest

from games import registry
from tests.games.regen_playthroughs import PLAYTHROUGHS, cases, render


def test_every_game_has_playthroughs_and_every_file_a_case() -> None:
    games = {case["game"] for case in cases()}
    assert games == set(registry.ids())
    names = [case["name"] for case in cases()]
    assert len(names) == len(set(names))
    assert {p.stem for p in PLAYTHROUGHS.glob("*.txt")} == set(names)


@pytest.mark.parametrize("case", cases(), ids=lambda case: case["name"])
def test_playthrough_replays_unchanged(case: dict[str, Any]) -> None:
    expected = (PLAYTHROUGHS / f"{case['name']}.txt").read_text(encoding="utf-8")
    actual = render(case)
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                f"committed {case['name']}.txt",
                "replayed now",
                n=2,
            )
        )
        pytest.fail(
            f"playthrough {case['name']} changed; if intended, run "
            f"`python -m tests.games.regen_playthroughs {case['name']}` and review the diff:\n{diff[:6000]}"
        )
