"""The tournament service on a real host service and a real database (SQLite file and PostgreSQL)."""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib
import inspect
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.host.events import EventKind, HostEvent
from bot.tournaments.core import TournamentCore
from bot.tournaments.refusals import RefusalCode
from bot.tournaments.rounds import Bye, Format, Game, Result
from bot.tournaments.service import TournamentRefused, TournamentService
from tests.bot.conftest import make_service
from tests.bot.tournaments import OPTIONS, Events, finish_round, join, refused, running, started
from tests.buses import following

pytestmark = pytest.mark.looptime


@pytest.fixture
async def tour(migrated_db_url: str) -> AsyncIterator[tuple[TournamentService, Events]]:
    host = await make_service(migrated_db_url)
    service, events = await started(host)
    yield service, events
    await service.close()  # its jobs runner stops before the database closes
    await host.close()
    await host.store.close()


async def test_swiss_of_five_from_sign_up_to_winner_with_a_withdrawal(tour: tuple[TournamentService, Events]) -> None:
    service, events = tour
    tid = await service.create("Zero's Gambit", "boxes", "swiss", rounds=3, options=OPTIONS, prize="a crown")
    players = await join(service, tid, 5)
    with refused(RefusalCode.ALREADY_JOINED, "already joined"):
        await service.join(tid, "p1", "P1")
    await service.start_tournament(tid, by="host")
    t = await service.get(tid)
    assert (t.status, t.round, t.rounds, len(t.seeds)) == ("running", 1, 3, 5)
    first = (await service.rounds(tid))[0]
    assert isinstance(first[-1], Bye) and len(await running(service, tid)) == 2
    with refused(RefusalCode.ROUND_UNFINISHED, "still has 2 game"):
        await service.pair_next_round(tid)
    await finish_round(service, tid, [Result.WHITE, Result.DRAW])
    t = await service.get(tid)
    assert t.round == 2, "the round ended, so the next was paired by itself"
    await service.leave(tid, players[4], by="p5")  # withdraws: its game (or bye) of round 2 is forfeited
    assert "withdrawn" in events.kinds()
    await finish_round(service, tid, [Result.BLACK, Result.WHITE])
    t = await service.get(tid)
    assert t.round == 3
    rounds = await service.rounds(tid)
    gone = next(e.id for e in await service.entries(tid) if e.player_id == players[4])
    assert any(isinstance(p, Game) and p.forfeit for p in rounds[1]) or Bye(gone) in rounds[1]
    assert all(gone not in ((p.player,) if isinstance(p, Bye) else (p.white, p.black)) for p in rounds[2])
    await finish_round(service, tid, [Result.WHITE, Result.WHITE])
    t = await service.get(tid)
    assert t.status == "finished"
    done = events.last("finished")
    table = await service.standings(tid)
    assert done.data["winner"] == table[0].player and done.data["prize"] == "a crown"
    met = Counter(frozenset((p.white, p.black)) for r in rounds for p in r if isinstance(p, Game))
    assert max(met.values()) == 1
    with refused(RefusalCode.OVER_NO_WITHDRAW, "is over"):
        await service.leave(tid, players[0])


async def test_elimination_tie_is_replayed_with_colours_swapped(tour: tuple[TournamentService, Events]) -> None:
    service, events = tour
    tid = await service.create("DM Colosseum", "boxes", Format.ELIMINATION, options=OPTIONS, prize="glory")
    await join(service, tid, 3)
    await service.start_tournament(tid)
    (semi,) = await running(service, tid)
    await finish_round(service, tid, [Result.DRAW])
    (again,) = await running(service, tid)
    assert (again[1].white, again[1].black) == (semi[1].black, semi[1].white) and again[0] != semi[0]
    assert "rematch" in events.kinds()
    await finish_round(service, tid, [Result.WHITE])
    assert (await service.get(tid)).round == 2
    await finish_round(service, tid, [Result.BLACK])
    t = await service.get(tid)
    assert t.status == "finished"
    names = await service.names(tid)
    assert events.last("finished").data["winner_name"] == names[(await service.standings(tid))[0].player]


