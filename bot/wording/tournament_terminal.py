"""What a terminal tournament command says it did, one line per tournament event (`bot.tournaments.telling`
gathers the events and who is in)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from bot.tournaments.model import TournamentEventKind


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "nobody"


def checked_in(name: str, tournament: str, here: Sequence[str], absent: Sequence[str]) -> str:
    """A player checked in for the tournament, with who is here and who is not yet."""
    return f"{name} is checked in for {tournament}. Here ({len(here)}): {_listed(here)}; not yet: {_listed(absent)}."


def event_line(kind: str, tournament: str, tid: int, round_number: int, d: Mapping[str, Any], db: str) -> str | None:
    """The line of one event but a check-in (`d`: its data; `db`: the database as `--db` takes it, shell-quoted);
    None for an event not said in the terminal."""
    if kind == TournamentEventKind.GAME_CHECKED_IN:
        return f"{d['name']} is checked in for their game of round {round_number} of {tournament}."
    if kind == TournamentEventKind.STARTED:
        removed, left = list(d.get("removed") or []), list(d.get("left") or [])
        line = f"{tournament} has started with {d['players']} players."
        if removed:
            line += f" Dropped for not checking in: {', '.join(removed)}."
        if left:
            line += f" Dropped for leaving: {', '.join(left)}."
        return line
    if kind == TournamentEventKind.PAUSED:
        again = f"dmhost tournament resume {tid} --db {db}"
        return f"{tournament} is paused: games already open go on; no new round is paired until `{again}`."
    if kind == TournamentEventKind.RESUMED:
        return f"{tournament} is resumed: the next round is paired when this one is over."
    if kind == TournamentEventKind.WITHDRAWN and d.get("missed") is not None:
        return (
            f"{d['name']} is withdrawn from {tournament} for missing their round {d['missed']} game "
            "without confirming they play on."
        )
    if kind == TournamentEventKind.WITHDRAWN:
        return f"{d['name']} withdrew from {tournament}; their remaining games are forfeited."
    if kind == TournamentEventKind.NO_SHOW:
        line = (
            f"{tournament}, round {d['round']} board {d['board']}: {d['winner_name']} wins by no-show "
            f"({d['absent_name']} did not check in)."
        )
        if d.get("confirm"):  # lichess's rule (`--missed withdraw`)
            stay = shlex.join(["dmhost", "tournament", "stay", str(tid), str(d["absent"])])
            line += (
                f" {d['absent_name']} is withdrawn before the next round unless they confirm they play on: "
                f"`{stay} --db {db}`."
            )
        return line
    if kind == TournamentEventKind.STAYS:
        return f"{d['name']} plays on in {tournament} after missing their round {d['round']} game."
    return None
