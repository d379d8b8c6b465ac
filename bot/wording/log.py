"""A stored match's log as text: its header (state, clock, house rules) and one line per logged event."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.wording.basics import display, named, namer, rule_words, seconds
from bot.wording.overview import result_sentence
from games.base import TITLES


def state_words(status: str) -> str:
    """A match's state as `/dm` answers say it (`held` → "waiting for a player's answer")."""
    return {
        "ongoing": "in play",
        "paused": "paused by the host",
        "held": "waiting for a player's answer",
        "finished": "finished",
        "aborted": "aborted",
    }.get(status, status.replace("_", " "))


_SHOWN_KINDS = {
    "move": "move",
    "commit": "final",
    "illegal": "illegal",
    "syntax": "unreadable",
    "turn": "out of turn",
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
    "vacation": "on vacation",
    "vacation_over": "back from vacation",
    "created": "created",
}


def log_text(data: Mapping[str, Any]) -> str:
    """A match's log (`bot.records.matchlog.build_log`'s data) as text."""
    p = data["players"]
    lines = [
        f"Match {data['match']} — {TITLES.get(data['game'], data['game'])} — {state_words(str(data['status']))}",
        f"Players: {p['1']['name']} vs {p['2']['name']}",
        f"Options: {_kv(data['options'])}",
        f"Clock: {clock_words(data['clock'], with_window=data.get('rules') is None)}",
        *([odds] if (odds := odds_line(data["clock"], {int(k): v["name"] for k, v in p.items()})) else []),
        f"House rules: {_rules(data.get('rules'))}",
        f"Created: {data['created_at']}",
    ]
    by_seat = namer({int(seat): player["name"] for seat, player in p.items()})
    for e in data["events"]:
        label = _SHOWN_KINDS.get(e["kind"]) or rule_words().get(f"log:{e['kind']}") or e["kind"]
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
        elif e["kind"] in ("illegal", "syntax", "turn", "finished") and "text" in e:
            line += f" {e.get('text', '')!r}: {named(str(e.get('reason', '')), by_seat)}"
        elif e["kind"] == "commit":
            line += f" {e.get('move', '')} ({e.get('used', 0):.1f} s)"
        elif e["kind"] == "clock":
            line += f" {e.get('notice', '')}"
        elif e["kind"] == "time":
            line += f" {e.get('seconds', 0):+g} s"
        elif (detail := rule_words().get(f"logline:{e['kind']}")) is not None:
            line += " " + detail.format_map(_Blank(e))
        elif e["kind"] == "finished":
            r = data["result"]
            same = r.get("words") and (r.get("winner"), r.get("reason")) == (e.get("winner"), e.get("reason"))
            said = r["words"] if same else result_sentence(e.get("reason"), e.get("winner"), _shown_names(p))
            line = f"  #{e['seq']:<4} {e['at'][11:19]} {label:<18} {said}"
        lines.append(line.rstrip())
    r = data["result"]
    if data["status"] in ("finished", "aborted"):
        reason = "aborted" if data["status"] == "aborted" else r.get("reason")
        words = r.get("words") or result_sentence(reason, r.get("winner"), _shown_names(p), score=r.get("score"))
        lines.append(f"Result: {words}")
    else:
        lines.append("Result: not finished")
    return "\n".join(lines)


class _Blank(dict[str, Any]):
    """A logged entry's data for a rule's `logline:` template: a field the entry lacks is said as nothing."""

    def __missing__(self, key: str) -> str:
        return ""


def _shown_names(players: Mapping[str, Mapping[str, Any]]) -> dict[int, str]:
    return {int(seat): display(str(player["name"])) for seat, player in players.items()}


def clock_words(clock: Mapping[str, Any], *, with_window: bool = True) -> str:
    """A match's time control in words, only what is set: "1:00 a move, then a 5:00 reserve"; "30s a
    move, one grace of 2:00 (presence check 2:00)". The take-back window is a house rule and is said
    with them unless asked for (`with_window`, for matches stored before house rules)."""
    move = float(clock.get("move") or 0)
    parts = [f"{seconds(move)} a move"]
    if clock.get("kind") == "grace":
        grace = float(clock.get("grace") or 0)
        if grace:
            parts.append(f"one grace of {seconds(grace)} (presence check {seconds(float(clock.get('presence') or 0))})")
    else:
        reserve = float(clock.get("reserve") or 0)
        parts.append(f"then a {seconds(reserve)} reserve" if reserve else "no reserve")
    takeback = clock.get("takeback")
    if with_window and takeback is not None:
        parts.append(f"moves final after {float(takeback):g} s" if takeback else "moves final at once")
    return ", ".join(parts)


def odds_line(clock: Mapping[str, Any], names: Mapping[int, str]) -> str | None:
    """A match's time odds (its clock as `TimeControl.to_json` writes it), by player name:
    `Time odds: bob reserve 2:00`; None when both players have the same time."""
    odds = clock.get("odds") or {}
    parts = []
    for seat in sorted(odds, key=int):
        own = ", ".join(f"{key} {seconds(float(value))}" for key, value in odds[seat].items())
        parts.append(f"{display(names.get(int(seat), '?'))} {own}")
    return "Time odds: " + "; ".join(parts) if parts else None


def _kv(d: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items()) or "defaults"


def house_rules_words(rules: Mapping[str, Any] | None) -> str:
    """The house rules a match was played under, as its log's header says them."""
    return _rules(rules)


def _rules(rules: Mapping[str, Any] | None) -> str:
    """The house rules a match was played under (matches from before per-match rules: the game's defaults)."""
    if rules is None:
        return "the game's defaults of the time"
    from bot.host.rules import describe

    said = []
    for key, value in rules.items():
        if key == "clock" or value is None or (value is False and key not in _OFF_SAID):
            continue  # the clock's kind is the Clock line's; a rule that is off is not there
        if isinstance(value, int | float) and not isinstance(value, bool) and value == 0:
            continue
        words = _RULE_WORDS.get(key) or rule_words().get(f"setting:{key}")
        if words is not None and not isinstance(value, bool):
            said.append(words.format(value=value, s="" if value == 1 else "s"))
        elif key in _OFF_SAID and value is False:
            said.append(_OFF_SAID[key])
        elif words is not None:
            said.append(words)
        else:
            said.append(describe({key: value}))
    return ", ".join(said) or "none"


_RULE_WORDS = {
    "draw": "draw offers",
    "threesame": "the first three-of-a-colour turn restarts the clock",
}
_OFF_SAID = {"threesame": "no restart for a three-of-a-colour turn"}
"""Rules on by default whose being off is worth saying."""
