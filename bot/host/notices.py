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
import logging
from collections.abc import Callable, Collection, Sequence
from typing import Any, Final, Protocol

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.host.events import EventKind, HostEvent
from bot.store import outbox
from bot.store.matches import MatchStore
from bot.store.outbox import Notice

log = logging.getLogger(__name__)

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
    """The outbox write of one action, for `MatchStore.write_batch(also=…)` (with the deadline job's, if any)."""

    def __init__(self, notices: list[Notice], also: Any = None) -> None:
        self.notices = notices
        self.also = also

    async def __call__(self, conn: AsyncConnection) -> None:
        if self.also is not None:
            await self.also(conn)
        from bot.store.outbox import owe

        await owe(conn, self.notices)


class Owner(Protocol):
    """What the outbox reads of the service's shared state (`bot.host.core.Hosting`)."""

    store: MatchStore
    instance: str
    owns_guild: Callable[[int | None], bool]


class Outbox:
    """The notices a face still owes (`untold`, `untold_here`) and marking them told (`told`)."""

    def __init__(self, hosting: Owner) -> None:
        self.hosting = hosting

    async def untold(self, match_ids: Collection[int]) -> list[HostEvent]:
        """The notices of these matches committed but not told yet (their process died in between), oldest
        first, as the events to tell again (`late`): a face tells them at its start, then marks them `told`."""
        async with self.hosting.store.engine.connect() as conn:
            stored = await outbox.untold(conn, match_ids)
        return [event_of(n) for n in stored]

    async def untold_here(self) -> list[HostEvent]:
        """The notices of the guilds this process hosts (their shards) committed but not told yet, oldest first,
        as the events to tell again (`late`): the Discord announcer tells them after the start's catch-up."""
        async with self.hosting.store.engine.connect() as conn:
            stored = await outbox.untold_in_guilds(conn)
        return [event_of(n) for n in stored if self.hosting.owns_guild(n.scope)]

    async def told(self, *events: HostEvent) -> None:
        """A face told these events: their notices are owed no more (an event owed nothing is skipped). A
        failure is logged and the notice stays owed (told again at the next start)."""
        keys = {ev.notice for ev in events if ev.notice}
        if not keys:
            return
        try:
            async with self.hosting.store.engine.begin() as conn:
                await outbox.mark_told(conn, keys, self.hosting.instance)
        except Exception:
            log.warning("notice(s) %s could not be marked told; they stay owed", sorted(keys), exc_info=True)
