"""Golden board pictures: the cases, how each is drawn and compared. `python -m tests.games.regen_golden` rewrites them.

Regenerate after an intended change to the pictures and review the PNG diff like any other change.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from games import pictures, registry
from games.base import play_text
from tests import DATA

GOLDEN = DATA / "golden"
MEAN_LIMIT = 1.5
"""Mean absolute difference per channel (0-255) a picture may drift by."""
PIXEL_LIMIT = 0.005
"""Fraction of pixels allowed to differ by more than 64 in some channel."""


def cases() -> list[dict[str, Any]]:
    """The golden cases, as listed in cases.json."""
    data: list[dict[str, Any]] = json.loads((GOLDEN / "cases.json").read_text())["cases"]
    return data


def render_case(case: dict[str, Any]) -> Image.Image:
    """Replay the case and draw its final position."""
    ruleset = registry.get(case["game"])
    state = ruleset.new_game(ruleset.parse_options(case.get("opts", {})))
    states = [state]
    move = None
    for line in case["lines"]:
        state, move, _ = play_text(ruleset, state, line)
        states.append(state)
    kw = dict(case.get("kw", {}))
    if "clocks" in kw:
        kw["clocks"] = {int(k): v for k, v in kw["clocks"].items()}
    return pictures.render_image(ruleset, state, history=states[:-1], last_move=move, **kw)


def compare(actual: Image.Image, expected: Image.Image) -> str | None:
    """None when the pictures match within tolerance, else what differs."""
    if actual.size != expected.size:
        return f"size {actual.size} != golden {expected.size}"
    a = np.asarray(actual.convert("RGB"), dtype=np.int16)
    b = np.asarray(expected.convert("RGB"), dtype=np.int16)
    diff = np.abs(a - b)
    mean = float(diff.mean())
    far = float((diff.max(axis=2) > 64).mean())
    if mean > MEAN_LIMIT or far > PIXEL_LIMIT:
        return f"mean difference {mean:.2f} (limit {MEAN_LIMIT}), {far:.2%} pixels far off (limit {PIXEL_LIMIT:.1%})"
    return None


def main(argv: list[str] | None = None) -> int:
    """Rewrite every golden PNG (or only the named cases)."""
    wanted = set(argv if argv is not None else sys.argv[1:])
    for case in cases():
        if wanted and case["name"] not in wanted:
            continue
        try:
            image = render_case(case)
        except pictures.UnsupportedGameError as exc:
            print(f"skip {case['name']}: {exc}")
            continue
        path = GOLDEN / f"{case['name']}.png"
        image.save(path, optimize=True)
        print(f"wrote {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
