"""A whole match of every game in Discord: the board ends on the final position and names the winner,
no text says "seat 1/2", and the bot stays within Discord's rate limits (REST requests per move)."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from games import registry
from tests.bot.adapters.discord.conftest import World, answer, board_of, start
from tests.bot.adapters.terminal.test_room_games import SETUPS, scripted_game

MAX_REQUESTS_PER_MOVE = 1.2
SEAT_WORDS = re.compile(r"seat\s*[12]", re.IGNORECASE)


def sent_text(payload: object) -> str:
    """The text a REST request carried (message content and embeds)."""
    if not isinstance(payload, dict):
        return ""
    parts = [str(payload.get("content") or "")]
    for embed in payload.get("embeds") or []:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f.get('name')} {f.get('value')}" for f in embed.get("fields") or []]
    return "\n".join(parts)


def _final_picture(ruleset: object, state: object) -> Image.Image:
    from games import pictures

    return Image.open(io.BytesIO(pictures.render_png(ruleset, state)))  # type: ignore[arg-type]


@pytest.mark.parametrize("game", sorted(SETUPS))
async def test_a_whole_match_in_discord(world: World, game: str) -> None:
    w = world
    lines, outcome = scripted_game(game)
    options = " ".join(f"{k}={v}" for k, v in SETUPS[game]["opts"].items())
    match_id, room = await start(w, game, room="public", options=options, clock="move=600 reserve=600 takeback=0")
    players = {"ann": w.alice, "ben": w.bob}
    requests_before = len(w.env.http_requests)
    moves = 0
    for line in lines:
        name, text = line.split(": ", 1)
        await players[name].send(room, text)
        moves += text not in ("confirm", "decline")
    live_gone = match_id not in w.bot.service.live
    assert live_gone, "the match is over"

    # the board: edited in place to the final position, naming the winner
    board = board_of(w, room, match_id)
    winner = {1: "alice", 2: "bob"}.get(outcome.winner or 0)
    if winner is None:
        assert "draw" in board.content
    else:
        assert f"Result: {winner} wins" in board.content
    assert board.attachments and board.components == []
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.status == "finished" and stored.winner_seat == outcome.winner
    picture = Image.open(io.BytesIO(await board.attachments[0].read()))
    assert picture.size[0] > 0
    ruleset = registry.get(game)
    from bot.records.replay import replay_match

    full = await w.bot.service.store.load(match_id, with_events=True)
    assert full is not None
    _rs, frames = replay_match(full)
    assert ruleset.outcome(frames[-1].state) is not None  # the log replays to the end ...
    start_picture = _final_picture(ruleset, frames[0].state)
    assert picture.tobytes() != start_picture.tobytes()  # ... and the board does not show the start

    # rate limits: about one REST request per accepted move
    requests = len(w.env.http_requests) - requests_before
    print(f"{game}: {requests} requests for {moves} moves = {requests / moves:.3f} per move")
    # the match's end adds one request of its own (the result line with the rating changes, now that every
    # face rates the match): not a per-move cost
    assert (requests - 1) / moves <= MAX_REQUESTS_PER_MOVE

    # no text the bot ever sent (every message, every edit, every answer) says "seat 1" or "seat 2"
    texts = [sent_text(r.json) for r in w.env.http_requests]
    assert any("Result:" in t for t in texts)
    assert not [m.group(0) for t in texts for m in [re.search(r".{80}seat\s*[12].{40}", t, re.I | re.S)] if m]


async def test_log_of_a_match_attaches_replay_and_records(world: World) -> None:
    w = world
    lines, _outcome = scripted_game("boxes")
    match_id, room = await start(w, options="rows=3 cols=3", clock="move=600 reserve=600")
    players = {"ann": w.alice, "ben": w.bob}
    for line in lines:
        name, text = line.split(": ", 1)
        await players[name].send(room, text)
    w.env.settle_timeout = 300.0  # the solver's first call compiles it (no clock runs any more)
    r = answer(await w.carol.slash(w.lobby, "dm log", match=match_id))
    w.env.settle_timeout = 5.0
    names = [a.filename for a in r.attachments]
    assert f"match-{match_id}.gif" in names and f"match-{match_id}-analysis.txt" in names
    limit = w.bot.get_guild(w.guild.id).filesize_limit  # type: ignore[union-attr]
    assert sum(a.size for a in r.attachments) <= limit
    gif = Image.open(io.BytesIO(await r.attachments[names.index(f"match-{match_id}.gif")].read()))
    assert gif.format == "GIF" and gif.n_frames == len([ln for ln in lines]) + 1


async def test_log_of_a_dots_match_attaches_the_sgf_record(world: World) -> None:
    w = world
    lines, _outcome = scripted_game("dots")
    options = " ".join(f"{k}={v}" for k, v in SETUPS["dots"]["opts"].items())
    match_id, room = await start(w, "dots", options=options, clock="move=600 reserve=600")
    players = {"ann": w.alice, "ben": w.bob}
    for line in lines:
        name, text = line.split(": ", 1)
        await players[name].send(room, text)
    w.env.settle_timeout = 300.0  # drawing the replay takes a while on a slow machine (no clock runs)
    r = answer(await w.alice.slash(w.lobby, "dm log", match=match_id))
    w.env.settle_timeout = 5.0
    names = [a.filename for a in r.attachments]
    assert f"match-{match_id}.gif" in names and f"match-{match_id}.sgf" in names
    sgf = (await r.attachments[names.index(f"match-{match_id}.sgf")].read()).decode()
    assert sgf.startswith("(;") and sgf.count(";") >= len(lines)
    limit = w.bot.get_guild(w.guild.id).filesize_limit  # type: ignore[union-attr]
    assert sum(a.size for a in r.attachments) <= limit
