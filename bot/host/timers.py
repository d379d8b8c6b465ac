"""A built match's in-memory timers: its clocks' deadlines and its rules' timers, one task per match that sleeps
until the earliest and rules on what fell due (`Timers.fire_due`), through the commit path (`bot.host.core`)."""

from __future__ import annotations

import asyncio
import logging

from bot.host.core import Committer, Hosting, Unconfirmed, loop_now
from bot.host.deadlines import memory_due
from bot.host.effects import Batch, apply, away, clock_deadline
from bot.host.match import Live, Unsaved, roll_back
from bot.types import ClockKind, MatchStatus

log = logging.getLogger(__name__)


class Timers:
    """Arms each built match's timer task (`rearm`, after every action) and rules on what fell due."""

    def __init__(self, hosting: Hosting, commits: Committer) -> None:
        self.hosting = hosting
        self.commits = commits

    def rearm(self, live: Live) -> None:
        """(Re)start the match's timer task, unless it is the one running now or the match is no longer here."""
        if self.hosting.closed or live.id not in self.hosting.live:
            return
        current = asyncio.current_task()
        if live.task is not None and not live.task.done():
            if live.task is current:
                return
            live.task.cancel()
        live.task = asyncio.create_task(self._loop(live), name=f"match-{live.id}-timers")

    async def _loop(self, live: Live) -> None:
        loop = asyncio.get_running_loop()
        hosting = self.hosting
        while live.id in hosting.live:
            due = memory_due(live, loop_now())
            if due is None:
                return
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if not hosting.caught_up.is_set() and live.clocks.tc.kind == ClockKind.CORRESPONDENCE:
                await hosting.caught_up.wait()
            async with live.lock:
                if live.id not in hosting.live:
                    return
                live.acting = True
                try:
                    if not await self.commits.settled(live):
                        raise Unconfirmed
                    await self.fire_due(live)
                except Unsaved:
                    pass  # back to the saved state: the deadline is due again and is retried below
                except Exception:
                    log.exception("timer handling failed in match %s", live.id)
                    roll_back(live, loop_now())
                else:
                    continue
                finally:
                    live.acting = False
            await asyncio.sleep(1)

    async def fire_due(self, live: Live) -> None:
        """Rule, under the match's lock, on what fell due: a vacation's end, rules' timers, the clock."""
        at = loop_now()
        flush, wall = self.commits.flush, self.hosting.wall
        if live.status == MatchStatus.PAUSED:
            return
        for seat, (ends, _unix) in sorted(live.away.items()):
            if ends <= at + 1e-9:  # the vacation is over: the clock runs again
                await flush(live, away(live, seat, None, loop_now(), wall()))
        for (key, name), due in sorted(live.due.items(), key=lambda kv: kv[1]):
            if due > at + 1e-9 or (key, name) not in live.due:
                continue
            del live.due[(key, name)]
            rule = next((r for r in live.rules if r.key == key), None)
            if rule is None:
                continue
            batch = Batch()
            apply(live, rule, rule.on_timer(live, name), batch, loop_now(), wall())
            live.reask()  # the timer may put a rule in or out of play
            await flush(live, batch)
            if live.id not in self.hosting.live:
                return
        if live.status != MatchStatus.ONGOING:
            return
        for deadline in live.clocks.next_deadlines(at):
            if deadline.at > at + 1e-9:
                break
            await flush(live, clock_deadline(live, deadline.kind, deadline.seat, loop_now(), wall()))
            if live.status != MatchStatus.ONGOING:
                return
