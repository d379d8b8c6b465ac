"""What a terminal tournament command says it did (`here`: who is in; `start`: who was dropped; `pause`:
that it paused; `stay`: who plays on), from the tournament events the command caused, and what fell due
since the last command (`DUE`: a no-show ruled, a player withdrawn for a missed game)."""

from __future__ import annotations

import shlex
from typing import Any

from bot.opserrors import shown_url
from bot.tournaments.service import TournamentEvent, TournamentEventKind, TournamentService

DUE: tuple[str, ...] = (TournamentEventKind.NO_SHOW, TournamentEventKind.WITHDRAWN)
"""Kinds said even when they fell due as the command opened (a no-show ruled, a withdrawal at a pairing)."""


class BadName(ValueError):
    """A player name `join` cannot take (see `bot.playernames`)."""


def of_tournament(events: list[TournamentEvent], tid: int) -> list[TournamentEvent]:
    """The events of tournament `tid` among those heard (a command hears them on the bus)."""
    return [ev for ev in events if ev.tournament_id == tid]


def _listed(names: list[str]) -> str:
    return ", ".join(names) if names else "nobody"


async def lines(service: TournamentService, tid: int, told: list[TournamentEvent], url: str) -> list[str]:
    """One line per event worth saying in the terminal."""
    t = await service.get(tid)
    out: list[str] = []
    for ev in told:
        d: dict[str, Any] = ev.data
        if ev.kind == TournamentEventKind.CHECKED_IN:
            entries = [e for e in await service.entries(tid) if not e.withdrawn]
            here = [e.name for e in entries if e.checked_in]
            absent = [e.name for e in entries if not e.checked_in]
            out.append(
                f"{d['name']} is checked in for {t.name}. Here ({len(here)}): {_listed(here)}; "
                f"not yet: {_listed(absent)}."
            )
        elif ev.kind == TournamentEventKind.GAME_CHECKED_IN:
            out.append(f"{d['name']} is checked in for their game of round {t.round} of {t.name}.")
        elif ev.kind == TournamentEventKind.STARTED:
            removed, left = list(d.get("removed") or []), list(d.get("left") or [])
            line = f"{t.name} has started with {d['players']} players."
            if removed:
                line += f" Dropped for not checking in: {', '.join(removed)}."
            if left:
                line += f" Dropped for leaving: {', '.join(left)}."
            out.append(line)
        elif ev.kind == TournamentEventKind.PAUSED:
            again = f"dmhost tournament resume {tid} --db {shlex.quote(shown_url(url))}"
            out.append(f"{t.name} is paused: games already open go on; no new round is paired until `{again}`.")
        elif ev.kind == TournamentEventKind.RESUMED:
            out.append(f"{t.name} is resumed: the next round is paired when this one is over.")
        elif ev.kind == TournamentEventKind.WITHDRAWN and d.get("missed") is not None:
            out.append(
                f"{d['name']} is withdrawn from {t.name} for missing their round {d['missed']} game "
                "without confirming they play on."
            )
        elif ev.kind == TournamentEventKind.WITHDRAWN:
            out.append(f"{d['name']} withdrew from {t.name}; their remaining games are forfeited.")
        elif ev.kind == TournamentEventKind.NO_SHOW:
            line = (
                f"{t.name}, round {d['round']} board {d['board']}: {d['winner_name']} wins by no-show "
                f"({d['absent_name']} did not check in)."
            )
            if d.get("confirm"):  # lichess's rule (`--missed withdraw`)
                stay = shlex.join(["dmhost", "tournament", "stay", str(tid), str(d["absent"])])
                line += (
                    f" {d['absent_name']} is withdrawn before the next round unless they confirm they play on: "
                    f"`{stay} --db {shlex.quote(shown_url(url))}`."
                )
            out.append(line)
        elif ev.kind == TournamentEventKind.STAYS:
            out.append(f"{d['name']} plays on in {t.name} after missing their round {d['round']} game.")
    return out
