"""Every sentence the host says: structured host events and refusals → text people read.

Names, never seats: each function gets `name`, which turns a seat into the player's display name.
The service and the house rules hand over kinds and data; only this module words them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Name = Callable[[int | None], str]


def seconds(value: float) -> str:
    """A duration as a clock shows it (`7.5s`, `42s`, `1:05`)."""
    s = max(0.0, value)
    if s >= 60:
        return f"{int(s // 60)}:{int(s % 60):02d}"
    return f"{s:.1f}s" if s < 10 else f"{int(s)}s"


def quote(text: str) -> str:
    """A player's text, quoted safely (one line, at most 40 characters, cannot ping or break formatting)."""
    clean = "".join(ch if ch.isprintable() else " " for ch in text[:200])
    clean = clean.replace("`", "'").replace("@", "@\u200b")
    return f"`{clean[:40]}{'…' if len(clean) > 40 else ''}`"


def display(name: str) -> str:
    """A player's name as the host says it: one line, at most 40 characters, and it can never ping
    (`@everyone`, `@here`, `<@&role>`, `<@user>`)."""
    clean = " ".join("".join(ch if ch.isprintable() else " " for ch in name[:200]).split())
    clean = clean.replace("@", "@\u200b")
    return (clean[:40] + "…" if len(clean) > 40 else clean) or "?"


def turn(status: str, to_move: int | None, prompt: str, provisional: int | None, name: Name) -> str:
    """Whose turn it is, or what the match waits for."""
    if status == "choosing":
        return "Waiting for the advantage player to choose who starts."
    if status in ("finished", "aborted"):
        return "The match is over."
    if status == "mulligan_wait":
        return "Waiting for the mulligan answer."
    if provisional is not None:
        return f"{name(provisional)}'s move becomes final in a few seconds."
    if to_move is None:
        return "The game is over."
    return f"{name(to_move)} to move" + (f": {prompt}." if prompt else ".")


def notice(kind: str, who: str, move: float, grace: float) -> str:
    """A clock notice for the player on move."""
    if kind == "reserve_started":
        return f"{who}: move time is up, your reserve is running."
    if kind == "grace_started":
        return (
            f"{who}: your {seconds(move)} are up and you are now in grace "
            f"(at most {seconds(grace)} more); post `ready` before you move."
        )
    if kind == "restart":
        return f"{who}: that turn would leave three same-coloured tracks; your clock is restarted once."
    if kind.startswith("move_warn"):
        return f"{who}: {kind.removeprefix('move_warn')} s left for this move."
    if kind.startswith("warn"):
        return f"{who}: {kind.removeprefix('warn')} s left before you lose on time."
    return f"{who}: {kind}"


def named(text: str, name: Name) -> str:
    """Engine text speaks of seats ("seat 2 to move"); people read names."""
    return _SEAT_WORDS.sub(lambda m: name(int(m.group(1))), text)


def say(kind: str, data: Mapping[str, Any], seat: int | None, name: Name, now_turn: str = "") -> str:
    """The sentence of a host event (`now_turn`: the turn line, for events that end with it)."""
    return named(_say(kind, data, seat, name, now_turn), name)


