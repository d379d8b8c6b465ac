"""Regenerate the tactics positions in tests/data/opponents/ from seeded games (run by hand).

`python -m tests.games.opponents.regen_positions` plays seeded games between weak levels and keeps
positions with a tactic on the board, judged by the engines alone (not by the opponents):
- trax_win.json: the side to move has a move that wins at once;
- trax_defend.json: the opponent threatens to win next turn and some move stops every such win;
- trax_force.json: no move wins at once, but one wins next turn whatever the reply (checked over
  every legal reply: `forces_win`);
- dots_capture.json: a dot captures 3 or more enemy dots and the reply can take nothing back;
- dotdash_lead.json: a slide makes a five-row lead the opponent cannot answer;
- pathing_line.txt: one position per block (blank-line separated), a swap completes four in a row.
"""

from __future__ import annotations

import json
import random
from typing import Any

from games import registry
from games.base import AnyRuleset
from games.opponents import pick
from tests import DATA

OUT = DATA / "opponents"


def wins_now(r: AnyRuleset, state: Any, move: Any) -> bool:
    """Whether `move` wins for the mover at once."""
    me = r.to_move(state)
    new, _ = r.apply(state, move)
    out = r.outcome(new)
    return out is not None and out.winner == me


GAME_NODES = 30
"""The work per move of the games positions are drawn from (a budget of work: the same games on any machine)."""


def games(r: AnyRuleset, options: Any, n: int, levels: tuple[str, str], seed: int) -> Any:
    """Yield (moves so far as text, state) along seeded games."""
    for g in range(n):
        rng = random.Random(seed + g)
        state = r.new_game(options)
        texts: list[str] = []
        while r.to_move(state) is not None and len(texts) < 400:
            yield texts, state
            move = pick(r, state, levels[len(texts) % 2], rng, nodes=GAME_NODES)
            texts.append(r.format(state, move))
            state, _ = r.apply(state, move)


def trax() -> None:
    r = registry.get("trax")
    opts = r.parse_options({})
    win: list[list[str]] = []
    defend: list[list[str]] = []
    for texts, state in games(r, opts, 60, ("random", "random"), 100):
        moves = r.legal_moves(state)
        if len(win) < 12 and any(wins_now(r, state, m) for m in moves) and len(texts) > 4:
            win.append(list(texts))
            continue
        if len(defend) >= 12 or len(texts) < 4 or any(wins_now(r, state, m) for m in moves):
            continue
        # Does the opponent threaten a win if we play a random move, and can some move stop all wins?
        safe = 0
        unsafe = 0
        for m in moves:
            after, _ = r.apply(state, m)
            if r.outcome(after) is not None:
                continue
            if any(wins_now(r, after, reply) for reply in r.legal_moves(after)):
                unsafe += 1
            else:
                safe += 1
        if safe and unsafe >= len(moves) // 3:
            defend.append(list(texts))
    (OUT / "trax_win.json").write_text(json.dumps({"options": {}, "positions": win}, indent=1) + "\n")
    (OUT / "trax_defend.json").write_text(json.dumps({"options": {}, "positions": defend}, indent=1) + "\n")


def forces_win(r: AnyRuleset, state: Any, move: Any) -> bool:
    """Whether, after `move`, every legal reply leaves the mover a move that wins at once (or itself
    hands the mover the win). Checked with the engine over every reply and every answer."""
    me = r.to_move(state)
    after, _ = r.apply(state, move)
    if r.outcome(after) is not None:
        return False
    for reply in r.legal_moves(after):
        again, _ = r.apply(after, reply)
        out = r.outcome(again)
        if out is not None:
            if out.winner != me:
                return False
            continue
        if not any(wins_now(r, again, m) for m in r.legal_moves(again)):
            return False
    return True


def trax_force() -> None:
    from games.opponents.search import Budget
    from games.opponents.trax import unstoppable

    r = registry.get("trax")
    found: list[list[str]] = []
    for texts, state in games(r, r.parse_options({}), 60, ("easy", "easy"), 500):
        if len(found) >= 6:
            break
        if len(texts) < 6 or any(wins_now(r, state, m) for m in r.legal_moves(state)):
            continue
        move = unstoppable(r, state, Budget(float("inf")))
        if move is not None and forces_win(r, state, move):
            found.append(list(texts))
    (OUT / "trax_force.json").write_text(json.dumps({"options": {}, "positions": found}, indent=1) + "\n")


def dots() -> None:
    r = registry.get("dots")
    raw = {"width": "10", "height": "10"}
    opts = r.parse_options(raw)
    found: list[list[str]] = []
    for texts, state in games(r, opts, 80, ("easy", "random"), 200):
        if len(found) >= 12:
            break
        me = state.turn
        for m in r.legal_moves(state):
            if m[1] < 0:
                continue
            after, _ = r.apply(state, m)
            gained = after.caps[me - 1] - state.caps[me - 1]
            if gained < 3 or r.outcome(after) is not None:
                continue
            back = max(
                (a2.caps[2 - me] - after.caps[2 - me] for a2 in (r.apply(after, x)[0] for x in r.legal_moves(after))),
                default=0,
            )
            if back == 0:
                found.append(list(texts))
                break
    (OUT / "dots_capture.json").write_text(json.dumps({"options": raw, "positions": found}, indent=1) + "\n")


def dotdash() -> None:
    r = registry.get("dotdash")
    raw = {"size": "9"}
    opts = r.parse_options(raw)
    found: list[list[str]] = []
    for texts, state in games(r, opts, 80, ("random", "random"), 300):
        if len(found) >= 12:
            break
        if state.phase != "move":
            continue
        me = r.to_move(state)
        for m in r.legal_moves(state):
            after, _ = r.apply(state, m)
            if r.outcome(after) is not None or after.fives[state.colour_of(me)] <= after.fives[1 - state.colour_of(me)]:
                continue
            replies = r.legal_moves(after)
            if replies and all((o := r.outcome(r.apply(after, x)[0])) is not None and o.winner == me for x in replies):
                found.append(list(texts))
                break
    (OUT / "dotdash_lead.json").write_text(json.dumps({"options": raw, "positions": found}, indent=1) + "\n")


def pathing() -> None:
    r = registry.get("pathing")
    opts = r.parse_options({})
    blocks: list[str] = []
    for texts, state in games(r, opts, 40, ("random", "random"), 400):
        if len(blocks) >= 8:
            break
        moves = r.legal_moves(state)
        good = [m for m in moves if wins_now(r, state, m)]
        if good and len(good) < len(moves) and state.phase == "move":
            blocks.append("\n".join(texts))
    (OUT / "pathing_line.txt").write_text("\n\n".join(blocks) + "\n")


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for job in (trax, trax_force, dots, dotdash, pathing):
        job()
        print(job.__name__, "done")
