"""Issue 37: "1 games", "1 rounds", "1 tiles". Counts said with their noun in the singular for one (Trax's
"1 tile" is pinned by the playthroughs, `tests/data/playthroughs/trax-*.txt`)."""

from __future__ import annotations

import pytest

from bot.adapters.discord.render import markdown
from bot.host.events import Refusal
from bot.tournaments.refusals import KIND, RefusalCode
from bot.wording import moves_in_file
from bot.wording.counts import plural
from bot.wording.series import rematch_offer
from bot.wording.tournaments import announcement, refusal_text


@pytest.mark.parametrize(
    ("count", "word", "many", "says"),
    [(1, "game", None, "1 game"), (2, "game", None, "2 games"), (0, "round", None, "0 rounds"),
     (1, "ply", "plies", "1 ply"), (3, "ply", "plies", "3 plies")],
)  # fmt: skip
def test_plural(count: int, word: str, many: str | None, says: str) -> None:
    assert plural(count, word, many) == says


def test_counts_in_sentences() -> None:
    unfinished = Refusal(RefusalCode.ROUND_UNFINISHED.value, kind=KIND, data={"round": 2, "games": 1})
    assert refusal_text(unfinished) == "round 2 still has 1 game to finish; adjudicate them first"
    assert "has 2 games to finish" in refusal_text(Refusal(unfinished.code, kind=KIND, data={"round": 2, "games": 2}))
    assert rematch_offer(["alice", "bob"], 1).endswith("within 1 minute.")
    assert moves_in_file(1) == "The whole record (1 move) is attached."
    text = markdown(announcement("Cup", "started", {"players": 2}, {}, str, None))  # type: ignore[arg-type]
    assert text == "**Cup** has started with 2 players."
