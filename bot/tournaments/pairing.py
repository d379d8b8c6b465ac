"""Pairing rules: round robin (Berger tables), Swiss (score groups, no repeats, colours balanced), single elimination.

Pure functions on player numbers: a field is a sequence of player ids in seed order (index 0 is the
top seed); a history is the rounds already paired. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from bot.tournaments.rounds import Bye, Game, Pairing, PairingError, Result, Round

WHITE = "W"
BLACK = "B"
MAX_COLOUR_DIFFERENCE = 2
SWISS_SEARCH_BUDGET = 5_000


# ---------------------------------------------------------------- round robin


def berger_round(n: int, round_number: int) -> list[tuple[int, int]]:
    """Round `round_number` (1..n-1) of the Berger table for an even `n`: (white, black) pairing numbers.

    Numbers 1..n-1 sit on a circle and `n` is fixed: in round r the one whose double is r+1 (mod n-1)
    meets `n` (White in odd rounds), and the others meet their mirror image around it, the one after
    it on the circle taking White.
    """
    if n < 2 or n % 2:
        raise ValueError(f"a Berger table needs an even number of players, not {n}")
    if not 1 <= round_number <= n - 1:
        raise ValueError(f"round {round_number} is outside 1..{n - 1}")
    m = n - 1
    if m == 1:
        return [(1, 2)]
    anchor = (round_number + 1) * ((m + 1) // 2) % m or m
    pairs = [(anchor, n) if round_number % 2 else (n, anchor)]
    for i in range(1, n // 2):
        pairs.append(((anchor - 1 + i) % m + 1, (anchor - 1 - i) % m + 1))
    return pairs


def round_robin_rounds(players: Sequence[int], cycles: int = 1, bye_points: float = 1.0) -> list[list[Pairing]]:
    """Every round of a (double when `cycles` is 2) round robin; an odd field gives a bye each round.

    The second cycle repeats the first with colours swapped.
    """
    if len(players) < 2:
        raise PairingError("a round robin needs at least 2 players")
    if len(set(players)) != len(players):
        raise PairingError("a player is entered twice")
    n = len(players) + len(players) % 2
    first: list[list[Pairing]] = []
    for r in range(1, n):
        pairings: list[Pairing] = []
        byes: list[Pairing] = []
        for white, black in berger_round(n, r):
            if black > len(players):
                byes.append(Bye(players[white - 1], bye_points))
            elif white > len(players):
                byes.append(Bye(players[black - 1], bye_points))
            else:
                pairings.append(Game(players[white - 1], players[black - 1]))
        first.append(pairings + byes)
    rounds = [list(r) for r in first]
    for cycle in range(1, cycles):
        for rnd in first:
            rounds.append([_swapped(p) if isinstance(p, Game) and cycle % 2 else p for p in rnd])
    return rounds


def _swapped(game: Game) -> Game:
    return Game(game.black, game.white)


# ---------------------------------------------------------------- Swiss


@dataclass
class PlayerRecord:
    """What pairing needs to know of one player after the rounds so far."""

    score: float = 0.0
    colours: str = ""
    opponents: set[int] = field(default_factory=set)
    byes: int = 0
    colour_difference: int = 0  # whites minus blacks


def records(history: Iterable[Round]) -> dict[int, PlayerRecord]:
    """Score, colours, opponents and byes of every player who appears in `history`."""
    out: dict[int, PlayerRecord] = {}
    for rnd in history:
        for p in rnd:
            if isinstance(p, Bye):
                rec = out.setdefault(p.player, PlayerRecord())
                rec.byes += 1
                rec.score += p.points
                continue
            w = out.setdefault(p.white, PlayerRecord())
            b = out.setdefault(p.black, PlayerRecord())
            w.opponents.add(p.black)
            b.opponents.add(p.white)
            w.score += p.points(p.white)
            b.score += p.points(p.black)
            if not p.forfeit:
                w.colours += WHITE
                b.colours += BLACK
                w.colour_difference += 1
                b.colour_difference -= 1
    return out


def colour_allowed(rec: PlayerRecord, colour: str, strict: bool) -> bool:
    """Whether `rec` may get `colour`: difference stays within 2; `strict` also forbids a third in a row."""
    diff = rec.colour_difference + (1 if colour == WHITE else -1)
    if abs(diff) > MAX_COLOUR_DIFFERENCE:
        return False
    return not (strict and rec.colours[-2:] == colour * 2)


def _preference(rec: PlayerRecord) -> tuple[str | None, int]:
    """The colour a player is due, and how strongly (0 = none)."""
    diff = rec.colour_difference
    repeat = 2 if len(rec.colours) >= 2 and rec.colours[-1] == rec.colours[-2] else 0
    if diff:
        return (BLACK if diff > 0 else WHITE), 2 + abs(diff) + repeat
    if rec.colours:
        return (BLACK if rec.colours[-1] == WHITE else WHITE), 1 + repeat
    return None, 0


def _colours(top: PlayerRecord, other: PlayerRecord, table: int, strict: bool) -> bool | None:
    """True when `top` (the higher ranked) takes White, False for Black, None when no colours are allowed."""
    top_white = colour_allowed(top, WHITE, strict) and colour_allowed(other, BLACK, strict)
    top_black = colour_allowed(top, BLACK, strict) and colour_allowed(other, WHITE, strict)
    if not (top_white or top_black):
        return None
    if top_white != top_black:
        return top_white
    (pa, sa), (pb, sb) = _preference(top), _preference(other)
    if pa is not None and (pb is None or pa != pb or sa >= sb):
        return pa == WHITE
    if pb is not None:
        return pb == BLACK
    return table % 2 == 0


class _OutOfBudget(Exception):
    pass


class _Budget:
    def __init__(self, nodes: int) -> None:
        self.left = nodes

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise _OutOfBudget


def _match(
    remaining: list[int],
    recs: Mapping[int, PlayerRecord],
    prefs: Mapping[int, str | None],
    strict: bool,
    budget: _Budget,
) -> list[tuple[int, int]] | None:
    """Pair `remaining` (in rank order) top-down: each top player meets its mirror in its score group first.

    A depth-first search with its own stack (a field of thousands would exhaust Python's recursion): each
    level pairs the top player left, trying its candidates in preference order, and backtracks when the
    players below cannot all be paired."""
    frames: list[tuple[int, list[int], list[int]]] = []  # (top, rest, candidate indices left to try)
    path: list[tuple[int, int]] = []
    rem = remaining
    while True:
        if not rem:
            return path
        top, rest = rem[0], rem[1:]
        frames.append((top, rest, _candidates(top, rest, recs, prefs, strict)))
        while True:
            top, rest, left = frames[-1]
            if left:
                i = left.pop(0)
                budget.spend()
                path.append((top, rest[i]))
                rem = rest[:i] + rest[i + 1 :]
                break
            frames.pop()
            if not frames:
                return None
            path.pop()


def _candidates(
    top: int, rest: list[int], recs: Mapping[int, PlayerRecord], prefs: Mapping[int, str | None], strict: bool
) -> list[int]:
    """The indices in `rest` that `top` may meet, best first: its score group from the mirror outwards
    (a colour conflict last), then lower groups by score distance."""
    rt = recs[top]
    pref = prefs[top]
    group = [q for q in rest if recs[q].score == rt.score]
    mirror = (len(group) + 1) // 2 - 1

    def conflict(q: int) -> int:
        return int(pref is not None and prefs[q] == pref)

    ordered = sorted(range(len(group)), key=lambda i: (conflict(group[i]), abs(i - mirror) + (i < mirror) / 2))
    lower = sorted(
        (i for i in range(len(group), len(rest))),
        key=lambda i: (rt.score - recs[rest[i]].score, conflict(rest[i]), i),
    )
    return [
        i
        for i in [*ordered, *lower]
        if rest[i] not in rt.opponents and _colours(rt, recs[rest[i]], 0, strict) is not None
    ]


def swiss_round(
    players: Sequence[int],
    history: Sequence[Round],
    bye_points: float = 1.0,
    budget: int = SWISS_SEARCH_BUDGET,
) -> list[Pairing]:
    """Pair the next Swiss round of `players` (the active field, in seed order) after `history`.

    Hard rules: nobody meets an opponent twice, nobody's whites and blacks differ by more than 2, at most
    one bye, given to the lowest-ranked player who has had none. Preferred: players meet their own score
    group, top half against bottom half, each gets the colour due, nobody gets a colour three times in a
    row. Raises PairingError when the hard rules cannot be met (the search is bounded by `budget` nodes).
    """
    if len(players) < 2:
        raise PairingError("a Swiss round needs at least 2 players")
    if len(set(players)) != len(players):
        raise PairingError("a player is entered twice")
    seed = {p: i for i, p in enumerate(players)}
    known = records(history)
    recs = {p: known.get(p, PlayerRecord()) for p in players}
    ranked = sorted(players, key=lambda p: (-recs[p].score, seed[p]))
    prefs = {p: _preference(recs[p])[0] for p in players}
    bye_candidates: list[int | None] = [None]
    if len(ranked) % 2:
        bye_candidates = [p for p in reversed(ranked) if recs[p].byes == 0]
        if not bye_candidates:
            raise PairingError("every player has already had a bye")
    for strict in (True, False):
        counter = _Budget(budget)
        try:
            for bye in bye_candidates:
                pairs = _match([p for p in ranked if p != bye], recs, prefs, strict, counter)
                if pairs is not None:
                    return _seat(pairs, bye, recs, bye_points)
        except _OutOfBudget:
            continue
    pairs, bye = _max_matching(ranked, recs)
    return _seat(pairs, bye, recs, bye_points)


def _seat(
    pairs: list[tuple[int, int]], bye: int | None, recs: Mapping[int, PlayerRecord], bye_points: float
) -> list[Pairing]:
    """Colours for each pair (the third colour in a row only when nothing else is allowed), then the bye."""
    out: list[Pairing] = []
    for table, (top, other) in enumerate(pairs):
        top_white = _colours(recs[top], recs[other], table, True)
        if top_white is None:
            top_white = _colours(recs[top], recs[other], table, False)
        out.append(Game(top, other) if top_white else Game(other, top))
    if bye is not None:
        out.append(Bye(bye, bye_points))
    return out


def _max_matching(ranked: list[int], recs: Mapping[int, PlayerRecord]) -> tuple[list[tuple[int, int]], int | None]:
    """The exact fallback when the search runs out: a maximum-weight perfect matching over the allowed games.

    Weights prefer opponents of close score (then close rank) and the bye for the lowest ranked; no
    perfect matching means the round cannot be paired under the hard rules at all.
    """
    import networkx as nx  # type: ignore[import-untyped]

    rank = {p: i for i, p in enumerate(ranked)}
    top = 10**9
    graph = nx.Graph()
    graph.add_nodes_from(ranked)
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            if b in recs[a].opponents or _colours(recs[a], recs[b], 0, False) is None:
                continue
            gap = 2 * (recs[a].score - recs[b].score)
            graph.add_edge(a, b, weight=top - int(gap * gap) * 1000 - (rank[b] - rank[a]))
    bye_node = -1
    if len(ranked) % 2:
        for p in ranked:
            if recs[p].byes == 0:
                graph.add_edge(p, bye_node, weight=top - int((2 * recs[p].score) ** 2) * 1000 - (len(ranked) - rank[p]))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) < len(ranked) + len(ranked) % 2:
        raise PairingError("every pairing left would repeat a game or unbalance colours")
    bye: int | None = None
    pairs: list[tuple[int, int]] = []
    for a, b in matching:
        if bye_node in (a, b):
            bye = a if b == bye_node else b
        else:
            pairs.append((a, b) if rank[a] < rank[b] else (b, a))
    pairs.sort(key=lambda pair: rank[pair[0]])
    return pairs, bye


# ---------------------------------------------------------------- single elimination


def bracket_size(players: int) -> int:
    """The smallest power of two holding `players`."""
    size = 1
    while size < players:
        size *= 2
    return size


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order, so that seeds 1 and 2 can only meet in the final."""
    order = [1]
    while len(order) < size:
        twice = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, twice - seed)]
    return order


