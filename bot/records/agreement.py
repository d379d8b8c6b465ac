"""Whether a stored match's log and its snapshot tell the same game: the log's moves, less what the rules
rewound, replayed with the engine must reach the snapshot's position at the snapshot's ply. A match whose
two records disagree (a lost write, two processes hosting it at once) is told, never printed silently."""

from __future__ import annotations

import json
from typing import Any

from bot.records.replay import replay_match
from bot.store.matches import StoredMatch


def _plain(data: Any) -> Any:
    return json.loads(json.dumps(data))


def disagreement(match: StoredMatch) -> str | None:
    """None when the log replays to the snapshot; else one sentence saying where they part (the match must
    be loaded with its events)."""
    snapshot = match.snapshot or {}
    if "state" not in snapshot:
        return None  # nothing to compare with (a match stored before its first position)
    try:
        ruleset, frames = replay_match(match)
    except Exception as exc:  # an illegal move in the log is a disagreement too, not a crash
        return f"its log does not replay ({type(exc).__name__}: {exc})"
    last = frames[-1]
    ply = snapshot.get("ply")
    if ply is not None and int(ply) != last.ply:
        return f"its log replays to ply {last.ply} but its snapshot is at ply {ply}"
    if _plain(ruleset.to_json(last.state)) != _plain(snapshot["state"]):
        return f"its log replays to a position other than its snapshot's (ply {last.ply})"
    return None
