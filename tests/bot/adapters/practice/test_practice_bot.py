"""The practice opponent at the table: a full room match of every game against `hard`, and its duties
(colour choice, penalty picks, who starts) through the real host service, on looptime clocks."""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
from pathlib import Path

import pytest

from bot.adapters.practice import BOT_ID, PracticeBot, budget_from_env
from bot.adapters.terminal.room import Room, RoomConfig
from bot.compose import Stage, build_host
from bot.host.service import HostEvent, PlayerRef
from bot.store.db import sqlite_url_for
from games.opponents import pick
from tests.bot.conftest import Recorder, make_service
from tests.buses import bus_of, hear

pytestmark = pytest.mark.looptime

SEED = int(os.environ.get("DMHOST_TEST_SEED", "11"))
NODES = {"boxes": 2000, "pathing": 60, "dotdash": 8, "dots": 60, "trax": 100}
"""The bot's work budget per move (positions searched), per game: its moves do not depend on the
machine's speed."""
ROOM_GAMES: dict[str, dict[str, str]] = {
    "boxes": {"rows": "2", "cols": "2"},
    "pathing": {"max_rounds": "3"},
    "dotdash": {"size": "9"},
    "dots": {"width": "8", "height": "8"},
    "trax": {},
}


@pytest.mark.parametrize("game", list(ROOM_GAMES))
async def test_full_room_match_against_hard(tmp_path: Path, game: str) -> None:
    config = RoomConfig(
        db_url=sqlite_url_for(tmp_path / "room.db"),
        game=game,
        players=["alice"],
        options=ROOM_GAMES[game],
        events_json=True,
        bot_level="hard",
    )
    out = io.StringIO()
    room = Room(config, build_host(config.db_url), out=out)
    assert room.bot is not None
    room.bot.nodes = NODES[game]
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    rng = random.Random(SEED)

    def alice_plays(ev: HostEvent) -> None:
        # Alice answers every turn of hers with a random legal move, typed into the room.
        live = room.service.live.get(ev.match_id)
        if live is None or live.status != "ongoing" or ev.kind not in ("started", "turn"):
            return
        seat = live.ruleset.to_move(live.state)
        if seat is not None and live.players[seat].id != BOT_ID:
            move = pick(live.ruleset, live.state, "random", rng)
            lines.put_nowait("alice: " + live.ruleset.format(live.state, move))

    hear(room.service, alice_plays, Stage.FOLLOW)
    assert await asyncio.wait_for(room.run(lines), 3600) == 0, f"seed {SEED}"
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert events[-1]["event"] == "finished", (f"seed {SEED}", events[-3:])
    bot_moves = [e for e in events if e["event"] in ("move", "provisional") and e.get("seat") == 2]
    assert bot_moves, f"seed {SEED}"
    assert not [e for e in events if e["event"] in ("illegal", "rejected", "hint")], f"seed {SEED}"
    assert events[-1]["winner"] == "dmhost (hard)", (f"seed {SEED}", events[-1])
    if game == "dotdash":
        assert bot_moves[0]["move"] in ("take red", "take blue")


async def test_bot_chooses_who_starts_when_it_has_the_advantage(migrated_sqlite_url: str) -> None:
    rec = Recorder()
    service = await make_service(migrated_sqlite_url, rec)
    bot = PracticeBot(service, "medium", bus=bus_of(service), nodes=NODES["pathing"], seed=SEED)
    try:
        mid = await service.create_match(
            "pathing", [PlayerRef("local:al", "al"), PlayerRef(BOT_ID, "dmhost")], advantage=2
        )
        await rec.wait("started")
        await bot.wait_idle()
        live = service.get(mid)
        assert live.players[1].id == BOT_ID
        assert live.ply >= 1 and rec.of("move")[0][1].seat == 1
    finally:
        await bot.close()
        await service.close()
        await service.store.close()


