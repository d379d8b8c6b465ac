"""Reading a start time as people type it: ISO (with or without a zone), Discord timestamps, Unix time,
relative and natural forms (`in 2h`, `tomorrow 20:00`) through `dateparser`, with an IANA zone name
anywhere in the text (`tomorrow 20:00 Europe/Berlin`) as well as an abbreviation or offset.

What a lenient parser would guess at is refused first: a bare number that is not Unix time (`-1`), an
hour or minute no clock shows (`25:00`), a date no calendar has (`2027-13-01`).

A time without a zone is read in the server's zone (`/dm config timezone:`, default UTC). A local time
that does not exist (skipped by a daylight-saving change) or happens twice is refused with the offset
to write instead, never guessed. Times in the past are refused, and so are times more than a century
ahead (beyond any real appointment; docs/cli.md refuses only unreadable and past times, so a far but
plausible date such as `2099-01-01` stays a valid start).
"""

from __future__ import annotations

import datetime as dt
import re
import warnings
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DISCORD_TIMESTAMP: Final = "<t:"
"""How a Discord timestamp starts, as people paste one (`<t:1796500800:F>`, any style or none): input, not words.
It is read here, not in the Discord adapter, because the command line takes it too (`dmhost schedule add --at`,
`dmhost schedule when`: the contract's TEXT takes what `/dm schedule at:` takes). The parser and the example
below are made from it."""
EXAMPLE: Final = (
    f"e.g. `2026-12-05 20:00`, `2026-12-05T20:00+01:00`, `{DISCORD_TIMESTAMP}1796500800:F>`, `in 2h` or "
    "`tomorrow 20:00`"
)
MAX_AHEAD: Final = dt.timedelta(days=36525)
"""A hundred years: only a sanity bound (it keeps derived times such as an event's end within the calendar)."""
MAX_TEXT: Final = 100

_DISCORD = re.compile(re.escape(DISCORD_TIMESTAMP) + r"(-?\d{1,12})(?::[tTdDfFsSR])?>")
_UNIX = re.compile(r"\d{9,11}(?:\.\d+)?")
_NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)?")
"""A bare number that is not Unix time (`-1`, `30`): no time, though a parser would make a date of it."""
_CLOCK = re.compile(r"(?<![+\-\d:])(\d{1,2}):(\d{1,2})(?::(\d{1,2}))?(?![\d:])")
"""A time of day (`20:00`, `8:05:30`), not an offset (`+01:00`): its hour and minutes must exist."""
_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
"""A year-month-day date: it must exist (`2027-13-01` is no date, not the 13th of January)."""
_ZONE_TOKEN = re.compile(r"(?<!\S)[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)+(?!\S)")
"""An IANA zone name inside the text (`tomorrow 20:00 Europe/Berlin`)."""
_DURATION = re.compile(r"^in\s|\bfrom now$", re.IGNORECASE)
"""Durations (`in 2h`, `3 days from now`) are added to the present instant, not to a wall-clock reading,
so a daylight-saving change in between does not move them."""


class WhenError(ValueError):
    """A start time that cannot be used; the text says why and gives an example."""


def zone(name: str | None) -> ZoneInfo:
    """An IANA zone (`Europe/Berlin`, `UTC`); WhenError when there is no such zone."""
    key = (name or "UTC").strip()
    try:
        if not key or ".." in key or key.startswith("/"):
            raise ValueError(key)
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError):
        raise WhenError(f"unknown time zone {key!r}: use an IANA name such as UTC or Europe/Berlin") from None


def localize(naive: dt.datetime, tz: ZoneInfo) -> dt.datetime:
    """A wall-clock reading in a zone as an aware UTC instant; WhenError when it falls in a DST gap or overlap."""
    first = naive.replace(tzinfo=tz, fold=0)
    second = naive.replace(tzinfo=tz, fold=1)
    if first.utcoffset() != second.utcoffset():
        a, b = first.astimezone(dt.UTC), second.astimezone(dt.UTC)
        # Round-trip through UTC: a time in the gap does not come back as itself.
        if first.astimezone(dt.UTC).astimezone(tz).replace(tzinfo=None) != naive:
            raise WhenError(
                f"{naive:%Y-%m-%d %H:%M} does not exist in {tz.key} (the clocks skip it): "
                f"give a time outside the change, or with its offset"
            )
        offsets = " or ".join(f"{naive:%Y-%m-%dT%H:%M}{_offset(x.astimezone(tz))}" for x in sorted((a, b)))
        raise WhenError(f"{naive:%Y-%m-%d %H:%M} happens twice in {tz.key}: write {offsets}")
    return first.astimezone(dt.UTC)


