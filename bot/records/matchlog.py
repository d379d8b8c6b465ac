"""A match's log for admins: structured (JSON) and as text."""

from __future__ import annotations

from typing import Any

from bot.store.matches import StoredMatch

_SHOWN_KINDS = {
    "move": "move",
    "commit": "final",
    "illegal": "illegal",
    "syntax": "unreadable",
    "turn": "out of turn",
    "takeback": "take-back",
    "mulligan": "mulligan",
    "mulligan_offer": "mulligan offered",
    "mulligan_declined": "mulligan declined",
    "clock": "clock",
    "timeout": "timeout",
    "pause": "paused",
    "resume": "resumed",
    "resumed": "host restarted",
    "abort": "aborted",
    "time": "time adjusted",
    "award": "awarded",
    "resign": "resigned",
    "ready": "ready",
    "here": "presence",
    "choice": "first player chosen",
    "finished": "result",
    "created": "created",
}


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
    """Human-readable text of `build_log`'s data."""
    p = data["players"]
    lines = [
        f"Match {data['match']} — {data['game']} — {data['status']}",
        f"Players: {p['1']['name']} (seat 1) vs {p['2']['name']} (seat 2)",
        f"Options: {_kv(data['options'])}",
        f"Clock: {_kv(data['clock'])}",
        f"House rules: {_rules(data.get('rules'))}",
        f"Created: {data['created_at']}",
    ]
    for e in data["events"]:
        label = _SHOWN_KINDS.get(e["kind"], e["kind"])
        who = e.get("player", "host" if e["kind"] in ("pause", "resume", "abort", "time", "award") else "")
        line = f"  #{e['seq']:<4} {e['at'][11:19]} {label:<18} {who}"
        if e["kind"] == "move":
            line += f" {e.get('move', e.get('text', ''))}"
            if "used" in e:
                line += f" ({e['used']:.1f} s)"
            if e.get("provisional"):
                line += " (provisional)"
            if e.get("text") and e.get("text") != e.get("move"):
                line += f"  [{e['text']!r}]"
        elif e["kind"] in ("illegal", "syntax", "turn"):
            line += f" {e.get('text', '')!r}: {e.get('reason', '')}"
        elif e["kind"] == "commit":
            line += f" {e.get('move', '')} ({e.get('used', 0):.1f} s)"
        elif e["kind"] == "clock":
            line += f" {e.get('notice', '')}"
        elif e["kind"] == "time":
            line += f" {e.get('seconds', 0):+g} s"
        elif e["kind"] == "takeback":
            line += f" {e.get('move', '')} by {e.get('via', '')}"
        elif e["kind"] == "mulligan":
            line += f" rewound {e.get('rewound_plies', 0)} plies"
        elif e["kind"] == "finished":
            line += f" winner seat {e.get('winner')} ({e.get('reason')})"
        lines.append(line.rstrip())
    r = data["result"]
    if data["status"] in ("finished", "aborted"):
        who = r["winner_name"] or "no winner"
        lines.append(f"Result: {who} ({r['reason']})")
    else:
        lines.append("Result: not finished")
    return "\n".join(lines)


def _kv(d: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items()) or "defaults"


def _rules(rules: dict[str, Any] | None) -> str:
    """The house rules a match was played under (matches from before per-match rules: the game's defaults)."""
    if rules is None:
        return "the game's defaults of the time"
    from bot.host.rules import describe

    return describe(rules) or "none"
