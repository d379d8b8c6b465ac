"""The draw-offer house rule (`draw=on`): offered, accepted, lapsed, refused where it is off — through the
whole host (real engines and database), and in the terminal room as users run it (a real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.adapters.discord.render import markdown
from bot.host import rules
from bot.host.service import HostError, MatchService, PlayerRef
from bot.wording import error_text, event_text, reason_text
from tests.bot.conftest import Recorder

A, B = PlayerRef("a", "alice"), PlayerRef("b", "bob")
pytestmark = pytest.mark.looptime


async def say(service: MatchService, mid: int, who: PlayerRef, text: str) -> str:
    result = await service.submit(mid, who.id, text)
    assert result.status in ("accepted", "rejected"), (text, result)
    return result.status if result.status == "accepted" else f"rejected: {reason_text(result)}"


def test_the_rule_is_off_by_default_in_every_game_and_every_game_takes_it() -> None:
    for game in ("boxes", "trax", "dots", "pathing", "dotdash"):
        assert "draw" in rules.accepted(game)
        assert "draw" not in rules.defaults(game)
        assert not any(r.key == "draw" for r in rules.build(game, rules.parse(game, {})))
        assert any(r.key == "draw" for r in rules.build(game, rules.parse(game, {"draw": "on"})))
    with pytest.raises(rules.RulesError):
        rules.parse("boxes", {"draw": "maybe"})


async def test_offer_then_accept_is_a_draw_by_agreement(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("boxes", [A, B], rules={"draw": "on"})
    assert await say(service, mid, A, "A1-B1") == "accepted"
    assert await say(service, mid, B, "offer draw") == "accepted"
    offer = rec.of("draw_offer")[-1][1]
    assert (
        offer.seat == 1
        and "bob offers a draw" in markdown(event_text(offer))
        and "alice" in markdown(event_text(offer))
    )
    assert await say(service, mid, B, "accept draw") == "rejected: There is no draw offer for you to accept."
    assert await say(service, mid, A, "Accept draw!") == "accepted"
    finished = rec.of("finished")[-1][1]
    assert finished.data == {"winner": None, "winner_name": None, "reason": "agreement"}
    assert finished.result is not None and finished.result.winner is None and finished.result.reason == "agreement"
    stored = await service.record(mid)
    assert stored is not None and stored.status == "finished" and stored.result_reason == "agreement"
    assert stored.winner_seat is None
    assert [e.kind for e in stored.events][-3:] == ["draw_offer", "draw_accepted", "finished"]


async def test_the_offer_lapses_when_the_opponent_moves_instead(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("boxes", [A, B], rules={"draw": "on"})
    assert await say(service, mid, A, "offer draw") == "accepted"
    assert await say(service, mid, A, "offer draw") == "rejected: " + (
        "Your draw offer stands: bob may accept it before their next move."
    )
    assert await say(service, mid, A, "A1-B1") == "accepted"  # the offerer's own move keeps it
    assert not rec.of("draw_lapsed")
    assert await say(service, mid, B, "A2-B2") == "accepted"  # the opponent moved instead of accepting
    lapsed = rec.of("draw_lapsed")[-1][1]
    assert lapsed.seat == 1 and "draw offer lapsed" in markdown(event_text(lapsed))
    assert await say(service, mid, B, "accept draw") == "rejected: There is no draw offer for you to accept."
    assert service.get(mid).status == "ongoing"


async def test_refused_where_the_rule_is_off(host: tuple[MatchService, Recorder]) -> None:
    service, rec = host
    mid = await service.create_match("boxes", [A, B])
    refused = await say(service, mid, A, "offer draw")
    assert refused.startswith("rejected: This match has no draw offers")
    with pytest.raises(HostError) as err:
        await service.act(mid, A.id, "offer_draw")
    assert "no draw offers" in error_text(err.value)
    assert not rec.of("draw_offer") and service.get(mid).status == "ongoing"


async def test_a_standing_offer_survives_a_restart(migrated_db_url: str) -> None:
    from tests.bot.conftest import make_service

    service = await make_service(migrated_db_url)
    mid = await service.create_match("boxes", [A, B], rules={"draw": "on"})
    assert await say(service, mid, A, "offer draw") == "accepted"
    await service.close()
    again = await make_service(migrated_db_url)
    try:
        assert await say(again, mid, B, "accept draw") == "accepted"
        stored = await again.record(mid)
        assert stored is not None and stored.result_reason == "agreement"
    finally:
        await again.close()
        await again.store.close()
        await service.store.close()


def room(tmp_path: Path, lines: str, *rule: str) -> list[dict[str, object]]:
    args = ["room", "boxes", "--player", "alice", "--player", "bob", "--events-json", *rule]
    done = subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", *args], input=lines, capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.looptime(False)
@pytest.mark.slow  # a `dmhost room` process
def test_in_the_terminal_room(tmp_path: Path) -> None:
    events = room(tmp_path, "alice: A1-B1\nbob: offer draw\nalice: accept draw\n", "--rule", "draw=on")
    assert [e["event"] for e in events] == ["started", "move", "turn", "draw_offer", "finished"]
    assert events[-1] == {
        "event": "finished",
        "match": events[0]["match"],
        "winner": None,
        "reason": "agreement",
        "text": events[-1]["text"],
    }


@pytest.mark.looptime(False)
@pytest.mark.slow  # a `dmhost room` process
def test_in_the_terminal_room_lapsed_and_refused(tmp_path: Path) -> None:
    events = room(tmp_path, "alice: offer draw\nalice: A1-B1\nbob: A2-B2\nbob: accept draw\n", "--rule", "draw=on")
    kinds = [e["event"] for e in events]
    assert kinds[:2] == ["started", "draw_offer"] and "draw_lapsed" in kinds
    assert events[-2]["event"] == "rejected" and "no draw offer" in str(events[-2]["reason"])
    assert events[-1]["event"] == "eof"
    (tmp_path / "off").mkdir()
    off = room(tmp_path / "off", "alice: offer draw\n")
    assert off[1]["event"] == "rejected" and "no draw offers" in str(off[1]["reason"])
