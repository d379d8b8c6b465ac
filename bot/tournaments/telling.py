"""Which tournament events a terminal tournament command says (those it caused, and what fell due since the
last command: `DUE`, a no-show ruled, a player withdrawn for a missed game); the lines are worded in
`bot.wording.tournament_terminal`."""

from __future__ import annotations

from bot.tournaments.service import TournamentEvent, TournamentEventKind

DUE: tuple[str, ...] = (TournamentEventKind.NO_SHOW, TournamentEventKind.WITHDRAWN)
"""Kinds said even when they fell due as the command opened (a no-show ruled, a withdrawal at a pairing)."""


class BadName(ValueError):
    """A player name `join` cannot take (see `bot.playernames`)."""


def of_tournament(events: list[TournamentEvent], tid: int) -> list[TournamentEvent]:
    """The events of tournament `tid` among those heard (a command hears them on the bus)."""
    return [ev for ev in events if ev.tournament_id == tid]
