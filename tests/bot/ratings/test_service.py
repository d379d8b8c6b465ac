"""Rating finished matches from the store, and rebuilding every table from the stored matches."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import bindparam, update

from bot.ratings.models import PlayerRating
from bot.ratings.service import PRACTICE_IDS, RatedMatch, Ratings, apply_match, replay
from bot.store.db import Match
from bot.store.matches import MatchStore, NewEvent
from tests.bot.ratings.helpers import stored_match

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


@pytest.fixture
async def store(migrated_db_url: str) -> AsyncIterator[MatchStore]:
    s = MatchStore(migrated_db_url)
    await s.open()
    try:
        yield s
    finally:
        await s.close()


def test_replay_makes_the_very_figures_of_rating_one_match_at_a_time() -> None:
    """The rebuild's loop and the subscriber's `apply_match` share their arithmetic: equal to the last bit,
    over long gaps (deviations grow, some to the cap), draws, streaks, two servers and the terminal room."""
    rnd = random.Random(3)
    at = T0
    matches = []
    for i in range(1, 3001):
        at += dt.timedelta(seconds=rnd.expovariate(1 / 50_000), microseconds=rnd.randrange(1_000_000))
        one, two = rnd.sample(range(30), 2)
        guild = rnd.choice([0, 111])
        matches.append(
            RatedMatch(
                i, guild, rnd.choice(["boxes", "trax"]), at, ((f"p{one}", f"n{one}"), (f"p{two}", f"n{two}")),
                rnd.choice([1.0, 0.0, 0.5]),
            )
        )  # fmt: skip
    one_by_one: dict[Any, Any] = {}
    changes = [c for m in matches for c in apply_match(one_by_one, m)]
    table, replayed = replay(matches)
    assert replayed == changes
    assert table == one_by_one
    last: dict[tuple[int, str, str], float] = {}
    grew = 0
    for c in changes:
        key = (c.guild_key, c.game, c.player_id)
        grew += key in last and c.deviation_before > last[key] + 1
        last[key] = c.deviation_after
    assert grew > 100


def test_the_practice_opponents_id_is_the_terminal_rooms() -> None:
    from bot.adapters.practice import BOT_ID

    assert BOT_ID in PRACTICE_IDS


async def test_a_finished_match_is_rated_once(store: MatchStore) -> None:
    ratings = Ratings(store)
    mid = await stored_match(store, "alice", "bob", winner=1, at=T0)
    first = await ratings.settle(mid)
    again = await ratings.settle(mid)
    assert first is not None and first == again
    alice, bob = first.changes
    assert (alice.name, bob.name) == ("alice", "bob")
    assert alice.before == bob.before == 1500.0
    assert alice.delta == pytest.approx(-bob.delta) and alice.delta > 100
    assert alice.provisional and bob.provisional
    standing = await ratings.standing(1, "boxes", "p:alice")
    assert standing is not None and (standing.games, standing.wins, standing.streak, standing.rank) == (1, 1, 1, 1)
    assert await ratings.count(1, "boxes") == 2


async def test_what_is_not_rated(store: MatchStore) -> None:
    ratings = Ratings(store)
    casual = await stored_match(store, "alice", "bob", winner=1, rated=False)
    aborted = await stored_match(store, "alice", "bob", winner=None, status="aborted")
    practice = await store.create_match(
        game="boxes",
        options={},
        clock={},
        status="ongoing",
        players={1: ("p:alice", "alice"), 2: ("local:dmhost-bot", "dmhost (hard)")},
        guild_id=None,
        channel_id=None,
        snapshot={},
        events=[NewEvent("created")],
    )
    await store.write_batch(practice, 1, [NewEvent("finished", 1)], snapshot={}, status="finished", winner_seat=1)
    for mid in (casual, aborted, practice):
        assert await ratings.settle(mid) is None
    assert await ratings.table(1) == [] and await ratings.table(None) == []
    assert await ratings.settle(10_000) is None  # no such match


async def test_award_forfeit_and_draw_count(store: MatchStore) -> None:
    ratings = Ratings(store)
    await ratings.settle(await stored_match(store, "alice", "bob", winner=2, reason="award", at=T0))
    await ratings.settle(await stored_match(store, "alice", "bob", winner=1, reason="forfeit", at=T0 + dt.timedelta(1)))
    await ratings.settle(
        await stored_match(store, "alice", "bob", winner=None, reason="award", at=T0 + dt.timedelta(2))
    )
    alice = await ratings.standing(1, "boxes", "p:alice")
    assert alice is not None and (alice.games, alice.wins, alice.losses, alice.draws, alice.streak) == (3, 1, 1, 1, 0)


async def test_streaks(store: MatchStore) -> None:
    ratings = Ratings(store)
    for i, winner in enumerate([1, 1, 1, 2, 2]):
        await ratings.settle(await stored_match(store, "alice", "bob", winner=winner, at=T0 + dt.timedelta(hours=i)))
    alice = await ratings.standing(1, "boxes", "p:alice")
    bob = await ratings.standing(1, "boxes", "p:bob")
    assert alice is not None and bob is not None and (alice.streak, bob.streak) == (-2, 2)


async def test_servers_games_and_the_terminal_room_keep_separate_tables(store: MatchStore) -> None:
    ratings = Ratings(store)
    await ratings.settle(await stored_match(store, "alice", "bob", winner=1, guild=1, at=T0))
    await ratings.settle(await stored_match(store, "alice", "bob", winner=2, guild=2, at=T0))
    await ratings.settle(await stored_match(store, "alice", "bob", winner=2, guild=1, game="trax", at=T0))
    await ratings.settle(await stored_match(store, "carol", "dave", winner=1, guild=None, at=T0))
    one = {s.player_id: s for s in await ratings.leaderboard(1, "boxes")}
    two = {s.player_id: s for s in await ratings.leaderboard(2, "boxes")}
    assert one["p:alice"].rating > 1500 > two["p:alice"].rating
    assert [s.player_id for s in await ratings.table(None)] == ["p:carol", "p:dave"]
    assert {s.game for s in await ratings.table(1)} == {"boxes", "trax"}
    assert await ratings.games_of(2, "p:alice") == ["boxes"]


async def test_seed_order_and_advantage(store: MatchStore) -> None:
    ratings = Ratings(store)
    for i in range(3):
        await ratings.settle(await stored_match(store, "alice", "bob", winner=1, at=T0 + dt.timedelta(hours=i)))
    await ratings.settle(await stored_match(store, "bob", "carol", winner=1, at=T0 + dt.timedelta(hours=4)))
    order = await ratings.seed_order(1, "boxes", ["p:new", "p:carol", "p:bob", "p:alice"])
    assert order[0] == "p:alice" and order[-1] == "p:carol"
    assert await ratings.advantage_seat(1, "boxes", ["p:alice", "p:bob"], "lower-rated") == 2
    assert await ratings.advantage_seat(1, "boxes", ["p:alice", "p:bob"], "higher-rated") == 1
    assert await ratings.advantage_seat(1, "boxes", ["p:x", "p:y"], "lower-rated") == 1  # both unrated
    with pytest.raises(ValueError, match="lower-rated"):
        await ratings.advantage_seat(1, "boxes", ["p:alice", "p:bob"], "older")


async def test_seeding_and_advantage_first_rate_the_players_matches_still_queued(store: MatchStore) -> None:
    """The ratings run after the commit: a match that ended a moment ago may wait in their queue. Seeding and
    the advantage read the players' ratings only after rating those matches (and only theirs)."""
    ratings = Ratings(store)
    for i in range(2):  # finished, never handed to the ratings (their batch has not come)
        await stored_match(store, "bob", "alice", winner=1, at=T0 + dt.timedelta(hours=i))
    other = await stored_match(store, "carol", "dan", winner=1, at=T0 + dt.timedelta(hours=3))
    assert await ratings.seed_order(1, "boxes", ["p:alice", "p:bob"]) == ["p:bob", "p:alice"]
    assert await ratings.advantage_seat(1, "boxes", ["p:bob", "p:alice"], "lower-rated") == 2
    standing = await ratings.standing(1, "boxes", "p:bob")
    assert standing is not None and standing.games == 2, "each of bob's matches rated once"
    assert await ratings.of_match(other) is None, "a match of other players waits for its batch"
    assert await ratings.settle_many([other]) == 1


