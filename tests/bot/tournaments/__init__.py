"""Tests of the tournament service, its pairing core and its terminal commands, and what they share: a refusal
check, the events a service published, a service started on a host, a field of players, a round's games played
out."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from bot.host.service import MatchService
from bot.tournaments.core import TournamentCore
from bot.tournaments.refusals import RefusalCode, TournamentRefused
from bot.tournaments.rounds import Game, Result
from bot.tournaments.service import TournamentEvent, TournamentService
from bot.wording import error_text
from tests.buses import following

OPTIONS = {"rows": 2, "cols": 2}
"""The board of the tournaments' games: Boxes on 2×2."""


@contextlib.contextmanager
def refused(code: RefusalCode, words: str) -> Iterator[None]:
    """The block is refused with `code`, and the sentence a user reads says `words`."""
    with pytest.raises(TournamentRefused) as info:
        yield
    assert info.value.code == code, error_text(info.value)
    assert words in error_text(info.value)


class Events(list[TournamentEvent]):
    """What a tournament service published, in order (set as its `publish`)."""

    def __call__(self, ev: TournamentEvent) -> None:
        self.append(ev)

    def kinds(self) -> list[str]:
        return [e.kind for e in self]

    def of(self, kind: str) -> list[TournamentEvent]:
        return [e for e in self if e.kind == kind]

    def last(self, kind: str) -> TournamentEvent:
        return self.of(kind)[-1]


async def started(host: MatchService, **kw: Any) -> tuple[TournamentService, Events]:
    """A tournament service on `host` (`kw`: its other collaborators, e.g. its `wall` clock), following the host's
    bus as the root sets it, publishing into a fresh `Events`, started."""
    service = TournamentService(TournamentCore(host, **kw))
    service.hear = following(host)
    events = Events()
    service.publish = events
    await service.start()
    return service, events


async def join(service: TournamentService, tid: int, n: int) -> list[str]:
    """Players p1 … pN (named P1 … PN) join tournament `tid`, in that order; their ids."""
    players = [f"p{i}" for i in range(1, n + 1)]
    for p in players:
        await service.join(tid, p, p.upper())
    return players


async def running(service: TournamentService, tid: int) -> list[tuple[int, Game]]:
    """(match id, game) of the current round's games still being played."""
    t = await service.get(tid)
    out = []
    for g in await service.games(tid):
        if g.round == t.round and isinstance(g.pairing, Game) and g.pairing.result is None:
            assert g.match_id and g.match_id in service.host.live, "every game of the round has its match open"
            out.append((g.match_id, g.pairing))
    return out


async def finish_round(service: TournamentService, tid: int, results: list[Result]) -> None:
    """End the running matches through the host (resignations, a host's draw) in board order."""
    host: MatchService = service.host
    entries = {e.id: e for e in await service.entries(tid)}
    for (mid, game), result in zip(await running(service, tid), results, strict=False):
        if result is Result.DRAW:
            await host.award(mid, None, "host")
        else:
            loser = game.black if result is Result.WHITE else game.white
            await host.resign(mid, entries[loser].player_id)
    await host.drained()  # the tournament hears the results after the commit, off the move path
