"""Notices owed durably (the outbox, `bot.store.outbox`): the events people must hear of — a reminder, a
result — are stored in the transaction of the action that made them, each under a key of its own, and a face
marks each told once it told it; a face that starts tells first what its matches still owe (the room died
between its commit and its telling). A service owes notices only when a face that tells them runs on it
(`MatchService.tells`): a process with no face (the shard host, the review pages) owes nothing.

`NOTICE_KINDS` is the set of event kinds owed so; a feature that adds a notice of its own adds its kind here or
writes its own rows (`bot.store.outbox.owe`) under a key namespace of its own.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any, Final

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.host.events import EventKind, HostEvent
from bot.store.outbox import Notice

REMINDER: Final = "reminder"

NOTICE_KINDS: set[str] = {REMINDER, EventKind.FINISHED}
"""The event kinds a face owes durably (told once across kills)."""


def notice_key(match_id: int, seq: int, kind: str, index: int = 0) -> str:
    """The key of an event's notice: its match, the log position its action began at, its kind (and its place
    among the action's events of that kind, when there are several)."""
    return f"notice:{match_id}:{seq}:{kind}" + (f":{index}" if index else "")


def _plain(value: Any) -> Any:
    """JSON-safe (what cannot be said in JSON is said as text)."""
    return json.loads(json.dumps(value, default=str))


def owed(events: Sequence[HostEvent], seq: int, scope: int | None) -> tuple[list[HostEvent], list[Notice]]:
    """The events of one action (its log began at `seq`), those owed durably named by their notice key, and the
    notices to store with the action."""
    out: list[HostEvent] = []
    notices: list[Notice] = []
    seen: dict[str, int] = {}
    for ev in events:
        if ev.kind not in NOTICE_KINDS:
            out.append(ev)
            continue
        index = seen.get(ev.kind, 0)
        seen[ev.kind] = index + 1
        key = notice_key(ev.match_id, seq, ev.kind, index)
        payload = {
            "data": _plain(dict(ev.data)),
            "seat": ev.seat,
            "names": {str(k): v for k, v in ev.names.items()},
            "detail": _plain(dict(ev.detail)),
        }
        notices.append(Notice(key, ev.kind, ev.match_id, scope, payload))
        out.append(dataclasses.replace(ev, notice=key))
    return out, notices


def event_of(notice: Notice) -> HostEvent:
    """A stored notice as the event a face tells (its data, seat, names and detail; no board facts)."""
    payload = notice.payload
    names = {int(k): str(v) for k, v in dict(payload.get("names") or {}).items()}
    return HostEvent(
        match_id=int(notice.match_id or 0),
        kind=notice.kind,
        data=dict(payload.get("data") or {}),
        seat=payload.get("seat"),
        names=names,
        detail=dict(payload.get("detail") or {}),
        notice=notice.key,
        late=True,
    )


class Owing:
    """The outbox write of one action, for `MatchStore.append(also=…)` (with the deadline job's, if any)."""

    def __init__(self, notices: list[Notice], also: Any = None) -> None:
        self.notices = notices
        self.also = also

    async def __call__(self, conn: AsyncConnection) -> None:
        if self.also is not None:
            await self.also(conn)
        from bot.store.outbox import owe

        await owe(conn, self.notices)