def _say(kind: str, data: Mapping[str, Any], seat: int | None, name: Name, now_turn: str) -> str:
    d = data
    if kind in ("started", "resumed"):
        return f"Match {d['match']} ({d['title']}) {kind}: {name(1)} vs {name(2)}. {now_turn}"
    if kind == "choose":
        return (
            f"{name(seat)} has the advantage: post `first` to move first or `second` to let {name(3 - (seat or 1))} "
            f"start (within {seconds(float(d['seconds']))}; after that {name(seat)} moves first)."
        )
    if kind == "choice_timeout":
        return f"{name(seat)} did not choose in time, so {name(seat)} moves first."
    if kind == "provisional":
        return (
            f"{name(seat)} played {d['move']}. It becomes final in {float(d['seconds']):g} s "
            "(delete or edit your message, or post `take back`, to take it back)."
        )
    if kind == "move" and d.get("final"):
        return f"{name(seat)}'s move {d['move']} is final." + str(d.get("said", ""))
    if kind == "move":
        return f"{name(seat)} played {d['move']}." + str(d.get("said", ""))
    if kind == "turn":
        return now_turn
    if kind == "takeback":
        return f"{name(seat)} took back {d['move']}. {now_turn}"
    if kind == "mulligan":
        return f"{name(seat)} used their mulligan: the last {d['rewound']} turn(s) are rewound. {now_turn}"
    if kind == "mulligan_offer":
        return (
            f"{name(d['winner'])} completed a {d['reason']}. {name(d['loser'])}, you still have your mulligan: "
            f"post `mulligan` to rewind, or `decline` (you have {float(d['seconds']):g} s)."
        )
    if kind == "presence":
        return (
            f"{name(d['asker'])} is ready to move from grace. {name(d['confirmer'])}, please confirm you are here "
            f"(button or `here`) within {float(d['seconds']):g} s."
        )
    if kind == "presence_ok":
        return f"{name(seat)}, you may move now ({d['how']})."
    if kind == "clock":
        return notice(str(d["notice"]), name(seat), float(d.get("move", 0)), float(d.get("grace", 0)))
    if kind == "finished":
        winner = d.get("winner")
        text = f"Game over: {name(winner)} wins ({d['reason']})." if winner else f"Game over: a draw ({d['reason']})."
        if not winner and d.get("by_host"):
            text = f"Game over: no winner ({d['reason']})."
        if "score" in d:
            text += f" Score {d['score'][0]}–{d['score'][1]}."
        return text
    if kind == "paused":
        return f"Match {d['match']} is paused by the host."
    if kind == "unpaused":
        return f"Match {d['match']} continues. {now_turn}"
    if kind == "aborted":
        return f"Match {d['match']} was aborted by the host."
    if kind == "time":
        verb = "gets" if float(d["seconds"]) >= 0 else "loses"
        return f"{name(seat)} {verb} {abs(float(d['seconds'])):g} s. {d.get('clocks', '')}".rstrip()
    return kind.replace("_", " ")


_REFUSALS: dict[str, str] = {
    "takeback_none": "There is no move of yours to take back: moves are final after {seconds:g} s.",
    "takeback_late": "Too late: the move is already final.",
    "not_final": "Wait: the last move is not final yet.",
    "mulligan_used": "You have already used your mulligan.",
    "mulligan_own_turn": "You can use your mulligan on your own turn.",
    "mulligan_winner": "Only the player who lost can use a mulligan now.",
    "mulligan_nothing": "You have no turn of your own to rewind yet.",
    "mulligan_no_offer": "There is no mulligan offer for you to decline.",
    "over": "The game is over.",
    "late": "Too late: your time had run out before you posted this.",
    "ready_not_in_grace": "`ready` is for a player in grace, on their turn.",
    "ready_cleared": "You are cleared to move.",
    "ready_waiting": "Already asked: waiting for {other} to confirm they are here.",
    "here_nobody": "Nobody is waiting for your confirmation.",
    "grace_ready": "You are in grace: post `ready` and wait for {other} to confirm, then move.",
    "grace_wait": "Waiting for {other} to confirm they are here.",
    "shift_confirm": "That move lowers your five-row count and loses at once. Post `confirm` to play it anyway.",
    "confirm_nothing": "There is nothing for you to confirm.",
    "choose_not_you": "{chooser} chooses who starts.",
    "choose_first": "{chooser} must first choose who starts.",
    "paused": "The match is paused.",
    "match_over": "The match is over.",
    "stored_over": "Match {match} is over.",
    "already_over": "The match is already over.",
    "turn": "It is {mover}'s turn.",
    "unreadable": "I can't read {text} as a move: {hint}.",
    "illegal": "Illegal move {text}: {reason}.",
    "unsaved": "The host could not save that just now, so it did not happen: please post it again.",
    "failed": "The host could not handle that; the match is unchanged.",
    "no_rule:mulligan": "This match has no mulligans.",
    "no_rule:decline": "There is no mulligan offer for you to decline.",
    "no_rule:ready": "`ready` is for a player in grace, on their turn.",
    "no_rule:here": "Nobody is waiting for your confirmation.",
    "no_rule:takeback": "Moves are final at once in this match.",
}
_SEAT_FIELDS = ("other", "chooser", "mover")
_SEAT_WORDS = re.compile(r"\bseat ([12])\b", re.IGNORECASE)
"""An engine's "seat 2" in a sentence, replaced by the player's name."""


