"""Correspondence matches kept unloaded until they are needed (issue 41: 10,000 of them in one process).

After a restart a correspondence match waits days for a move; building it (its game state, rules, clocks)
and writing its `resumed` entry for every one of them made the start-up take minutes. So the service keeps
an `Idle` record instead: what finds the match (its id, server, room, players, read from the match's row and
its players' rows) and the snapshot as stored, JSON text *not decoded* (the start-up reads no snapshot into
objects). Its deadlines are not read either: they are its durable job (`bot.host.deadlines`), which wakes it
when one comes. The match is built (`resumed`, as at start-up) the moment anything looks it up — a move, a
command, a list — or its job comes due; its `resumed` event is published before its next event and its
`resumed` log entry goes with its next write (`Live.unannounced`, `Live.unlogged`).

`Hosted` is the service's `live` mapping: it holds the built matches and the idle ones, and every look-up
(`get`, `[]`, `values()`, iteration over items) builds an idle match first, so a caller always gets the
live match. `in` and `len` count both without building anything.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, overload

from bot.host.match import Live, resumed
from bot.store.matches import StoredMatch
from bot.types import ClockKind, MatchStatus

if TYPE_CHECKING:
    from _collections_abc import dict_items, dict_values

__all__ = ["Hosted", "Idle", "lazy"]

_T = TypeVar("_T")


def lazy(stored: StoredMatch, text: str) -> bool:
    """Whether a stored match may wait unloaded: a correspondence match (its deadlines are absolute, so
    building it later gives the same match) that no practice opponent plays (the opponent watches its match).
    Read from the match's row (`clock`); a casual match's snapshot is decoded, to tell practice, only when its
    text names a practice opponent at all."""
    if (stored.clock or {}).get("kind") != ClockKind.CORRESPONDENCE:
        return False
    return stored.rated or '"practice"' not in text or not json.loads(text).get("practice")


@dataclass(slots=True)
class Idle:
    """An unloaded correspondence match: enough to find it, and its snapshot to build it."""

    id: int
    guild_id: int | None
    channel_id: int | None
    players: tuple[str, ...]
    """The players' ids by seat (1, 2)."""
    game: str
    options: str
    status: str
    created_at: dt.datetime
    event_count: int
    rated: bool
    snapshot: str
    """The stored snapshot as JSON text, as stored (decoded only when the match is built)."""

    @classmethod
    def of(cls, stored: StoredMatch, text: str) -> Idle:
        """The idle record of a stored correspondence match (see `lazy`); `text`: its snapshot as stored."""
        return cls(
            id=stored.id,
            guild_id=stored.guild_id,
            channel_id=stored.channel_id,
            players=tuple(stored.players[s][0] for s in sorted(stored.players)),
            game=stored.game,
            options=_text(stored.options),
            status=str(stored.status),
            created_at=stored.created_at,
            event_count=stored.event_count,
            rated=stored.rated,
            snapshot=text,
        )

    def build(self, now: float, wall_now: dt.datetime) -> Live:
        """The match made live at loop time `now` (as a start-up would: the time away charged)."""
        stored = StoredMatch(
            id=self.id,
            game=self.game,
            options=json.loads(self.options),
            clock={},
            status=MatchStatus(self.status),
            guild_id=self.guild_id,
            channel_id=self.channel_id,
            created_at=self.created_at,
            finished_at=None,
            winner_seat=None,
            result_reason=None,
            event_count=self.event_count,
            snapshot=json.loads(self.snapshot),
            players={},
            rated=self.rated,
        )
        return resumed(stored, now, wall_now, None)


def _text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class Hosted(dict[int, Live]):
    """The matches a service hosts: built ones (the dict itself) and idle ones (`idle`), built on look-up by
    `wake` (which moves the match from `idle` into the dict; None when it could not be built)."""

    def __init__(self, wake: Callable[[int], Live | None]) -> None:
        super().__init__()
        self.idle: dict[int, Idle] = {}
        self._wake = wake

    # -- look-ups that build --------------------------------------------------------
    def __getitem__(self, key: int) -> Live:
        if key in self.idle:
            self._wake(key)
        return super().__getitem__(key)

    @overload
    def get(self, key: int, default: None = None, /) -> Live | None: ...
    @overload
    def get(self, key: int, default: Live, /) -> Live: ...
    @overload
    def get(self, key: int, default: _T, /) -> Live | _T: ...
    def get(self, key: int, default: Any = None, /) -> Any:
        if key in self.idle:
            self._wake(key)
        return super().get(key, default)

    def values(self) -> dict_values[int, Live]:
        """Every hosted match, built (idle ones are built first: use `awake` or `idle` to avoid it)."""
        self.wake_all()
        return super().values()

    def items(self) -> dict_items[int, Live]:
        self.wake_all()
        return super().items()

    def wake_all(self, keep: Callable[[Idle], bool] | None = None) -> None:
        """Build the idle matches (those `keep` picks), in id order."""
        for key in sorted(k for k, idle in self.idle.items() if keep is None or keep(idle)):
            if key in self.idle:
                self._wake(key)

    # -- reading without building ---------------------------------------------------
    def __contains__(self, key: object) -> bool:
        return super().__contains__(key) or key in self.idle

    def __iter__(self) -> Iterator[int]:
        yield from list(super().keys())
        yield from list(self.idle)

    def __len__(self) -> int:
        return super().__len__() + len(self.idle)

    def awake(self) -> list[Live]:
        """The built matches only."""
        return list(super().values())

    # -- changes --------------------------------------------------------------------
    def pop(self, key: int, default: Any = None, /) -> Any:
        self.idle.pop(key, None)
        return super().pop(key, default)

    def clear(self) -> None:
        self.idle.clear()
        super().clear()
