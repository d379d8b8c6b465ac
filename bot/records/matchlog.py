"""A match's log for admins: structured (JSON) and as text."""

from __future__ import annotations

import contextlib
from typing import Any

from bot.store.matches import EntryKind, StoredMatch
from bot.types import OVER_STATUSES, MatchStatus
from bot.wording import display, log_text, result_sentence, state_words
from games import registry


def final_score(match: StoredMatch) -> tuple[int, int] | None:
    """The score of a stored match's last position (None: the game keeps none, or it cannot be read)."""
    with contextlib.suppress(Exception):  # a snapshot an older build wrote: no score rather than no record
        ruleset = registry.get(match.game)
        scores = ruleset.scores(ruleset.from_json(match.snapshot["state"]))
        return (scores.get(1, 0), scores.get(2, 0))
    return None


def result_of(match: StoredMatch) -> str:
    """A stored match's result in the words every room uses (`bot.wording.result_sentence`); a match
    still running is said by its state ("in play")."""
    if match.status not in OVER_STATUSES:
        return state_words(match.status)
    reason = "aborted" if match.status == MatchStatus.ABORTED else match.result_reason
    names = {seat: display(name) for seat, (_pid, name) in match.players.items()}
    return result_sentence(reason, match.winner_seat, names, score=final_score(match))


def build_log(match: StoredMatch) -> dict[str, Any]:
    """Everything an admin needs to review a match, as JSON-ready data."""
    players = {str(s): {"id": pid, "name": name} for s, (pid, name) in sorted(match.players.items())}
    entries = []
    for e in match.events:
        entry: dict[str, Any] = {"seq": e.seq, "at": e.at.isoformat(), "kind": e.kind, "seat": e.seat}
        if e.seat in match.players:
            entry["player"] = match.players[e.seat][1]
        if e.text is not None:
            entry["text"] = e.text
        if e.message_id is not None:
            entry["message_id"] = e.message_id
        entry.update({k: v for k, v in e.data.items() if k not in entry})
        entries.append(entry)
    created = next((e for e in match.events if e.kind == EntryKind.CREATED), None)
    rules = created.data.get("rules") if created is not None else None
    return {
        "match": match.id,
        "game": match.game,
        "status": match.status,
        "players": players,
        "options": match.options,
        "clock": match.clock,
        "rules": rules,
        "created_at": match.created_at.isoformat(),
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "result": {
            "winner": match.winner_seat,
            "winner_name": match.players[match.winner_seat][1] if match.winner_seat in match.players else None,
            "reason": match.result_reason,
            "score": final_score(match),
            "words": result_of(match),
        },
        "moves": [e for e in entries if e["kind"] == "move"],
        "events": entries,
    }


def format_log(data: dict[str, Any]) -> str:
    """Human-readable text of `build_log`'s data (worded by `bot.wording`, like every room)."""
    return log_text(data)
