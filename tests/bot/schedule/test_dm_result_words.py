"""How a scheduled DM's result is said (issue 37: "wins the DM and a golden pen (score)" read as if the pen
were part of the score): how it ended as every result says it, the prize in a sentence of its own. Pinned
by `tests/data/wording/dm_results.jsonl`."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from bot.host.match import PlayerRef
from bot.schedule.store import Schedule
from bot.text import plain
from bot.wording.schedule import result_line

CASES = [json.loads(line) for line in (Path(__file__).parents[2] / "data/wording/dm_results.jsonl").open()]
T0 = dt.datetime(2026, 11, 27, 20, tzinfo=dt.UTC)


def finished(reason: str, winner: int | None, prize: str | None) -> Schedule:
    return Schedule(
        id=3, guild_id=None, channel_id=None, room_id=None, game="boxes", options={}, clock={}, rules={},
        first=None, advantage=None, room_mode=None, players=(PlayerRef("a", "alice"), PlayerRef("b", "bob")),
        host_id=None, at=T0, prize=prize, note=None, reminders=(), checkin_s=900, no_show_s=600,
        status="finished", here=(None, None), wait_until=T0, proposed_at=None, proposed_by=None, match_id=1,
        winner_seat=winner, result_reason=reason, finished_at=T0, event_id=None, card_id=None, created_at=T0,
    )  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[f"{c['reason']}-{c['winner']}" for c in CASES])
def test_a_dm_result_says_how_and_the_prize_apart(case: dict[str, object]) -> None:
    said = plain(result_line(finished(str(case["reason"]), case["winner"], case["prize"])))  # type: ignore[arg-type]
    assert said == case["says"]
    assert case["prize"] is None or str(case["prize"]) not in said.split(".")[0], "the prize is said apart"
