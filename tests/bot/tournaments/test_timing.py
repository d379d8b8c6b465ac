"""Timed tournaments on a real host service and database (SQLite file and PostgreSQL), on looptime's clock:
the check-in before the start, the automatic start, per-game check-in and no-shows, round times, rated
tournaments feeding ratings, and each game's match opened once by two processes racing."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import func, select, update

from bot.compose import Stage
from bot.host.service import MatchService
from bot.jobs import JobQueue
from bot.ratings.models import PlayerRating
from bot.ratings.service import Ratings
from bot.schedule import loop_wall
from bot.store.db import Match
from bot.tournaments.core import TournamentCore
from bot.tournaments.refusals import RefusalCode
from bot.tournaments.rounds import Bye, Game, Result
from bot.tournaments.service import OPENING, STALE_S, TournamentService
from bot.tournaments.tables import GAMES
from bot.tournaments.timer import job_key
from bot.wording import refusal_text
from tests.bot.conftest import make_service
from tests.bot.tournaments import OPTIONS, join, refused, started
from tests.buses import following, hear

pytestmark = pytest.mark.looptime

MIN = 60.0


@pytest.fixture
async def host(migrated_db_url: str) -> AsyncIterator[MatchService]:
    service = await make_service(migrated_db_url, heartbeat_seconds=86400.0)
    yield service
    await service.close()
    await service.store.close()


async def _round_games(service: TournamentService, tid: int) -> list[tuple[int, Game, int | None]]:
    """(game id, pairing, match id) of the current round's games."""
    t = await service.get(tid)
    return [
        (g.id, g.pairing, g.match_id)
        for g in await service.games(tid)
        if g.round == t.round and isinstance(g.pairing, Game)
    ]


async def _pid(service: TournamentService, tid: int, entry: int) -> str:
    return next(e.player_id for e in await service.entries(tid) if e.id == entry)


async def test_check_in_automatic_start_and_a_no_show(host: MatchService) -> None:
    service, events = await started(host, wall=loop_wall())
    try:
        start = service.wall() + dt.timedelta(minutes=30)
        tid = await service.create(
            "Night", "boxes", "roundrobin", options=OPTIONS, starts_at=start, checkin_s=900, no_show_s=600
        )
        await join(service, tid, 5)
        with refused(RefusalCode.CHECKIN_EARLY, "check-in of Night opens at"):
            await service.check_in(tid, "p1")
        await asyncio.sleep(16 * MIN)
        for p in ("p1", "p2", "p3", "p4"):
            await service.check_in(tid, p)
        with refused(RefusalCode.ALREADY_HERE, "already checked in"):
            await service.check_in(tid, "p1")
        with refused(RefusalCode.NOT_JOINED, "not joined"):
            await service.check_in(tid, "p9")
        assert (await service.get(tid)).status == "signup"
        await asyncio.sleep(14 * MIN + 1)  # the start time: nobody clicks anything
        t = await service.get(tid)
        assert (t.status, t.round, len(t.seeds)) == ("running", 1, 4), "started by itself"
        assert events.of("started")[0].data["removed"] == ["P5"], "absent from the check-in: removed before round 1"
        games = await _round_games(service, tid)
        assert len(games) == 2 and all(mid is None for _, _, mid in games), "the matches wait for their players"
        (g1, p1, _), (g2, p2, _) = games
        await service.check_in_game(g1, await _pid(service, tid, p1.white))
        with refused(RefusalCode.NOT_IN_GAME, "do not play"):
            await service.check_in_game(g1, await _pid(service, tid, p2.white))
        opened = await service.check_in_game(g1, await _pid(service, tid, p1.black))
        assert opened.match_id and opened.match_id in host.live, "both here: the match opens at once"
        await service.check_in_game(g2, await _pid(service, tid, p2.black))
        await asyncio.sleep(9 * MIN)
        assert [mid for gid, _, mid in await _round_games(service, tid) if gid == g2] == [None]
        await asyncio.sleep(1 * MIN + 1)  # White of board 2 is still absent 10 minutes after the start
        (ruled,) = events.of("no_show")
        assert (ruled.data["winner_name"], ruled.data["absent_name"]) == (
            next(e.name for e in await service.entries(tid) if e.id == p2.black),
            next(e.name for e in await service.entries(tid) if e.id == p2.white),
        )
        (g,) = [g for g in await service.games(tid) if g.id == g2]
        assert isinstance(g.pairing, Game) and (g.pairing.result, g.pairing.forfeit) == (Result.BLACK, True)
        stored = await host.record(ruled.data["match"])
        assert stored is not None and (stored.status, stored.result_reason, stored.winner_seat) == (
            "finished",
            "no_show",
            2,
        )
    finally:
        await service.close()


