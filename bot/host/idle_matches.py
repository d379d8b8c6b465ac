"""The service's idle correspondence matches (`bot.host.idle`): kept unloaded, built on look-up or a little
before their deadline; and the look-ups that build only what they need."""

from __future__ import annotations

import asyncio
import heapq
import logging

from bot.host.core import ServiceCore
from bot.host.idle import Idle
from bot.host.match import Live, dump

log = logging.getLogger(__name__)

WAKE_AHEAD = 0.5
"""Seconds before its deadline an idle correspondence match is built, so it is ruled on time."""


class IdleMatches(ServiceCore):
    """Idle matches: planned by their deadlines, built by `_wake` (the `Hosted` mapping calls it on look-up)."""

    def _idle(self, idle: Idle) -> None:
        """Keep a match idle until it is looked up or its deadline comes near (`_plan_idle` then plans)."""
        self.live.idle[idle.id] = idle
        if idle.due is not None:
            heapq.heappush(self._idle_due, (idle.due, idle.id))

    def _plan_idle(self) -> None:
        """(Re)start the task that builds idle matches at their deadlines (it sleeps until the soonest)."""
        if self._idle_task is not None and not self._idle_task.done():
            self._idle_task.cancel()
        self._idle_task = None
        if not self._closed and self._idle_due:
            self._idle_task = asyncio.create_task(self._idle_loop(), name="idle-matches")

    def _wake(self, match_id: int) -> Live | None:
        """Build an idle match now (its clocks charged for the time it waited), arm its timers; its `resumed`
        event and log entry follow with its next action (`_announce`, `_commit`). None if it cannot be built."""
        idle = self.live.idle.pop(match_id, None)
        if idle is None:
            return None
        now, wall = self.now(), self.wall()
        try:
            live = idle.build(now, wall)
            live.committed = (dump(live, now, self.instance, wall), live.seq)
        except Exception:
            log.exception("match %s could not be resumed", match_id)
            return None
        live.unannounced = live.unlogged = True
        dict.__setitem__(self.live, live.id, live)
        self._rearm(live)
        return live

    async def wake(self, match_id: int) -> Live | None:
        """A hosted match, built if it was idle, its `resumed` event published (None: not hosted here)."""
        live = self.live.get(match_id)
        if live is not None and live.unannounced:
            async with live.lock:
                await self._announce(live)
        return live

    async def _idle_loop(self) -> None:
        """Build each idle match a little before its deadline; ends when none is left, or until the offline
        catch-up is over (`rule_overdue` plans again)."""
        heap = self._idle_due
        while self.caught_up.is_set():
            while heap and (heap[0][1] not in self.live.idle or self.live.idle[heap[0][1]].due != heap[0][0]):
                heapq.heappop(heap)  # woke, dropped or re-read since
            if not heap:
                return
            delay = heap[0][0] - WAKE_AHEAD - self.now()
            if delay > 0:
                await asyncio.sleep(delay)
                continue
            _due, match_id = heapq.heappop(heap)
            self._wake(match_id)
            await asyncio.sleep(0)

    # -- look-ups that build only what they need (and the overview queries of issue 28) ------------
    def rooms(self) -> list[int]:
        """The rooms (channel ids) of every match hosted here, idle ones included, without building any."""
        ids = {lv.channel_id for lv in self.live.awake()} | {i.channel_id for i in self.live.idle.values()}
        return sorted(c for c in ids if c is not None)

    def player_matches(self, player_id: str, guild_id: int | None) -> list[Live]:
        """A player's matches hosted here in a guild (all guilds for None), oldest first: only those are built."""
        self.live.wake_all(lambda i: player_id in i.players and (guild_id is None or i.guild_id == guild_id))
        return [lv for lv in self.live_in_guild_awake(guild_id) if lv.seat_of(player_id) is not None]

    def live_in_guild_awake(self, guild_id: int | None) -> list[Live]:
        """The built matches of a guild (all for None), oldest first."""
        return sorted(
            (lv for lv in self.live.awake() if guild_id is None or lv.guild_id == guild_id), key=lambda lv: lv.id
        )

    def live_in_guild(self, guild_id: int | None) -> list[Live]:
        """The matches hosted right now in a guild (all of them for None: the terminal room), oldest first
        (idle ones built)."""
        self.live.wake_all(lambda i: guild_id is None or i.guild_id == guild_id)
        return self.live_in_guild_awake(guild_id)
