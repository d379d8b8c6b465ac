"""The log and the review page of a correspondence match played over days (issue 48, point 4), through the
real service and store on SQLite, on the event loop's clock (looptime; the store's wall clock follows it, as
Discord's does in production): "2 days a move" (and its bank; never a reserve), the reminder's time left
filled in, a date on every entry, the times a move took in days and hours, both clocks right after every
move, and one house rules line for the log and the page."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections.abc import AsyncIterator

import pytest

from bot.host.service import MatchService, PlayerRef
from bot.records.matchlog import build_log
from bot.records.page import build_match_page
from bot.records.replay import replay_match
from bot.wording import log_text
from tests.bot.conftest import Recorder, make_service

ALICE, BOB = PlayerRef("a", "alice"), PlayerRef("b", "bob")
HOUR, DAY = 3600, 86400
T0 = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)
pytestmark = pytest.mark.looptime


def wall() -> dt.datetime:
    return T0 + dt.timedelta(seconds=asyncio.get_running_loop().time())


@pytest.fixture
async def service(db_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[MatchService]:
    monkeypatch.setattr("bot.store.matches.utcnow", wall)  # entries stamped on the same clock as the game
    svc = await make_service(db_url, Recorder(), heartbeat_seconds=3600.0, wall=wall)
    yield svc
    await svc.close()
    await svc.store.close()


async def _played(service: MatchService, clock: dict[str, str]) -> int:
    """alice and bob over four days: alice moves after 18 h, bob is reminded and moves after 1 d 21 h, alice
    after 2 h; then bob runs out of time."""
    mid = await service.create_match(
        "boxes", [ALICE, BOB], options={"rows": 2, "cols": 2}, clock=clock, guild_id=7, channel_id=11
    )
    await asyncio.sleep(18 * HOUR)
    assert (await service.submit(mid, ALICE.id, "A1-B1")).status == "accepted"
    await asyncio.sleep(45 * HOUR)  # bob's reminder at 80 % (38 h 24 m) comes meanwhile
    assert (await service.submit(mid, BOB.id, "A2-B2")).status == "accepted"
    await asyncio.sleep(2 * HOUR)
    assert (await service.submit(mid, ALICE.id, "A1-A2")).status == "accepted"
    await asyncio.sleep(2 * DAY + HOUR)  # bob's time runs out
    return mid


async def test_the_log_of_a_correspondence_match_reads_in_days(service: MatchService) -> None:
    mid = await _played(service, {"kind": "correspondence", "move": "2d"})
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None and stored.status == "finished" and stored.result_reason == "time"
    text = log_text(build_log(stored))
    assert "Clock: correspondence, 2 days a move, no bank\n" in text
    assert "reserve" not in text and "2880:00" not in text and "{" not in text
    assert "House rules: none\n" in text
    entries = [line for line in text.splitlines() if line.startswith("  #")]
    assert entries and all(re.match(r"  #\d+\s+2026-03-0\d \d\d:\d\d ", line) for line in entries), entries
    moves = [line for line in entries if " move " in line]
    assert moves[0].endswith("alice A1-B1 (18h)") and moves[0].split()[1:3] == ["2026-03-02", "03:00"]
    assert moves[1].endswith("bob A2-B2 (1d 21h)")
    assert moves[2].endswith("alice A1-A2 (2h)")
    reminded = [line for line in entries if "reminded" in line]  # both of bob's moves
    assert len(reminded) == 2 and all(line.endswith("reminded           bob 9h 36m left") for line in reminded)
    assert " s)" not in text  # no raw seconds


async def test_the_page_and_replay_of_a_correspondence_match_with_a_bank(service: MatchService) -> None:
    mid = await _played(service, {"kind": "correspondence", "move": "2d", "bank": "3d"})
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    _ruleset, frames = replay_match(stored)
    # each seat's clock after every ply: the next move's two days plus what its bank saved (capped at 3 d)
    assert [f.clocks for f in frames] == [
        {1: 2 * DAY, 2: 2 * DAY},
        {1: 2 * DAY + 30 * HOUR, 2: 2 * DAY},  # alice saved 1 d 6 h
        {1: 2 * DAY + 30 * HOUR, 2: 2 * DAY + 3 * HOUR},  # bob saved 3 h
        {1: 2 * DAY + 3 * DAY, 2: 2 * DAY + 3 * HOUR},  # alice's bank is full: 3 d
    ]
    assert frames[1].caption == "1. alice A1-B1 (18h)"
    page = build_match_page(stored)
    assert "correspondence, 2 days a move, unused time saved in a bank of up to 3 days" in page
    assert "reserve" not in page and "{left_text}" not in page and "64800.0 s" not in page
    assert "bob 9h 36m left" in page
    rows = re.findall(r'<li data-ply="([1-9])">(.*?)</li>', page)
    assert [ply for ply, _ in rows] == ["1", "2", "3"]
    # each row: the time the move took and its date, and the mover's clock after it (the page shows a clock
    # only where the move changed it; both clocks at every ply are the replay's, checked above)
    clock = re.compile(r"clock after the move\">(.*?)</span>")
    assert "18h · 2026-03-02 03:00 UTC" in rows[0][1] and clock.findall(rows[0][1]) == ["3d 6h"]
    assert "1d 21h · 2026-03-04 00:00 UTC" in rows[1][1] and clock.findall(rows[1][1]) == ["2d 3h"]
    assert clock.findall(rows[2][1]) == ["5d"]
    events = re.findall(r'<li class="ev">(.*?)</li>', page)
    assert events and all(re.match(r"2026-03-0\d \d\d:\d\d UTC · ", ev) for ev in events), events
    log = log_text(build_log(stored))
    house = re.search(r"<dt>House rules</dt><dd>(.*?)</dd>", page)
    assert house is not None and f"House rules: {house.group(1)}\n" in log  # one line, the same in both