def elimination_rounds(players: int) -> int:
    """How many rounds a single elimination of `players` takes."""
    return max(1, (bracket_size(players) - 1).bit_length())


def elimination_first_round(players: Sequence[int], bye_points: float = 1.0) -> list[Pairing]:
    """Round 1 of a single elimination seeded in `players` order; byes go to the top seeds."""
    if len(players) < 2:
        raise PairingError("an elimination needs at least 2 players")
    if len(set(players)) != len(players):
        raise PairingError("a player is entered twice")
    order = bracket_order(bracket_size(len(players)))
    out: list[Pairing] = []
    for a, b in zip(order[::2], order[1::2], strict=True):
        high, low = min(a, b), max(a, b)
        if low > len(players):
            out.append(Bye(players[high - 1], bye_points))
        else:
            out.append(Game(players[high - 1], players[low - 1]))
    return out


@dataclass(frozen=True)
class EliminationProgress:
    """Where an elimination round stands: who went through, which ties need a rematch, what still runs."""

    winners: list[int]
    rematches: list[Game]
    unfinished: list[Game]

    @property
    def decided(self) -> bool:
        """Every pairing of the round has a winner."""
        return not self.rematches and not self.unfinished


TIE_REPLAYS: Final = 1
"""How many times a drawn elimination pairing is replayed (colours swapped) before the decider: the higher
seed advances. Without an end, two players who always draw (practice bots on a small board) would replay
for ever (seeds/rules/tournaments.md)."""


