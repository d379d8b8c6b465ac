"""The README's screenshots cannot rot: `python -m docs.screens.make` plays its matches on SimCord with the real
bot into a temporary folder and writes every picture and transcript (about 7 s on an idle machine)."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from docs.screens.make import MAX_BYTES, make, seeded_moves

FILES = {
    "boxes-room.png",
    "boxes-room.txt",
    "boxes-board.png",
    "lobby.png",
    "lobby.txt",
    "trax-room.png",
    "trax-room.txt",
    "trax-board.png",
}


async def test_the_screens_script_plays_its_matches_and_writes_every_file(tmp_path: Path) -> None:
    written = await make(tmp_path)

    assert {p.name for p in written} == FILES
    assert {p.name for p in tmp_path.iterdir()} == FILES
    for path in written:
        assert 0 < path.stat().st_size < MAX_BYTES, path.name
        if path.suffix == ".png":
            picture = Image.open(io.BytesIO(path.read_bytes()))
            picture.verify()
            assert picture.width >= 300 and picture.height >= 100, (path.name, picture.size)

    # the room as a member reads it: its first message and its last ones, the board among them (a picture;
    # after a dozen messages it moves down), the host's answers to a drawn edge and to a
    # line that is no move, the players' last moves, the rematch button under the finished game
    boxes = (tmp_path / "boxes-room.txt").read_text(encoding="utf-8")
    moves = [text for _seat, text in seeded_moves("boxes", {"rows": 3, "cols": 3}, seed=7)]
    assert "**Match 1 · Dots-and-Boxes**" in boxes and "[file] board.png" in boxes
    _first, drawn_again = boxes.split("messages not shown")
    assert f"dmhost [APP] (replying to @bob {moves[0]})" in drawn_again
    assert "dmhost [APP] (replying to @alice B2)" in drawn_again
    for move in moves[-3:]:
        assert f"\n  {move}\n" in drawn_again
    assert "[Rematch]" in drawn_again and drawn_again.rstrip().endswith("gg")

    lobby = (tmp_path / "lobby.txt").read_text(encoding="utf-8")
    assert "@alice vs @bob" in lobby and "started a thread: Dots-and-Boxes: alice vs bob" in lobby

    trax = (tmp_path / "trax-room.txt").read_text(encoding="utf-8")
    assert "messages not shown" not in trax and "**Match 2 · Trax**" in trax
    for _seat, move in seeded_moves("trax", {}, seed=11, plies=8):
        assert f"\n  {move}\n" in trax
    # "resign?" is chat; "resign" is answered, to bob, with the two buttons of the confirmation
    assert trax.endswith("[Confirm] [Cancel]\n") and "dmhost [APP] (replying to @bob resign)" in trax

    # the board pictures are the game's pictures as attached (PNG), not drawings of the room
    for name in ("boxes-board.png", "trax-board.png"):
        board = Image.open(tmp_path / name)
        assert board.format == "PNG" and board.width < Image.open(tmp_path / "boxes-room.png").width