async def test_double_round_robin_of_three_gives_byes_and_swaps_colours(tour: tuple[TournamentService, Events]) -> None:
    service, _ = tour
    tid = await service.create("League", "boxes", "double-roundrobin", options=OPTIONS)
    await join(service, tid, 3)
    await service.start_tournament(tid)
    for _ in range(6):
        await finish_round(service, tid, [Result.WHITE])
    t = await service.get(tid)
    assert t.status == "finished" and t.round == 6
    rounds = await service.rounds(tid)
    games = Counter((p.white, p.black) for r in rounds for p in r if isinstance(p, Game))
    assert len(games) == 6 and set(games.values()) == {1}
    assert Counter(p.player for r in rounds for p in r if isinstance(p, Bye)) == Counter({s: 2 for s in t.seeds})


async def test_refusals_change_nothing(tour: tuple[TournamentService, Events]) -> None:
    service, _ = tour
    with refused(RefusalCode.BAD_FORMAT, "format must be one of"):
        await service.create("X", "boxes", "ladder")
    with pytest.raises(TournamentRefused) as info:
        await service.create("X", "boxes", "swiss", options={"rows": 99})
    assert info.value.refusal.kind != "tournament", "the host's own refusal of the options, passed on"
    closes = service.wall() - dt.timedelta(minutes=1)
    late = await service.create("Closed", "boxes", "swiss", options=OPTIONS, signup_closes_at=closes)
    with refused(RefusalCode.SIGNUP_CLOSED_AT, "closed at"):
        await service.join(late, "p1", "P1")
    full = await service.create("Full", "boxes", "roundrobin", options=OPTIONS, max_players=2)
    await join(service, full, 2)
    with refused(RefusalCode.FULL, "is full"):
        await service.join(full, "p3", "P3")
    few = await service.create("Few", "boxes", "swiss", rounds=3, options=OPTIONS)
    await join(service, few, 3)
    with refused(RefusalCode.TOO_FEW, "needs at least 4 players"):
        await service.start_tournament(few)
    assert (await service.get(few)).status == "signup" and not await service.games(few)
    await service.leave(few, "p3")
    assert [e.player_id for e in await service.entries(few)] == ["p1", "p2"]
    rr = await service.create("RR", "boxes", "roundrobin", options=OPTIONS)
    await join(service, rr, 4)
    await service.start_tournament(rr)
    with refused(RefusalCode.SIGNUP_CLOSED, "sign-up for RR is closed"):
        await service.join(rr, "p9", "P9")
    with refused(RefusalCode.ALREADY_STARTED, "already started"):
        await service.start_tournament(rr)


async def test_the_host_adjudicates_a_hanging_match_and_overrides_a_result(
    tour: tuple[TournamentService, Events],
) -> None:
    service, _ = tour
    tid = await service.create("RR", "boxes", "roundrobin", options=OPTIONS)
    await join(service, tid, 4)
    await service.start_tournament(tid)
    await finish_round(service, tid, [Result.WHITE])
    assert (await service.get(tid)).round == 1, "one match still hangs"
    await service.adjudicate(tid, 2, "1/2-1/2", by="host")
    await service.host.drained()  # the award's end is recorded after the commit
    assert (await service.get(tid)).round == 2
    await service.adjudicate(tid, 1, Result.BLACK, by="host", round_=1)
    first = (await service.rounds(tid))[0]
    assert [p.result for p in first if isinstance(p, Game)] == [Result.BLACK, Result.DRAW]
    with refused(RefusalCode.BAD_RESULT, "a result is"):
        await service.adjudicate(tid, 1, "2-0", by="host")


