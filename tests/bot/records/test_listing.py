"""The review pages' lists, read through `Listings`: a server's live and recent matches (its own rows only, the
newest finished first), the private rooms' matches left out, and whether a match's analysis is stored."""

from __future__ import annotations

from typing import Any

from bot.compose import build_readers
from bot.host.service import MatchService, PlayerRef
from bot.records.analysis_store import save_analysis
from tests.bot.conftest import Recorder

FINISH = ["A1-B1", "A2-B2", "A1-A2", "B1-B2"]
"""1×1 Boxes: the second player closes the box."""


async def _play(service: MatchService, guild: int | None, names: tuple[str, str], moves: list[str], **kw: Any) -> int:
    a, b = PlayerRef(f"p-{names[0]}", names[0]), PlayerRef(f"p-{names[1]}", names[1])
    mid = await service.create_match("boxes", [a, b], options={"rows": 1, "cols": 1}, guild_id=guild, **kw)
    live = service.get(mid)
    for text in moves:
        seat = live.ruleset.to_move(live.state)
        assert (await service.submit(mid, live.players[seat].id, text)).status == "accepted"
    return mid


async def test_a_server_lists_its_own_live_and_recent_matches_without_the_private_ones(
    host: tuple[MatchService, Recorder],
) -> None:
    service, _rec = host
    hidden_done = await _play(service, 7, ("carl", "dora"), FINISH, private=True)
    done = [await _play(service, 7, (f"a{i}", f"b{i}"), FINISH, private=False) for i in range(3)]
    live = await _play(service, 7, ("emma", "finn"), FINISH[:1], private=False)
    hidden_live = await _play(service, 7, ("gus", "hana"), FINISH[:1], private=True)
    other = await _play(service, 8, ("ivy", "jack"), FINISH, private=False)
    terminal = await _play(service, None, ("kim", "lou"), FINISH)
    listings = build_readers(service.store).listings
    listed = await listings.of_guild(7, recent=2)
    assert [m.id for m in listed.live] == [live]
    assert [m.id for m in listed.recent] == [done[2], done[1]]  # the newest first, `recent` at most
    assert [m.id for m in (await listings.of_guild(7, recent=10)).recent] == done[::-1]  # not `hidden_done`
    assert hidden_live not in [m.id for m in listed.live]
    assert [m.id for m in (await listings.of_guild(8, recent=10)).recent] == [other]
    assert [m.id for m in (await listings.of_guild(0, recent=10)).recent] == [terminal]  # guild 0: no server
    stored = [await service.store.load(i) for i in (hidden_done, live, hidden_live)]
    assert await listings.hidden([m for m in stored if m is not None]) == {hidden_done, hidden_live}


async def test_an_analysis_is_seen_once_it_is_stored(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await _play(service, None, ("ann", "ben"), FINISH)
    listings = build_readers(service.store).listings
    assert not await listings.analysed(mid)
    await save_analysis(service.store, mid, [{"ply": 1, "seat": 1, "move": "A1-B1"}])
    assert await listings.analysed(mid)