async def test_bot_makes_the_pathing_penalty_pick_it_owes(migrated_sqlite_url: str) -> None:
    # Al (seat 1) plays the round's moves from a script until the bot loses the round; the bot must then
    # pick a square without being asked twice.
    rec = Recorder()
    service = await make_service(migrated_sqlite_url, rec)
    al = PlayerRef("local:al", "al")
    bot = PracticeBot(service, "random", bus=bus_of(service), nodes=NODES["pathing"], seed=SEED)
    rng = random.Random(SEED)
    try:
        mid = await service.create_match("pathing", [al, PlayerRef(BOT_ID, "dmhost")])
        live = service.get(mid)
        for _ in range(400):
            await bot.wait_idle()
            if mid not in service.live:
                break
            state = live.state
            if state.round_no > 1 or live.ruleset.outcome(state) is not None:
                break
            seat = live.ruleset.to_move(state)
            if live.players[seat].id == BOT_ID:
                await asyncio.sleep(0.1)
                continue
            move = pick(live.ruleset, state, "medium", rng, nodes=NODES["pathing"])
            assert (await service.submit(mid, al.id, live.ruleset.format(state, move))).status == "accepted"
        picks_by_bot = sum(
            1 for _, e in rec.of("move") if e.seat == 2 and str(e.data.get("move", "")).startswith("pick")
        )
        # Al plays medium against a random bot, so Al wins the round and the bot owes the pick.
        assert live.ruleset.outcome(live.state) is not None or live.state.round_no == 2, f"seed {SEED}"
        assert picks_by_bot == 1, f"seed {SEED}"
    finally:
        await bot.close()
        await service.close()
        await service.store.close()


def test_budget_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DMHOST_BOT_BUDGET", "0.25")
    assert budget_from_env() == 0.25
    for bad in ("", "soon", "-1"):
        monkeypatch.setenv("DMHOST_BOT_BUDGET", bad)
        assert budget_from_env(1.5) == 1.5


@pytest.mark.parametrize(("level", "answer"), [("easy", "mulligan_declined")])
async def test_bot_answers_the_trax_mulligan_offer(migrated_sqlite_url: str, level: str, answer: str) -> None:
    # Al plays hard against the bot until he completes a loop or line; the bot then owes a decision on
    # its mulligan: easy declines at once (medium and hard would use it).
    rec = Recorder()
    service = await make_service(migrated_sqlite_url, rec)
    al = PlayerRef("local:al", "al")
    bot = PracticeBot(service, level, bus=bus_of(service), nodes=NODES["trax"], seed=SEED)
    rng = random.Random(SEED)
    try:
        mid = await service.create_match("trax", [al, PlayerRef(BOT_ID, "dmhost")])
        live = service.get(mid)
        for _ in range(600):
            await bot.wait_idle()
            if rec.of("mulligan_offer") or mid not in service.live:
                break
            seat = live.ruleset.to_move(live.state)
            if live.status != "ongoing" or seat is None or live.players[seat].id == BOT_ID:
                await asyncio.sleep(1)
                continue
            move = pick(live.ruleset, live.state, "hard", rng, nodes=NODES["trax"])
            result = await service.submit(mid, al.id, live.ruleset.format(live.state, move))
            if result.status != "accepted":
                await asyncio.sleep(1)
        offers = rec.of("mulligan_offer")
        assert offers and offers[0][1].seat == 2, f"seed {SEED}"
        offered_at = offers[0][0]
        await bot.wait_idle()
        await asyncio.sleep(0.5)
        stored = await service.store.load(mid, with_events=True)
        assert stored is not None
        kinds = [e.kind for e in stored.events]
        assert answer in kinds, (f"seed {SEED}", kinds[-5:])
        if answer == "mulligan":
            assert rec.of("mulligan")[0][0] - offered_at < 1.0
        else:
            assert rec.of("finished")[0][0] - offered_at < 1.0
    finally:
        await bot.close()
        await service.close()
        await service.store.close()
