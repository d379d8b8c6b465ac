"""Pairing: against caissify-pairings' own Berger tables and Dutch first rounds, and properties over field sizes."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from caissify_pairings import generate_pairings
from caissify_pairings.engines.round_robin import berger_schedule
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.tournaments.pairing import (
    berger_round,
    bracket_order,
    bracket_size,
    elimination_first_round,
    elimination_progress,
    records,
    round_robin_rounds,
    swiss_round,
)
from bot.tournaments.rounds import Bye, Format, Game, PairingError, Result, players_of
from bot.tournaments.simulate import simulate


def _library_round(system: str, n: int, round_number: int, total: int, **options: object) -> list[Game | Bye]:
    players = [
        {
            "id": i,
            "name": f"p{i}",
            "score": 0.0,
            "rating": 3000 - i,
            "starting_number": i,
            "color_hist": [],
            "float_history": [],
            "bye_count": 0,
        }
        for i in range(1, n + 1)
    ]
    out = generate_pairings(system, players, set(), round_number, total, **options)
    return [Bye(p["white_id"]) if p.get("bye") else Game(p["white_id"], p["black_id"]) for p in out]


@pytest.mark.parametrize("n", range(2, 31, 2))
def test_berger_tables_match_the_library(n: int) -> None:
    assert [berger_round(n, r) for r in range(1, n)] == berger_schedule(n)


@pytest.mark.parametrize(("n", "cycles"), [(n, c) for n in range(2, 13) for c in (1, 2)])
def test_round_robin_matches_the_library_engine(n: int, cycles: int) -> None:
    ours = round_robin_rounds(list(range(1, n + 1)), cycles)
    total = len(ours)
    for r, rnd in enumerate(ours, start=1):
        theirs = _library_round("round_robin", n, r, total, cycles=cycles)
        assert Counter(rnd) == Counter(theirs), (n, cycles, r)


@pytest.mark.parametrize("n", range(2, 41))
def test_swiss_round_one_matches_the_library_dutch(n: int) -> None:
    ours = swiss_round(list(range(1, n + 1)), [])
    assert Counter(ours) == Counter(_library_round("dutch", n, 1, 9))


def _check_swiss(n: int, out: dict[str, object]) -> None:
    met: set[frozenset[int]] = set()
    byes: Counter[int] = Counter()
    colours: dict[int, list[str]] = {p: [] for p in range(1, n + 1)}
    rounds = out["rounds"]
    assert isinstance(rounds, list)
    for rnd in rounds:
        seen: list[int] = []
        assert sum("bye" in p for p in rnd) <= 1, "one bye per round at most"
        for p in rnd:
            if "bye" in p:
                byes[p["bye"]] += 1
                seen.append(p["bye"])
                continue
            pair = frozenset((p["white"], p["black"]))
            assert pair not in met, f"repeat pairing {sorted(pair)}"
            met.add(pair)
            colours[p["white"]].append("W")
            colours[p["black"]].append("B")
            seen += [p["white"], p["black"]]
        assert sorted(seen) == list(range(1, n + 1)), "everyone plays or sits out once per round"
    assert max(byes.values(), default=0) <= 1, "one bye per player at most"
    for player, cs in colours.items():
        assert abs(cs.count("W") - cs.count("B")) <= 2, (player, cs)


@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(2, 26),
    rounds=st.integers(1, 25),
    seed=st.integers(0, 10**6),
    draws=st.sampled_from([0.0, 0.2, 0.6, 1.0]),
)
def test_swiss_properties(n: int, rounds: int, seed: int, draws: float) -> None:
    rounds = min(rounds, n - 1)
    out, note = simulate(Format.SWISS, n, rounds, seed, draws)
    _check_swiss(n, out)
    played = len(out["rounds"])  # type: ignore[arg-type]
    assert played == rounds or note is not None
    if rounds <= max(1, n // 4):
        assert played == rounds, "a short Swiss is always paired to the end"


def test_swiss_bye_goes_to_the_lowest_ranked_without_one() -> None:
    history = [[Game(1, 3, Result.WHITE), Game(4, 2, Result.BLACK), Bye(5)]]
    pairing = swiss_round([1, 2, 3, 4, 5], history)
    assert pairing[-1] == Bye(4)  # 4 and 3 have 0 points; 4 is the lower seed; 5 had the bye
    again = swiss_round([1, 2, 3, 4, 5], history, bye_points=0.5)
    assert again[-1] == Bye(4, 0.5)


def test_swiss_avoids_a_third_colour_in_a_row_and_a_repeat() -> None:
    history = [
        [Game(1, 2, Result.WHITE), Game(3, 4, Result.WHITE)],
        [Game(1, 3, Result.DRAW), Game(4, 2, Result.DRAW)],
    ]
    assert records(history)[1].colours == "WW"
    pairing = swiss_round([1, 2, 3, 4], history)
    assert Counter(pairing) == Counter([Game(4, 1), Game(2, 3)])


def test_swiss_refuses_a_field_that_cannot_be_paired() -> None:
    with pytest.raises(PairingError):
        swiss_round([1, 2], [[Game(1, 2, Result.DRAW)]])
    with pytest.raises(PairingError):
        swiss_round([1, 1], [])


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 21), double=st.booleans(), seed=st.integers(0, 1000))
def test_round_robin_properties(n: int, double: bool, seed: int) -> None:
    fmt = Format.DOUBLE_ROUND_ROBIN if double else Format.ROUND_ROBIN
    out, note = simulate(fmt, n, None, seed, 0.3)
    assert note is None
    games: Counter[tuple[int, int]] = Counter()
    byes: Counter[int] = Counter()
    for rnd in out["rounds"]:  # type: ignore[attr-defined]
        for p in rnd:
            if "bye" in p:
                byes[p["bye"]] += 1
            else:
                games[p["white"], p["black"]] += 1
    for a, b in itertools.combinations(range(1, n + 1), 2):
        if double:
            assert games[a, b] == 1 and games[b, a] == 1, "twice, colours swapped"
        else:
            assert games[a, b] + games[b, a] == 1, "once"
    cycles = 2 if double else 1
    assert sum(games.values()) == cycles * n * (n - 1) // 2
    assert byes == (Counter({p: cycles for p in range(1, n + 1)}) if n % 2 else Counter())


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 40), seed=st.integers(0, 1000), draws=st.sampled_from([0.0, 0.5, 0.9]))
def test_elimination_properties(n: int, seed: int, draws: float) -> None:
    out, note = simulate(Format.ELIMINATION, n, None, seed, draws)
    assert note is None
    size = bracket_size(n)
    assert size >= n > size // 2 or n == size
    rounds = out["rounds"]
    assert isinstance(rounds, list) and len(rounds) == (size - 1).bit_length()
    first = rounds[0]
    assert sorted(p["bye"] for p in first if "bye" in p) == list(range(1, size - n + 1)), "byes to the top seeds"
    alive = set(range(1, n + 1))
    for rnd in rounds:
        last: dict[frozenset[int], dict[str, int]] = {}
        for p in rnd:
            key = frozenset([p["bye"]]) if "bye" in p else frozenset((p["white"], p["black"]))
            if key in last and "bye" not in p:
                assert (p["white"], p["black"]) == (last[key]["black"], last[key]["white"]), "rematch swaps colours"
            last[key] = p
            assert key <= alive
        assert len(last) * 2 == len(alive) + sum(len(k) == 1 for k in last)
        alive = {s["player"] for s in out["standings"][: len(last)]}  # type: ignore[index]
    champion = out["standings"][0]  # type: ignore[index]
    assert champion["tiebreaks"]["reached"] == len(rounds) + 1


def test_bracket_order_keeps_the_top_seeds_apart() -> None:
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert elimination_first_round([10, 20, 30, 40, 50, 60]) == [
        Bye(10),
        Game(40, 50),
        Bye(20),
        Game(30, 60),
    ]


def test_a_drawn_elimination_game_needs_a_rematch_with_colours_swapped() -> None:
    progress = elimination_progress([Game(1, 4, Result.DRAW), Game(2, 3, Result.BLACK)])
    assert progress.rematches == [Game(4, 1)] and progress.winners == [3] and not progress.decided
    done = elimination_progress([Game(1, 4, Result.DRAW), Game(2, 3, Result.BLACK), Game(4, 1, Result.WHITE)])
    assert done.decided and done.winners == [4, 3]
    assert players_of(Bye(7)) == (7,)
