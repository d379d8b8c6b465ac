"""The rematch offers and the Confirm / Cancel prompts as durable jobs, on SQLite and PostgreSQL with looptime:
two processes on one database start one rematch and answer a prompt once; a lapse runs once and shuts the
offer; an offer in a direct-message room (no guild) still lapses under a Discord runner, which claims only
guilds' jobs."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest

from bot.host.confirm import Answer, Confirmations, Prompt
from bot.host.service import MatchService, PlayerRef
from bot.jobs import JobQueue, Scope
from bot.series import SeriesService
from bot.series.rematch import Click, Offer, Rematches, offer_key
from bot.types import MatchStatus
from tests.bot.conftest import make_service
from tests.buses import following

pytestmark = pytest.mark.looptime

BASE = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
ONE_BOX = ["A1-B1", "A1-A2", "B1-B2", "A2-B2"]
PLAYERS = [PlayerRef("1", "alice"), PlayerRef("2", "bob")]
GUILD = 5 << 22


def virtual_wall() -> Callable[[], dt.datetime]:
    loop = asyncio.get_running_loop()
    return lambda: BASE + dt.timedelta(seconds=loop.time())


@dataclass
class Process:
    """One bot process on the database: its host service, jobs runner (as Discord's: guilds' jobs only), the
    rematch offers and the prompts."""

    service: MatchService
    jobs: JobQueue
    rematches: Rematches
    confirmations: Confirmations
    lapsed: list[str]

    async def close(self) -> None:
        await self.jobs.close()
        await self.service.close()
        await self.service.store.close()


async def process(url: str) -> Process:
    wall = virtual_wall()
    service = await make_service(url, heartbeat_seconds=3600, wall=wall)
    jobs = JobQueue(service.store.engine, clock=wall, scope=Scope(local=False), poll_s=None)
    p = Process(
        service,
        jobs,
        Rematches(service, SeriesService(service, hear=following(service)), jobs),
        Confirmations(service, jobs),
        [],
    )

    async def offer_lapsed(offer: Offer) -> None:
        p.lapsed.append(f"rematch:{offer.match_id}")

    async def prompt_lapsed(prompt: Prompt) -> None:
        p.lapsed.append(prompt.key)

    p.rematches.lapsed, p.confirmations.lapsed = offer_lapsed, prompt_lapsed
    p.rematches.start()
    p.confirmations.start()
    jobs.start()
    return p


@pytest.fixture
async def two(migrated_db_url: str) -> AsyncIterator[tuple[Process, Process]]:
    first, second = await process(migrated_db_url), await process(migrated_db_url)
    yield first, second
    await first.close()
    await second.close()


async def finished_match(service: MatchService, guild_id: int | None = GUILD) -> int:
    """alice moves first, bob takes the only box."""
    match_id = await service.create_match(
        "boxes", PLAYERS, options={"rows": 1, "cols": 1}, guild_id=guild_id, channel_id=9
    )
    for i, move in enumerate(ONE_BOX):
        await service.submit(match_id, PLAYERS[i % 2].id, move)
    stored = await service.store.load(match_id)
    assert stored is not None and stored.status == MatchStatus.FINISHED
    return match_id


async def test_two_processes_clicking_last_start_one_rematch(two: tuple[Process, Process]) -> None:
    a, b = two
    match_id = await finished_match(a.service)
    offer = await a.rematches.offer(match_id, GUILD, 9, {"1": "alice", "2": "bob"}, None)
    assert offer is not None and abs(offer.due - (BASE + dt.timedelta(minutes=10))) < dt.timedelta(seconds=1)
    offer = await a.rematches.posted(offer, 77)
    waiting = await b.rematches.click(match_id, "1")  # noted in the row: the other process sees it
    assert waiting.kind == Click.WAITING and waiting.offer is not None and waiting.offer.waiting == ["bob"]
    assert (await b.rematches.click(match_id, "3")).kind == Click.NOT_PLAYER
    results = await asyncio.gather(a.rematches.click(match_id, "2"), b.rematches.click(match_id, "2"))
    assert sorted(r.kind for r in results) == [Click.LAPSED, Click.STARTED]
    (started,) = [r for r in results if r.kind == Click.STARTED]
    assert started.match_id is not None and started.channel_id == 9 and not started.new_room
    stored = await a.service.store.load(started.match_id)
    assert stored is not None and stored.players[1] == ("2", "bob"), "colours swapped"
    await asyncio.sleep(3600)
    assert a.lapsed == b.lapsed == [], "accepted: it never lapses"
    job = await a.jobs.get(offer_key(match_id))
    assert job is not None and job.done and job.attempts == 0 and job.payload["message"] == 77


async def test_an_offer_lapses_once_and_a_click_after_it_is_refused(two: tuple[Process, Process]) -> None:
    a, b = two
    match_id = await finished_match(a.service)
    await a.rematches.offer(match_id, GUILD, 9, {"1": "alice", "2": "bob"}, None)
    await a.rematches.click(match_id, "1")
    await asyncio.sleep(599)
    assert a.lapsed == b.lapsed == []
    await asyncio.sleep(2)
    assert sorted(a.lapsed + b.lapsed) == [f"rematch:{match_id}"], "run once, by one of the two"
    assert (await b.rematches.click(match_id, "2")).kind == Click.LAPSED
    assert await a.rematches.get(match_id) is None
    assert a.service.live == {} and b.service.live == {}, "no rematch"


async def test_an_offer_in_a_direct_message_room_still_lapses(two: tuple[Process, Process]) -> None:
    a, _ = two
    match_id = await finished_match(a.service, guild_id=None)
    await a.rematches.offer(match_id, None, 9, {"1": "alice"}, None)
    await asyncio.sleep(601)
    assert a.lapsed + _.lapsed == [f"rematch:{match_id}"]


async def test_no_offer_under_a_tournament_game(two: tuple[Process, Process]) -> None:
    a, _ = two
    match_id = await a.service.create_match("boxes", PLAYERS, guild_id=GUILD, channel_id=9, by="tournament:4")
    assert await a.rematches.offer(match_id, GUILD, 9, {"1": "alice", "2": "bob"}, None) is None
    assert await a.jobs.get(offer_key(match_id)) is None


async def test_a_prompt_is_answered_once_across_processes(two: tuple[Process, Process]) -> None:
    a, b = two
    match_id = await a.service.create_match("boxes", PLAYERS, options={"rows": 2, "cols": 2}, guild_id=GUILD)
    grave = a.service.grave(match_id, "1", "resign")
    assert grave is not None
    prompt = await a.confirmations.ask(grave, "1", 1001, guild_id=GUILD, message_id="1001", channel_id=9)
    assert prompt.name == "alice" and abs(prompt.due - (BASE + dt.timedelta(seconds=30))) < dt.timedelta(seconds=1)
    assert (await b.confirmations.answer(match_id, "1", 1001, "2", confirm=True)).kind == Answer.NOT_YOURS
    # b answers Cancel while a answers Confirm: one of them closes the prompt, the other is told it is closed
    cancel, confirm = await asyncio.gather(
        b.confirmations.answer(match_id, "1", 1001, "1", confirm=False),
        a.confirmations.answer(match_id, "1", 1001, "1", confirm=True),
    )
    assert sorted([cancel.kind, confirm.kind]) in ([Answer.CANCELLED, Answer.CLOSED], [Answer.CLOSED, Answer.DONE])
    stored = await a.service.store.load(match_id)
    assert stored is not None and (stored.status == MatchStatus.FINISHED) is (confirm.kind == Answer.DONE)
    await asyncio.sleep(60)
    assert a.lapsed == b.lapsed == [], "answered: it never lapses"


async def test_a_prompt_lapses_once_and_is_then_refused(two: tuple[Process, Process]) -> None:
    a, b = two
    match_id = await a.service.create_match("boxes", PLAYERS, options={"rows": 2, "cols": 2}, guild_id=GUILD)
    grave = a.service.grave(match_id, "2", "resign")
    assert grave is not None
    prompt = await a.confirmations.ask(grave, "2", 1002, guild_id=GUILD)
    await asyncio.sleep(31)
    assert sorted(a.lapsed + b.lapsed) == [prompt.key]
    late = await b.confirmations.answer(match_id, "2", 1002, "2", confirm=True)
    assert late.kind == Answer.LAPSED and late.prompt == prompt
    assert a.service.live[match_id].status == MatchStatus.ONGOING
