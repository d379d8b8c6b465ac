"""`dmhost tournament simulate`: a whole tournament on random results through the real pairing and standings."""

from __future__ import annotations

import random
from dataclasses import replace

from bot.tournaments.progress import check_field, next_round, rematches
from bot.tournaments.rounds import Format, Game, Pairing, PairingError, Result, to_json
from bot.tournaments.standings import standings

MAX_PLAYERS = 1024


def _play(game: Game, rng: random.Random, draws: float) -> Game:
    if game.result is not None:
        return game
    if rng.random() < draws:
        return replace(game, result=Result.DRAW)
    return replace(game, result=Result.WHITE if rng.random() < 0.5 else Result.BLACK)


def play_out(
    fmt: Format, players: int, rounds: int | None = None, seed: int = 0, draws: float = 0.0
) -> tuple[list[list[Pairing]], str | None]:
    """Every round of a simulated tournament of players 1..N (seed order), and a note when it stopped early.

    Raises ValueError (one sentence) on arguments the format does not take.
    """
    if not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"--players must be 2 to {MAX_PLAYERS}, not {players}")
    if not 0.0 <= draws <= 1.0:
        raise ValueError(f"--draws is a probability from 0 to 1, not {draws:g}")
    total = check_field(fmt, players, rounds)
    rng = random.Random(seed)
    field = list(range(1, players + 1))
    history: list[list[Pairing]] = []
    note = None
    while True:
        try:
            pairings = next_round(fmt, field, field, history, total)
        except PairingError as exc:
            note = f"round {len(history) + 1} cannot be paired ({exc}); the tournament ends after {len(history)}"
            break
        if pairings is None:
            break
        history.append([p if not isinstance(p, Game) else _play(p, rng, draws) for p in pairings])
        while again := rematches(fmt, history):
            history[-1] = [*history[-1], *(_play(g, rng, draws) for g in again)]
    return history, note


def simulate(
    fmt: Format, players: int, rounds: int | None = None, seed: int = 0, draws: float = 0.0
) -> tuple[dict[str, object], str | None]:
    """The contract's JSON for a simulated tournament, and a note when it had to stop early."""
    history, note = play_out(fmt, players, rounds, seed, draws)
    table = standings(list(range(1, players + 1)), history, fmt)
    out: dict[str, object] = {
        "rounds": [[to_json(p) for p in rnd] for rnd in history],
        "standings": [s.to_json() for s in table],
    }
    return out, note