async def test_neither_player_came_the_clocks_decide(host: MatchService) -> None:
    service, events = await started(host, wall=loop_wall())
    try:
        tid = await service.create("Empty", "boxes", "roundrobin", options=OPTIONS, no_show_s=300)
        await join(service, tid, 2)
        await service.start_tournament(tid)
        await asyncio.sleep(5 * MIN + 1)
        ((_, _, mid),) = await _round_games(service, tid)
        assert mid and mid in host.live and not events.of("no_show"), "nobody here: the match opens anyway"
    finally:
        await service.close()


async def test_too_few_at_the_start_time_cancels(host: MatchService) -> None:
    service, events = await started(host, wall=loop_wall())
    try:
        tid = await service.create(
            "Lonely", "boxes", "swiss", options=OPTIONS, starts_at=service.wall() + dt.timedelta(minutes=5)
        )
        await join(service, tid, 1)
        await asyncio.sleep(5 * MIN + 1)
        assert (await service.get(tid)).status == "cancelled"
        why = events.of("cancelled")[0].data["refusal"]
        assert (why.code, why.data["need"], why.data["joined"]) == (RefusalCode.TOO_FEW, 2, 1)
        assert refusal_text(why) == "Lonely needs at least 2 players to start; 1 joined"
    finally:
        await service.close()


async def test_rounds_start_at_their_scheduled_times(host: MatchService) -> None:
    service, _ = await started(host, wall=loop_wall())
    try:
        tid = await service.create("Weekly", "boxes", "roundrobin", options=OPTIONS, round_every_s=3600)
        players = await join(service, tid, 4)
        await service.start_tournament(tid)
        t0 = service.wall()
        for _gid, game, mid in await _round_games(service, tid):
            assert mid is not None
            await host.resign(mid, players[[e.id for e in await service.entries(tid)].index(game.black)])
        await host.drained()  # the results are recorded after the commit
        t = await service.get(tid)
        assert t.round == 2, "round 2 is paired as soon as round 1 ends"
        games = await _round_games(service, tid)
        assert all(mid is None for _, _, mid in games), "its matches wait for the round's time"
        starts = {g.starts_at for g in await service.games(tid) if g.round == 2}
        assert len(starts) == 1 and abs(((starts.pop() or t0) - t0).total_seconds() - 3600) < 5
        await asyncio.sleep(3600 - 60)
        assert all(mid is None for _, _, mid in await _round_games(service, tid))
        await asyncio.sleep(60 + 5)
        assert all(mid and mid in host.live for _, _, mid in await _round_games(service, tid))
    finally:
        await service.close()


async def test_a_rated_tournament_feeds_ratings_and_a_bye_does_not(host: MatchService) -> None:
    ratings = Ratings(host.store)
    hear(host, ratings.on_finished, Stage.RECORD)
    service, _ = await started(host, wall=loop_wall())
    try:
        rated = await service.create("Rated", "boxes", "roundrobin", options=OPTIONS, rated=True)
        players = await join(service, rated, 3)
        casual = await service.create("Casual", "boxes", "roundrobin", options=OPTIONS)
        for p in ("c1", "c2"):
            await service.join(casual, p, p.upper())
        await service.start_tournament(rated)
        await service.start_tournament(casual)
        (bye,) = [p for p in (await service.rounds(rated))[0] if isinstance(p, Bye)]
        ids = [e.id for e in await service.entries(rated)]
        for tid in (rated, casual):
            for _gid, game, mid in await _round_games(service, tid):
                assert mid is not None
                loser = next(e.player_id for e in await service.entries(tid) if e.id == game.black)
                await host.resign(mid, loser)
        await host.drained()  # the ratings rate after the commit, in their own task
        async with host.store.engine.connect() as conn:
            rows = (await conn.execute(select(PlayerRating.player_id, PlayerRating.games))).all()
        by_player = dict(rows)
        assert players[ids.index(bye.player)] not in by_player, "a bye is no rated game"
        assert sorted(by_player.values()) == [1, 1] and not {"c1", "c2"} & set(by_player), "casual: not rated"
    finally:
        await service.close()


async def _count_matches(host: MatchService) -> int:
    async with host.store.engine.connect() as conn:
        return int((await conn.execute(select(func.count()).select_from(Match))).scalar_one())