async def test_profile_recent_results_history_and_head_to_head(store: MatchStore) -> None:
    ratings = Ratings(store)
    plan = [("alice", "bob", 1), ("alice", "carol", 2), ("bob", "alice", None)] * 5
    for i, (a, b, winner) in enumerate(plan):
        await ratings.settle(await stored_match(store, a, b, winner=winner, at=T0 + dt.timedelta(hours=i), channel=i))
    (p,) = await ratings.profile(1, "p:alice", versus="p:bob")
    assert p.standing.games == 15 and len(p.history) == 15 and len(p.recent) == 10
    assert p.head_to_head == (5, 0, 5)
    newest = p.recent[0]
    assert (newest.opponent, newest.score, newest.channel_id) == ("bob", 0.5, 14)
    assert newest.rating_after == pytest.approx(p.history[-1][1]) == pytest.approx(p.standing.rating)
    assert await ratings.profile(1, "p:nobody") == []


async def test_a_match_rated_after_a_later_one_recomputes_its_table(store: MatchStore) -> None:
    """Two results committed at once can reach the subscriber in either order: the table ends the same."""
    ratings = Ratings(store)
    early = await stored_match(store, "alice", "bob", winner=1, at=T0)
    late = await stored_match(store, "bob", "alice", winner=1, at=T0 + dt.timedelta(minutes=1))
    await ratings.settle(late)
    await ratings.settle(early)
    assert (await ratings.rebuild()).as_json() == {"matches": 2, "changed": 0}
    alice = await ratings.standing(1, "boxes", "p:alice")
    assert alice is not None and alice.streak == -1  # the later match was her loss