def refusal(code: str, data: Mapping[str, Any], name: Name) -> str:
    """The reply to a refused action (seats in `data` are said as names)."""
    values = {k: name(v) if k in _SEAT_FIELDS else quote(v) if k == "text" else v for k, v in data.items()}
    template = _REFUSALS.get(code, "That is not possible now.")
    return named(template.format(**values), name)


def status_word(status: str) -> str:
    """A match's status as people read it (never the internal name)."""
    return {
        "ongoing": "in play",
        "paused": "paused",
        "choosing": "waiting for the choice of who starts",
        "mulligan_wait": "waiting for the mulligan answer",
        "finished": "over",
        "aborted": "aborted",
    }.get(status, "in play")


def paused_refusal(match_id: int, status: str) -> str:
    """Why a match cannot be paused (never the internal status)."""
    return f"match {match_id} is {'paused' if status == 'paused' else 'over'}, not running"


def describe(events: Sequence[Any], name: Callable[[int | None], str]) -> str:
    """The extra sentence(s) after 'X played M.' for a move's events (the first, 'move', is skipped)."""
    parts: list[str] = []
    for e in events[1:]:
        d: Mapping[str, Any] = e.data
        kind = e.kind
        if kind == "boxes":
            n = d.get("count", 1)
            parts.append(f"{name(d.get('seat'))} takes {n} box{'es' if n != 1 else ''} and moves again")
        elif kind == "extra_turn":
            if not any(p.endswith("moves again") for p in parts):
                parts.append(f"{name(d.get('seat'))} moves again")
        elif kind == "forced":
            tiles = d.get("tiles") or d.get("moves") or []
            parts.append(f"forced: {', '.join(str(t) for t in tiles)}" if tiles else "forced tiles placed")
        elif kind == "round_end":
            scores = d.get("scores", {})
            s1, s2 = scores.get(1, scores.get("1", 0)), scores.get(2, scores.get("2", 0))
            task = _SEAT_WORDS.sub(lambda m: name(int(m.group(1))), str(d.get("task") or ""))
            task = task.replace(" must pick", " must now pick", 1)
            if not task:
                task = f"{name(d.get('picker'))} must pick a square, like pick C3"
            parts.append(
                f"round {d.get('round')} is over ({s1}–{s2} in boxes): {name(d.get('winner'))} wins it, and {task}"
            )
        elif kind == "penalty":
            parts.append(f"{name(d.get('seat'))} picked {d.get('square')} ({d.get('action', 'penalty')})")
        elif kind == "round_start":
            parts.append(f"round {d.get('round')} starts with {name(d.get('seat'))}")
        elif kind == "colours":
            parts.append(
                f"{name(d.get('red'))} plays red, {name(d.get('blue'))} plays blue; {name(d.get('first'))} moves first"
            )
        elif kind == "capture":
            taken = int(d.get("taken") or 0)
            text = f"{name(d.get('seat'))} captures {taken} dot{'s' if taken != 1 else ''}"
            freed = int(d.get("freed") or 0)
            if freed:
                text += f" (freeing {freed} of their own)"
            parts.append(text + (" (the dot was played inside their enclosure)" if d.get("suicide") else ""))
        elif kind == "stop":
            seat = int(d.get("seat") or 1)
            loose = int(d.get("ungrounded") or 0)
            handed = (
                f"hands {loose} ungrounded dot{'s' if loose != 1 else ''} over to {name(3 - seat)}"
                if loose
                else "hands nothing over (every dot is grounded)"
            )
            parts.append(f"{name(seat)} stops and {handed}. {name(3 - seat)} may place more dots, then posts `end`")
        elif kind == "five_rows":
            counts = {k: v for k, v in d.items() if k in ("1", "2")}
            parts.append("five-rows: " + ", ".join(f"{name(int(k))} {v}" for k, v in sorted(counts.items())))
        elif kind in ("game_over", "move"):
            continue
        else:
            parts.append(kind.replace("_", " "))
    return (" " + "; ".join(parts) + ".") if parts else ""


