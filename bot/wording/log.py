"""A stored match's log as text: its header (state, clock, house rules) and one line per logged event."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.wording.basics import display, named, namer, rule_words, seconds
from bot.wording.counts import plural
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
    "finished": "result",
    "vacation": "on vacation",
    "vacation_over": "back from vacation",
    "created": "created",
}


def span(value: float) -> str:
    """A correspondence length spelled out: `2 days`, `1 day 12 hours`, `18 hours`, `45 minutes`."""
    total = max(0, round(value / 60))
    days, rest = divmod(total, 1440)
    hours, minutes = divmod(rest, 60)
    if days:
        return plural(days, "day") + (f" {plural(hours, 'hour')}" if hours else "")
    if hours:
        return plural(hours, "hour") + (f" {plural(minutes, 'minute')}" if minutes else "")
    return plural(minutes, "minute") if minutes else f"{max(0.0, value):.0f} s"


def is_correspondence(clock: Mapping[str, Any]) -> bool:
    """Whether a stored time control (`TimeControl.to_json`) is a correspondence clock."""
    return clock.get("kind") == "correspondence"


def used_text(value: float, clock: Mapping[str, Any]) -> str:
    """The time a move took: `12.5 s` in a live match, in days and hours in a correspondence one (`1d 2h`)."""
    if is_correspondence(clock):
        from bot.types import days_hours

        return days_hours(value)
    return f"{value:.1f} s"


def spans_days(stamps: Sequence[str]) -> bool:
    """Whether a match's entries (ISO times) fall on more than one day (UTC): then each is dated."""
    return len({stamp[:10] for stamp in stamps}) > 1


def entry_time(stamp: str, dated: bool) -> str:
    """An entry's time in the log (`14:03:07`), with its date when the match spans days (`2026-01-02 14:03`)."""
    return f"{stamp[:10]} {stamp[11:16]}" if dated else stamp[11:19]


def fill_entry(template: str, entry: Mapping[str, Any]) -> str:
    """A rule's `logline:` template filled from a logged entry: a field it lacks is said as nothing, and a
    `<field>_text` it asks for is the entry's `<field>` seconds in days and hours (`left_text`: `9h 36m`)."""
    return template.format_map(_Blank(entry))


def log_text(data: Mapping[str, Any]) -> str:
    """A match's log (`bot.records.matchlog.build_log`'s data) as text."""
    p = data["players"]
    dated = spans_days([str(e["at"]) for e in data["events"]])
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
        when = entry_time(str(e["at"]), dated)
        line = f"  #{e['seq']:<4} {when} {label:<18} {who}"
        if e["kind"] == "move":
            line += f" {e.get('move', e.get('text', ''))}"
            if "used" in e:
                line += f" ({used_text(float(e['used']), data['clock'])})"
            if e.get("provisional"):
                line += " (provisional)"
            if e.get("text") and e.get("text") != e.get("move"):
                line += f"  [{e['text']!r}]"
        elif e["kind"] in ("illegal", "syntax", "turn", "finished") and "text" in e:
            line += f" {e.get('text', '')!r}: {named(str(e.get('reason', '')), by_seat)}"
        elif e["kind"] == "commit":
            line += f" {e.get('move', '')} ({used_text(float(e.get('used', 0)), data['clock'])})"
        elif e["kind"] == "clock":
            line += f" {e.get('notice', '')}"
        elif e["kind"] == "time":
            line += f" {e.get('seconds', 0):+g} s"
        elif (detail := rule_words().get(f"logline:{e['kind']}")) is not None:
            line += " " + fill_entry(detail, e)
        elif e["kind"] == "finished":
            r = data["result"]
            same = r.get("words") and (r.get("winner"), r.get("reason")) == (e.get("winner"), e.get("reason"))
            said = r["words"] if same else result_sentence(e.get("reason"), e.get("winner"), _shown_names(p))
            line = f"  #{e['seq']:<4} {when} {label:<18} {said}"
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
    """A logged entry's data for a rule's `logline:` template (`fill_entry`)."""

    def __missing__(self, key: str) -> str:
        seconds_of = self.get(key.removesuffix("_text")) if key.endswith("_text") else None
        if isinstance(seconds_of, int | float) and not isinstance(seconds_of, bool):
            from bot.types import days_hours

            return days_hours(float(seconds_of))
        return ""


def _shown_names(players: Mapping[str, Mapping[str, Any]]) -> dict[int, str]:
    return {int(seat): display(str(player["name"])) for seat, player in players.items()}


def clock_words(clock: Mapping[str, Any], *, with_window: bool = True) -> str:
    """A match's time control in words, only what is set: "1:00 a move, then a 5:00 reserve"; "30s a
    move, one grace of 2:00 (presence check 2:00)"; "correspondence, 2 days a move" (and its bank, when it
    has one: a correspondence clock has no reserve). The take-back window is a house rule and is said
    with them unless asked for (`with_window`, for matches stored before house rules)."""
    move = float(clock.get("move") or 0)
    if is_correspondence(clock):
        bank = float(clock.get("bank") or 0)
        said = [f"correspondence, {span(move)} a move"]
        said.append(f"unused time saved in a bank of up to {span(bank)}" if bank else "no bank")
        return ", ".join(said)
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
        length = span if is_correspondence(clock) else seconds
        own = ", ".join(f"{key} {length(float(value))}" for key, value in odds[seat].items())
        parts.append(f"{display(names.get(int(seat), '?'))} {own}")
    return "Time odds: " + "; ".join(parts) if parts else None


def _kv(d: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items()) or "defaults"


def rules_words(rules: Mapping[str, Any] | None) -> str:
    """The house rules line of a match's log and page (one wording for both)."""
    return _rules(rules)


house_rules_words = rules_words
"""The same line under the name the review pages' first pass gave it."""


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
