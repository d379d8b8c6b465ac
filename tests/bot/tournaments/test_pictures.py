"""The standings and bracket pictures: valid PNGs whose size follows the table and the bracket."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

from PIL import Image

from bot.adapters.discord.render import markdown
from bot.tournaments.pairing import elimination_first_round
from bot.tournaments.rounds import Format, Game, Result
from bot.tournaments.simulate import play_out
from bot.tournaments.standings import standings
from bot.wording.tournament_pictures import bracket_columns, bracket_lines, bracket_png, standings_png

DATA = Path(__file__).resolve().parents[2] / "data" / "tournaments"


def _size(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as image:
        assert image.format == "PNG"
        return image.size


def test_the_table_grows_a_row_per_player() -> None:
    sizes = []
    for n in (4, 8):
        history, _ = play_out(Format.SWISS, n, 3, 1, 0.2)
        table = standings(list(range(1, n + 1)), history, Format.SWISS)
        sizes.append(_size(standings_png("Cup", table, {i: f"player {i}" for i in range(1, n + 1)})))
    assert sizes[1][1] - sizes[0][1] == 4 * 30


def test_the_bracket_has_a_column_per_round_and_a_slot_per_first_round_pairing() -> None:
    history, _ = play_out(Format.ELIMINATION, 6, None, 2, 0.3)
    width, height = _size(bracket_png("Cup", history, {}, 3))
    assert width == 2 * 16 + 3 * (190 + 40)
    assert height == 2 * 16 + 34 + 24 + 4 * 60  # title, round names, a slot per first-round pairing


def test_before_round_two_the_bracket_shows_every_round_with_the_places_ahead() -> None:
    case = json.loads((DATA / "bracket_ahead.json").read_text())
    ids = {name: i for i, name in enumerate(case["players"], start=1)}
    names = {i: name for name, i in ids.items()}
    first = elimination_first_round(list(names))
    for d in case["decided"]:
        white, black = ids[d["white"]], ids[d["black"]]
        result = Result.WHITE if d["winner"] == d["white"] else Result.BLACK
        first = [
            replace(p, result=result) if isinstance(p, Game) and (p.white, p.black) == (white, black) else p
            for p in first
        ]
    assert [len(c) for c in bracket_columns([first], case["rounds"])] == case["columns"]
    assert [markdown(line) for line in bracket_lines([first], names, case["rounds"])] == case["lines"]
    width, _height = _size(bracket_png("Cup", [first], names, case["rounds"]))
    assert width == 2 * 16 + case["rounds"] * (190 + 40)