# -- Overview: /dm live, /dm moves, /dm status, /dm history and the posted results (issue 28) ------------

_WON_HOW = {
    "time": "{w} won on time",
    "resign": "{w} won: {l} resigned",
    "award": "{w} won by the host's decision",
    "no-moves": "{w} won: {l} had no move",
    "loop": "{w} won with a loop",
    "line": "{w} won with a line",
    "score": "{w} won on score",
    "stop": "{w} won after a stop",
    "ground": "{w} won after grounding",
}


def result_words(winner: str | None, loser: str | None, reason: str | None, status: str = "finished") -> str:
    """A finished match's result in words: "bob won on time", "alice won: bob resigned", "a draw"."""
    if status == "aborted":
        return "aborted by the host, no result"
    if status != "finished":
        return status_word(status)
    how = (reason or "").strip()
    if winner is None:
        return "a draw" + (f" ({how.replace('-', ' ')})" if how and how not in ("score", "award") else "")
    text = _WON_HOW.get(how, "{w} won" + (f" ({how.replace('-', ' ')})" if how else ""))
    return text.format(w=winner, l=loser or "the opponent")


def score_words(scores: Mapping[int, int] | None) -> str:
    """`2–1`, or empty when the game keeps no score (or nobody scored)."""
    if not scores or not any(scores.values()):
        return ""
    return f"{scores.get(1, 0)}–{scores.get(2, 0)}"


def live_line(match_id: int, game: str, players: str, turn: str, deadline: str | None, link: str) -> str:
    """One live match in `/dm live`."""
    return f"`#{match_id}` {game}: {players} · {turn}" + (f" · {deadline}" if deadline else "") + f" · {link}"


def no_live_matches() -> str:
    """`/dm live` in a server where nothing is played right now."""
    return "No match is being played in this server right now."


def live_title(count: int) -> str:
    """The heading of `/dm live`."""
    return f"Live matches ({count})"


def status_text(
    match_id: int,
    game: str,
    players: str,
    move_number: int,
    turn: str,
    clocks: str,
    deadline: str | None,
    link: str,
) -> str:
    """`/dm status`: game, players, move number, whose turn, both clocks, the deadline and the room."""
    lines = [f"**Match {match_id} · {game}** · {players}", f"Move {move_number} · {turn}", clocks]
    if deadline:
        lines.append(deadline)
    lines.append(f"Room: {link}")
    return "\n".join(lines)


def history_line(match_id: int, when: str, game: str, players: str, result: str, score: str, link: str) -> str:
    """One match in `/dm history`."""
    return f"`#{match_id}` {when} · {game}: {players} — {result}" + (f", {score}" if score else "") + f" · {link}"


def moves_header(match_id: int, game: str, players: str, plies: int) -> str:
    """The first line of `/dm moves`."""
    return f"**Match {match_id} · {game}** · {players} · {plies} move{'s' if plies != 1 else ''}"


def move_line(number: int, name: str, notation: str, used: float | None) -> str:
    """One ply of the move record: `12. bob: B3/ (4 s)`."""
    took = f" ({seconds(used)})" if used is not None else ""
    return f"{number:>3}. {name}: {notation}{took}"


def no_moves_yet() -> str:
    """A move record with no move in it."""
    return "No move has been played yet."


def moves_in_file(plies: int) -> str:
    """When the move record is attached instead of shown."""
    return f"The whole record ({plies} moves) is attached."


def posted_result(match_id: int, game: str, players: str, result: str, score: str, link: str) -> str:
    """The result line posted where people look (the room's parent channel or the results channel)."""
    return f"**Match {match_id} · {game}** · {players}: {result}" + (f", {score}" if score else "") + f" · {link}"
