"""A match's log for admins: structured (JSON) and as text."""

from __future__ import annotations

from typing import Any

from bot.store.matches import StoredMatch
from bot.wording import log_text


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
    created = next((e for e in match.events if e.kind == "created"), None)
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
        },
        "moves": [e for e in entries if e["kind"] == "move"],
        "events": entries,
    }


def format_log(data: dict[str, Any]) -> str:
    """Human-readable text of `build_log`'s data (worded by `bot.wording`, like every room)."""
    return log_text(data)