async def test_a_finish_delivered_again_changes_nothing(tour: tuple[TournamentService, Events]) -> None:
    """The results are recorded after the commit, idempotently: the same ends heard a second time (a retry, a
    catch-up, another process) pair nothing again, and a host's decision made meanwhile stands."""
    service, events = tour
    tid = await service.create("Twice", "boxes", "swiss", rounds=3, options=OPTIONS)
    await join(service, tid, 4)
    await service.start_tournament(tid)
    ended = [mid for mid, _ in await running(service, tid)]
    await finish_round(service, tid, [Result.WHITE, Result.WHITE])
    await service.adjudicate(tid, 1, Result.DRAW, by="host", round_=1)  # overrides a finished game
    before = (await service.rounds(tid), await service.games(tid), events.kinds().count("round"))
    assert (await service.get(tid)).round == 2
    await service.on_host_event([HostEvent(mid, EventKind.FINISHED) for mid in ended + ended])
    await service.host.drained()
    assert (await service.rounds(tid), await service.games(tid), events.kinds().count("round")) == before
    assert (await service.rounds(tid))[0][0] == Game(before[0][0][0].white, before[0][0][0].black, Result.DRAW)


async def test_pause_resume_cancel(tour: tuple[TournamentService, Events]) -> None:
    service, events = tour
    tid = await service.create("Paused", "boxes", "roundrobin", options=OPTIONS)
    await join(service, tid, 4)
    await service.start_tournament(tid)
    await service.pause(tid, "host")
    await finish_round(service, tid, [Result.WHITE, Result.WHITE])
    assert (await service.get(tid)).round == 1, "paused: no new round"
    await service.resume(tid, "host")
    assert (await service.get(tid)).round == 2
    playing = await running(service, tid)
    await service.cancel(tid, "host")
    assert (await service.get(tid)).status == "cancelled"
    assert all(mid not in service.host.live for mid, _ in playing)
    with refused(RefusalCode.ALREADY_OVER, "already over"):
        await service.cancel(tid, "host")
    assert events.kinds()[-1] == "cancelled"


async def test_a_round_is_paired_once_from_two_processes_and_survives_a_restart(migrated_db_url: str) -> None:
    host_a = await make_service(migrated_db_url)
    a = TournamentService(TournamentCore(host_a))  # not listening: results are recorded by hand below
    tid = await a.create("Twice", "boxes", "roundrobin", options=OPTIONS)
    await join(a, tid, 4)
    await a.start_tournament(tid)
    entries = {e.id: e for e in await a.entries(tid)}
    for mid, game in await running(a, tid):
        await host_a.resign(mid, entries[game.black].player_id)
        await a.record_match(mid)
    host_b = await make_service(migrated_db_url, heartbeat_seconds=60)
    b = TournamentService(TournamentCore(host_b))
    b.hear = following(host_b)
    outcomes = await asyncio.gather(a.pair_next_round(tid), b.pair_next_round(tid), return_exceptions=True)
    assert sorted(type(o).__name__ for o in outcomes) == ["TournamentRefused", "int"]
    assert [g.round for g in await a.games(tid)].count(2) == 2
    await host_b.close()
    await host_b.store.close()
    # the first process goes away mid-round; a new one resumes the matches and the tournament goes on
    await host_a.close()
    await host_a.store.close()
    host_c = await make_service(migrated_db_url)
    c = TournamentService(TournamentCore(host_c))
    c.hear = following(host_c)
    await c.start()
    try:
        assert len(await running(c, tid)) == 2
        await finish_round(c, tid, [Result.WHITE, Result.BLACK])
        assert (await c.get(tid)).round == 3
    finally:
        await c.close()  # its jobs runner stops before the database closes
        await host_c.close()
        await host_c.store.close()


def test_the_service_is_a_facade_over_collaborators_not_parents() -> None:
    """Issue 46: the service and each of its collaborators inherit nothing (lila's round module: objects given
    their dependencies once, not a chain of parents)."""
    import bot.tournaments as package

    classes = [
        cls
        for path in sorted(Path(package.__path__[0]).glob("*.py"))
        for cls in vars(importlib.import_module(f"bot.tournaments.{path.stem}")).values()
        if isinstance(cls, type) and cls.__module__ == f"bot.tournaments.{path.stem}"
    ]
    collaborators = [cls for cls in classes if "core" in inspect.signature(cls.__init__).parameters]
    assert {cls.__name__ for cls in collaborators} >= {"Timer", "Opening", "Advancer", "Registration", "Due"}
    assert [cls for cls in [TournamentService, *collaborators] if cls.__bases__ != (object,)] == []
