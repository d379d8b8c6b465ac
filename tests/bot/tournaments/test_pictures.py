"""The standings and bracket pictures: valid PNGs whose size follows the table and the bracket."""

from __future__ import annotations

import io

from PIL import Image

from bot.tournaments.rounds import Format
from bot.tournaments.simulate import play_out
from bot.tournaments.standings import standings
from bot.wording.tournament_pictures import bracket_png, standings_png


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
    assert height == 2 * 16 + 34 + 4 * 60
