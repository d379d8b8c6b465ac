"""What becomes of a player's text, as typed values: an `Outcome`, and for an ignored text an `Ignored` code
(the words for it are made at the edge, by `bot.wording`)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.adapters.terminal.room import Room
from bot.compose import build_host
from bot.host.events import Ignored, Outcome
from bot.host.service import MatchService, PlayerRef
from bot.wording import reason_text
from tests.bot.conftest import Recorder, room_config, typed

ALICE, BOB, STRANGER = PlayerRef("1", "alice"), PlayerRef("2", "bob"), PlayerRef("9", "mallory")
pytestmark = pytest.mark.looptime


async def test_each_ignored_text_says_why_with_a_code(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await service.create_match("boxes", [ALICE, BOB], rules={"takeback": "5"})
    cases = [
        (ALICE, "good luck, have fun", Ignored.CHAT, "chat"),
        (ALICE, "   ", Ignored.EMPTY, "empty"),
        (ALICE, "x" * 300, Ignored.TOO_LONG, "too long to be a move"),
        (STRANGER, "A1-B1", Ignored.STRANGER, "not a player of this match"),
    ]
    for who, text, code, words in cases:
        result = await service.submit(mid, who.id, text)
        assert (result.status, result.reason, result.refusal) == (Outcome.IGNORED, code, None), text[:20]
        assert reason_text(result) == words
    accepted = await service.submit(mid, ALICE.id, "A1-B1", message_id="m1")
    assert accepted.status == Outcome.ACCEPTED and accepted.reason is None and reason_text(accepted) is None
    other = await service.withdraw(mid, ALICE.id, message_id="m2", via="delete")
    assert (other.status, other.reason) == (Outcome.IGNORED, Ignored.NOT_PROVISIONAL)
    refused = await service.submit(mid, BOB.id, "A1-B1")
    assert refused.status == Outcome.REJECTED and refused.reason is None and refused.refusal is not None


async def test_the_terminal_room_redraws_the_board_after_what_rules_declare(tmp_path: Path) -> None:
    """A move and the start show the board; so does a take-back (the rule declares it among its `redraws`),
    while a provisional move's announcement does not."""
    out = io.StringIO()
    config = room_config(tmp_path, options={"rows": "2", "cols": "2"}, rules={"takeback": "5"}, events_json=False)
    assert (
        await Room(config, build_host(config.db_url), out=out).run(typed("alice: A1-B1\n", "alice: take back\n", None))
        == 0
    )
    said = out.getvalue()
    assert "alice took back A1-B1" in said
    assert said.count("clocks: ") == 2, said  # at the start and after the take-back
