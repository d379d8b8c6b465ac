"""The room's pictures explained (issue 37, items 15 and 16): `dmhost room dots --png` after a stop shows the
handed-over dots and area as the opponent's in its last frame and the field as it stood before `end` (the samples of
tests/data/dots/stop_picture.json); the Trax room's `help` says what the pictures' yellow and blue mark."""

from __future__ import annotations

import subprocess
from pathlib import Path

from PIL import Image

from games import registry
from games.resources import moves_card
from tests.bot.adapters.terminal.test_room_cli import DMHOST
from tests.games.test_dots_stop_picture import CASE, colour_problems
from tests.games.test_trax_key import KEY


def test_the_rooms_last_frame_after_a_stop_shows_what_the_stop_did(tmp_path: Path) -> None:
    players = [arg for name in CASE["players"] for arg in ("--player", name)]
    options = [arg for k, v in CASE["options"].items() for arg in ("--opt", f"{k}={v}")]
    proc = subprocess.run(
        [*DMHOST, "room", "dots", *players, *options, "--db", str(tmp_path / "d.db"), "--png", str(tmp_path / "png")],
        input="".join(f"{line}\n" for line in CASE["lines"]),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"Game over: {CASE['result']}." in proc.stdout
    *_, before, final = sorted((tmp_path / "png").glob("*.png"))
    ruleset = registry.get("dots")
    field = ruleset.new_game(ruleset.parse_options(CASE["options"]))  # the size alone places the points
    with Image.open(before) as image:
        assert colour_problems(image, field, "before") == []
    with Image.open(final) as image:
        assert colour_problems(image, field, "final") == []


def test_the_help_card_says_what_the_colours_mark(tmp_path: Path) -> None:
    card = moves_card("trax")
    assert card is not None and KEY["card_line"] in card
    proc = subprocess.run(
        [*DMHOST, "room", "trax", "--player", "alice", "--player", "bob", "--db", str(tmp_path / "t.db")],
        input="help\nquit\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=90,
    )
    assert proc.returncode == 0, proc.stderr
    assert KEY["card_line"] in proc.stdout