def _offset(value: dt.datetime) -> str:
    off = value.utcoffset() or dt.timedelta(0)
    sign = "-" if off < dt.timedelta(0) else "+"
    minutes = abs(int(off.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _natural(text: str, tz: ZoneInfo, now: dt.datetime) -> dt.datetime | None:
    import dateparser

    duration = bool(_DURATION.search(text))
    base_zone = dt.UTC if duration else tz
    settings = {
        "RELATIVE_BASE": now.astimezone(base_zone).replace(tzinfo=None),
        "PREFER_DATES_FROM": "future",
        "RETURN_AS_TIMEZONE_AWARE": False,
        "TIMEZONE": "UTC" if duration else tz.key,
        "TO_TIMEZONE": "UTC" if duration else tz.key,
        "STRICT_PARSING": False,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dateparser's own deprecation notes are not the user's business
        parsed: dt.datetime | None = dateparser.parse(text, languages=["en"], settings=settings)
    if parsed is None:
        return None
    if parsed.tzinfo is not None:  # the text named a zone or an offset itself
        return parsed.astimezone(dt.UTC)
    return parsed.replace(tzinfo=dt.UTC) if duration else localize(parsed, tz)


def parse_when(text: str, *, tz: str | ZoneInfo | None = None, now: dt.datetime) -> dt.datetime:
    """The aware UTC instant `text` names, read in zone `tz` when it has none; WhenError when it cannot be
    read, is in the past (before `now`), or is more than a hundred years ahead."""
    if now.tzinfo is None:
        raise ValueError("now must be aware")
    where = tz if isinstance(tz, ZoneInfo) else zone(tz)
    raw = " ".join(text.split())
    if not raw:
        raise WhenError(f"give a start time, {EXAMPLE}")
    if len(raw) > MAX_TEXT:
        raise WhenError(f"that is too long to be a time; {EXAMPLE}")
    raw, where = _zone_in_text(raw, where)
    _refuse_impossible(raw)
    at = _read(raw, where, now)
    if at is None:
        raise WhenError(f"cannot read {raw!r} as a time; {EXAMPLE}")
    if at <= now:
        raise WhenError(f"{at:%Y-%m-%d %H:%M} UTC is in the past; {EXAMPLE}")
    if at - now > MAX_AHEAD:
        raise WhenError(f"{at:%Y-%m-%d %H:%M} UTC is more than a hundred years ahead; {EXAMPLE}")
    return at


def _zone_in_text(raw: str, tz: ZoneInfo) -> tuple[str, ZoneInfo]:
    """The text without the IANA zone name it contains, and that zone (else the text and `tz` unchanged);
    the name is matched without regard to case (`europe/berlin`)."""
    found = _ZONE_TOKEN.search(raw)
    if found is None:
        return raw, tz
    key = _zone_keys().get(found.group(0).lower())
    if key is None:
        raise WhenError(f"unknown time zone {found.group(0)!r}: use an IANA name such as UTC or Europe/Berlin")
    rest = " ".join((raw[: found.start()] + " " + raw[found.end() :]).split())
    return rest, ZoneInfo(key)


_KEYS: dict[str, str] = {}


def _zone_keys() -> dict[str, str]:
    if not _KEYS:
        from zoneinfo import available_timezones

        _KEYS.update({key.lower(): key for key in available_timezones()})
    return _KEYS


def _refuse_impossible(raw: str) -> None:
    """Refuse what a lenient parser would guess at: a bare number, an hour or minute that no clock shows,
    a month or day no calendar has. WhenError names the part that does not exist."""
    if _NUMBER.fullmatch(raw) and not _UNIX.fullmatch(raw):
        raise WhenError(f"{raw!r} is a number, not a time; {EXAMPLE}")
    for clock in _CLOCK.finditer(raw):
        hour, minute, second = (int(part) if part else 0 for part in clock.groups())
        if hour > 23 or minute > 59 or second > 59:
            raise WhenError(f"{clock.group(0)} is not a time of day (00:00 to 23:59); {EXAMPLE}")
    for date in _DATE.finditer(raw):
        try:
            dt.date(*(int(part) for part in date.groups()))
        except ValueError:
            raise WhenError(f"{date.group(0)} is not a date (year-month-day); {EXAMPLE}") from None


def _read(raw: str, tz: ZoneInfo, now: dt.datetime) -> dt.datetime | None:
    if match := _DISCORD.fullmatch(raw):
        return _from_unix(float(match.group(1)))
    if _UNIX.fullmatch(raw):
        return _from_unix(float(raw))
    iso = raw[:-1] + "+00:00" if raw[-1:] in ("Z", "z") else raw
    try:
        value = dt.datetime.fromisoformat(iso)
    except ValueError:
        value = None
    if value is not None and re.match(r"\d{4}-\d{2}-\d{2}", raw):
        return value.astimezone(dt.UTC) if value.tzinfo is not None else localize(value, tz)
    return _natural(raw, tz, now)


def _from_unix(seconds: float) -> dt.datetime | None:
    try:
        return dt.datetime.fromtimestamp(seconds, dt.UTC)
    except (OverflowError, OSError, ValueError):
        return None


def iso(at: dt.datetime) -> str:
    """An instant as ISO-8601 UTC with a `Z` (`2026-12-05T19:00:00Z`)."""
    return at.astimezone(dt.UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")