async def test_catch_up_rates_what_ended_unheard_in_order(store: MatchStore) -> None:
    ratings = Ratings(store)
    first = await stored_match(store, "alice", "bob", winner=1, at=T0)
    await stored_match(store, "alice", "bob", winner=2, at=T0 + dt.timedelta(hours=1))
    await stored_match(store, "alice", "bob", winner=1, rated=False, at=T0 + dt.timedelta(hours=2))
    await stored_match(store, "carol", "dave", winner=1, guild=2, at=T0)
    assert await ratings.catch_up(owns=lambda guild: guild == 1) == 2  # another process hosts server 2
    assert await ratings.table(2) == []
    assert await ratings.catch_up() == 1
    assert await ratings.catch_up() == 0
    assert (await ratings.rebuild()).as_json() == {"matches": 3, "changed": 0}
    assert (await ratings.settle(first)) == (await ratings.of_match(first))


async def test_rebuild_repairs_a_tampered_table(store: MatchStore) -> None:
    ratings = Ratings(store)
    for i in range(4):
        await ratings.settle(await stored_match(store, "alice", "bob", winner=1 + i % 2, at=T0 + dt.timedelta(hours=i)))
    async with store.engine.begin() as conn:
        await conn.execute(update(PlayerRating).where(PlayerRating.player_id == "p:bob").values(rating=3000.0))
    assert (await ratings.rebuild()).as_json() == {"matches": 4, "changed": 1}
    assert (await ratings.rebuild()).as_json() == {"matches": 4, "changed": 0}
    bob = await ratings.standing(1, "boxes", "p:bob")
    assert bob is not None and bob.rating < 2000


async def _random_history(store: MatchStore, ratings: Ratings, n: int, seed: int) -> int:
    """`n` matches across two servers, the terminal room and three games, ending over a year and a half
    (so deviations grow between matches): wins, draws, awards, forfeits, aborted, casual and practice.
    Stored through the match store; they end a hundred at a time, and after each hundred a few are rated
    one by one as the subscriber does (two of them swapped) and the rest by `catch_up`."""
    rnd = random.Random(seed)
    people = [f"m{i}" for i in range(40)]
    ids: list[int] = []
    results: list[dict[str, Any]] = []
    at = T0
    for _ in range(n):
        at += dt.timedelta(seconds=rnd.expovariate(1 / 20_000))
        one, two = rnd.sample(people, 2)
        kind = rnd.random()
        two_id = "local:dmhost-bot" if kind < 0.02 else f"p:{two}"  # the practice opponent of the terminal room
        winner = rnd.choice([1, 2, 1, 2, None])
        ids.append(
            await store.create_match(
                game=rnd.choice(["boxes", "trax", "dots"]),
                options={},
                clock={},
                status="ongoing",
                players={1: (f"p:{one}", one), 2: (two_id, two)},
                guild_id=rnd.choice([111, 222, None]),
                channel_id=1,
                snapshot={},
                events=[NewEvent("created")],
                rated=not 0.05 <= kind < 0.08,
            )
        )
        results.append(
            {
                "b_id": ids[-1],
                "b_status": "aborted" if 0.02 <= kind < 0.05 else "finished",
                "b_at": at,
                "b_winner": winner,
                "b_reason": rnd.choice(["score", "resign", "time", "award", "forfeit"]),
            }
        )
    end = (
        update(Match)
        .where(Match.id == bindparam("b_id"))
        .values(
            status=bindparam("b_status"),
            finished_at=bindparam("b_at"),
            winner_seat=bindparam("b_winner"),
            result_reason=bindparam("b_reason"),
        )
    )
    rated = 0
    for start in range(0, n, 100):
        async with store.engine.begin() as conn:
            await conn.execute(end, results[start : start + 100])
        one_by_one = ids[start : start + 5]
        one_by_one[1], one_by_one[2] = one_by_one[2], one_by_one[1]
        for mid in one_by_one:
            rated += (await ratings.settle(mid)) is not None
        rated += await ratings.catch_up()
    return rated


async def test_rebuild_equals_the_stored_tables_after_a_random_history(migrated_sqlite_url: str) -> None:
    store = MatchStore(migrated_sqlite_url)
    await store.open()
    try:
        ratings = Ratings(store, clock=lambda: T0 + dt.timedelta(days=800))
        rated = await _random_history(store, ratings, 2000, seed=30)
        stored = {(s.guild, s.game, s.player_id): s for g in (111, 222, None) for s in await ratings.table(g)}
        report = await ratings.rebuild()
        assert report.changed == 0, report.by_table
        assert report.matches == rated and 1800 < rated < 1900  # aborted, casual and practice matches left out
        assert {(s.guild, s.game, s.player_id): s for g in (111, 222, None) for s in await ratings.table(g)} == stored
        assert sum(s.games for s in stored.values()) == 2 * report.matches
    finally:
        await store.close()


async def test_rebuild_equals_the_stored_tables_on_both_databases(store: MatchStore) -> None:
    ratings = Ratings(store)
    rated = await _random_history(store, ratings, 150, seed=7)
    assert (await ratings.rebuild()).as_json() == {"matches": rated, "changed": 0}
