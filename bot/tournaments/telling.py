"""What a terminal tournament command says it did (`here`: who is in; `start`: who was dropped; `pause`:
that it paused), from the tournament events the command caused."""

from __future__ import annotations

import shlex
from typing import Any

from bot.opserrors import shown_url
from bot.tournaments.service import TournamentEvent, TournamentEventKind, TournamentService


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
        elif ev.kind == TournamentEventKind.WITHDRAWN:
            out.append(f"{d['name']} withdrew from {t.name}; their remaining games are forfeited.")
    return out
