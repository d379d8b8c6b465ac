"""Sentences for the engines' events, as a host would say them in the room."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any


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
            parts.append(
                f"round {d.get('round')} is over ({s1}–{s2} in boxes): {name(d.get('winner'))} wins it, and "
                f"{name(d.get('picker'))} must now {d.get('task', 'pick a square')} (e.g. `pick C3`)"
            )
        elif kind == "penalty":
            parts.append(f"{name(d.get('seat'))} picked {d.get('square')} ({d.get('action', 'penalty')})")
        elif kind == "round_start":
            parts.append(f"round {d.get('round')} starts with {name(d.get('seat'))}")
        elif kind == "colours":
            parts.append(
                f"{name(d.get('red'))} plays red, {name(d.get('blue'))} plays blue; {name(d.get('first'))} moves first"
            )
        elif kind == "stop":
            parts.append(
                f"{name(d.get('seat'))} stops (grounds). {name(3 - int(d.get('seat') or 1))} may place more dots, "
                "then posts `end`"
            )
        elif kind == "five_rows":
            counts = {k: v for k, v in d.items() if k in ("1", "2")}
            parts.append("five-rows: " + ", ".join(f"{name(int(k))} {v}" for k, v in sorted(counts.items())))
        elif kind in ("game_over", "move"):
            continue
        else:
            parts.append(kind.replace("_", " "))
    return (" " + "; ".join(parts) + ".") if parts else ""