def elimination_progress(round_: Round) -> EliminationProgress:
    """Read one elimination round in bracket order. A drawn pairing is replayed once with colours swapped; if
    that game is drawn too, the higher seed advances (White of the pairing's first game: the better seed
    always has White there)."""
    last: dict[frozenset[int], Pairing] = {}
    first_white: dict[frozenset[int], int] = {}
    draws: dict[frozenset[int], int] = {}
    for p in round_:
        key = frozenset((p.player,)) if isinstance(p, Bye) else frozenset((p.white, p.black))
        last[key] = p
        if isinstance(p, Game):
            first_white.setdefault(key, p.white)
            draws[key] = draws.get(key, 0) + (p.result is Result.DRAW)
    winners: list[int] = []
    rematches: list[Game] = []
    unfinished: list[Game] = []
    for key, p in last.items():
        if isinstance(p, Bye):
            winners.append(p.player)
        elif p.result is None:
            unfinished.append(p)
        elif p.result is Result.DRAW and draws[key] > TIE_REPLAYS:
            winners.append(first_white[key])  # the decider: the higher seed goes through
        elif p.result is Result.DRAW:
            rematches.append(_swapped(p))
        else:
            winner = p.winner
            assert winner is not None
            winners.append(winner)
    return EliminationProgress(winners, rematches, unfinished)


def elimination_next_round(winners: Sequence[int], seeds: Sequence[int]) -> list[Pairing]:
    """The next elimination round: winners in bracket order meet in twos, the better seed with White."""
    if len(winners) < 2 or len(winners) % 2:
        raise PairingError(f"{len(winners)} winners cannot make an elimination round")
    rank = {p: i for i, p in enumerate(seeds)}
    out: list[Pairing] = []
    for a, b in zip(winners[::2], winners[1::2], strict=True):
        out.append(Game(a, b) if rank.get(a, len(rank)) <= rank.get(b, len(rank)) else Game(b, a))
    return out
