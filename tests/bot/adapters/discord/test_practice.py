"""`/dm practice`: a member plays the practice opponent in Discord; practice stays out of `/dm history`."""

from __future__ import annotations

import pytest

from tests.bot.adapters.discord.conftest import World, answer, board_of


@pytest.fixture(autouse=True)
def quick_opponent(monkeypatch: pytest.MonkeyPatch) -> None:
    """The opponent thinks briefly (the solver is compiled by the `solver_compiled` fixture)."""
    monkeypatch.setenv("DMHOST_BOT_BUDGET", "0.2")


async def test_practice_boxes_perfect_plays_a_whole_match(world: World) -> None:
    w = world
    result = await w.alice.slash(
        w.lobby, "dm practice", game="boxes", level="perfect", options="rows=2 cols=2", room="channel"
    )
    text = answer(result).content
    assert "Practice match" in text and "perfect" in text, text
    match_id = int(text.split()[2])
    live = w.bot.service.live[match_id]
    me = str(w.bot.user.id)  # type: ignore[union-attr]
    assert live.players[1].id == str(w.alice.id) and live.players[2].id == me
    # alice plays the first legal edge she finds; the opponent answers every time it is its turn
    for _ in range(40):
        if match_id not in w.bot.service.live:
            break
        assert live.ruleset.to_move(live.state) == 1, "the opponent never leaves its turn unplayed"
        move = live.ruleset.format(live.state, live.ruleset.legal_moves(live.state)[0])
        await w.alice.send(w.lobby, move)
    assert match_id not in w.bot.service.live
    stored = await w.bot.service.store.load(match_id, with_events=True)
    assert stored is not None and stored.status == "finished"
    bot_moves = [e for e in stored.events if e.kind == "move" and e.seat == 2]
    assert bot_moves, "the practice opponent moved"
    assert stored.winner_seat == 2  # perfect play wins against first-legal-edge play on 2x2
    assert "Result:" in board_of(w, w.lobby, match_id).content

    # recorded, but out of /dm history unless asked for
    hidden = answer(await w.alice.slash(w.lobby, "dm history"))
    assert "no matches" in hidden.content
    shown = answer(await w.alice.slash(w.lobby, "dm history", practice=True))
    assert f"#{match_id}" in (shown.embeds[0].description or "")


async def test_practice_refuses_an_unknown_level_privately(world: World) -> None:
    w = world
    r = answer(await w.alice.slash(w.lobby, "dm practice", game="boxes", level="impossible"))
    assert r.ephemeral and "impossible" in r.content and "perfect" in r.content
    assert w.bot.service.live == {} and w.lobby.threads == []