async def test_two_processes_racing_open_each_match_once(migrated_db_url: str) -> None:
    host_a = await make_service(migrated_db_url, heartbeat_seconds=86400.0)
    host_b = await make_service(migrated_db_url, heartbeat_seconds=86400.0)
    a = TournamentService(TournamentCore(host_a, wall=loop_wall(), instance="a"))
    a.hear = following(host_a)
    b = TournamentService(TournamentCore(host_b, wall=loop_wall(), instance="b"))
    b.hear = following(host_b)
    try:
        tid = await a.create("Race", "boxes", "swiss", rounds=1, options=OPTIONS, no_show_s=600)
        await join(a, tid, 8)
        await a.start_tournament(tid)
        games = await _round_games(a, tid)
        assert len(games) == 4 and await _count_matches(host_a) == 0
        async with host_a.store.engine.begin() as conn:  # everyone checks in (as the rooms would record it)
            await conn.execute(update(GAMES).values(here_white=a.wall(), here_black=a.wall()))
        for _ in range(3):
            await asyncio.gather(a.run_due(), b.run_due(), a.catch_up(), b.catch_up())
        stored = await a.games(tid)
        mids = [g.match_id for g in stored if isinstance(g.pairing, Game)]
        assert all(mids) and len(set(mids)) == 4 and await _count_matches(host_a) == 4, "each match opened once"
        assert sum(m in host_a.live for m in mids) + sum(m in host_b.live for m in mids) == 4

        # a process claimed a game, created its match and stopped before noting it: the next one keeps that match
        tid2 = await a.create("Crash", "boxes", "roundrobin", options=OPTIONS)
        await join(a, tid2, 2)
        async with host_a.store.engine.begin() as conn:
            top = (await conn.execute(select(func.max(Match.id)))).scalar_one()
        before = await _count_matches(host_a)
        await a.start_tournament(tid2)
        ((gid, _game, mid),) = await _round_games(a, tid2)
        assert mid and await _count_matches(host_a) == before + 1
        async with host_a.store.engine.begin() as conn:
            await conn.execute(
                update(GAMES)
                .where(GAMES.c.id == gid)
                .values(
                    match_id=OPENING,
                    opening_by="gone",
                    opening_at=a.wall() - dt.timedelta(seconds=STALE_S + 1),
                    opening_after=top,
                )
            )
        await asyncio.gather(a.run_due(), b.run_due())
        ((_, _, again),) = await _round_games(a, tid2)
        assert again == mid and await _count_matches(host_a) == before + 1, "found, not opened twice"
    finally:
        for s in (a, b):
            await s.close()
        for h in (host_a, host_b):
            await h.close()
            await h.store.close()


async def test_a_start_time_passed_while_no_process_ran_starts_it_on_return(migrated_db_url: str) -> None:
    host = await make_service(migrated_db_url, heartbeat_seconds=86400.0)
    wall = loop_wall()  # one wall clock for both processes
    service = TournamentService(TournamentCore(host, wall=wall))
    service.hear = following(host)
    tid = await service.create(
        "Away", "boxes", "roundrobin", options=OPTIONS, starts_at=service.wall() + dt.timedelta(minutes=10)
    )
    await join(service, tid, 4)
    await host.close()
    await host.store.close()
    await asyncio.sleep(20 * MIN)  # no process runs over the start time
    host = await make_service(migrated_db_url, heartbeat_seconds=86400.0)
    again, events = await started(host, wall=wall)
    try:
        await asyncio.sleep(1)
        t = await again.get(tid)
        assert (t.status, t.round) == ("running", 1) and len(events.of("started")) == 1
        assert all(mid and mid in host.live for _, _, mid in await _round_games(again, tid))
    finally:
        await again.close()
        await host.close()
        await host.store.close()


async def test_a_tournaments_times_are_jobs_of_the_one_jobs_runner(host: MatchService) -> None:
    """The automatic start and a game's no-show ruling are rows of the jobs table, run by a runner the service
    is given (the one a process shares with its other features): due at the tournament's next time, put again
    for the next one after each run, dropped when nothing more falls due by itself."""
    wall = loop_wall()
    jobs = JobQueue(host.store.engine, clock=wall)
    service, events = await started(host, wall=wall, jobs=jobs)
    jobs.start()
    try:
        start = service.wall() + dt.timedelta(minutes=30)
        tid = await service.create("Jobs", "boxes", "roundrobin", options=OPTIONS, starts_at=start, no_show_s=600)
        job = await jobs.get(job_key(tid))
        assert job is not None and (job.kind, job.due, job.done) == ("tournament", start, False)
        await join(service, tid, 2)
        await asyncio.sleep(30 * MIN + 1)  # the job's time: it starts the tournament, and is put again
        assert (await service.get(tid)).status == "running" and len(events.of("started")) == 1
        ((gid, pairing, mid),) = await _round_games(service, tid)
        assert mid is None, "the match waits for its players"
        job = await jobs.get(job_key(tid))
        assert job is not None and not job.done and job.due == start + dt.timedelta(seconds=600), "the no-show"
        await service.check_in_game(gid, await _pid(service, tid, pairing.white))
        await asyncio.sleep(10 * MIN)  # the other never comes: ruled by the job, and the tournament is over
        assert len(events.of("no_show")) == 1 and (await service.get(tid)).status == "finished"
        job = await jobs.get(job_key(tid))
        assert job is not None and job.done, "nothing more falls due: the job is dropped"
    finally:
        await service.close()
        await jobs.close()
