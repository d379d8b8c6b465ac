"""Opening a match: created and started (`create_match`), or recorded as never played, won by forfeit
(`record_forfeit`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from bot.host.core import Committer, Hosting, loop_now
from bot.host.deadlines import deadline_of
from bot.host.effects import change, event, match_result, start_turn, started_event, take
from bot.host.events import EventKind, HostError, PlayerRef, Refusal
from bot.host.match import dump, new_live
from bot.host.rules import Effects
from bot.host.timers import Timers
from bot.store.leases import LeaseLost
from bot.store.matches import AlsoWrite, NewEvent
from bot.types import EndReason, MatchStatus

log = logging.getLogger(__name__)


class Openings:
    """Creates matches: stored with their first snapshot (and a correspondence match's first deadline), then
    hosted here, announced and armed."""

    def __init__(self, hosting: Hosting, commits: Committer, timers: Timers) -> None:
        self.hosting = hosting
        self.live = hosting.live
        self.store = hosting.store
        self.wall = hosting.wall
        self.commits = commits
        self.timers = timers

    async def create_match(
        self,
        game: str,
        players: list[PlayerRef],
        *,
        options: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        first: int | None = 1,
        advantage: int | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        by: str | None = None,
        rated: bool = True,
        practice: bool = False,
        machine: str | None = None,
        also: AlsoWrite | None = None,
        private: bool | None = None,
    ) -> int:
        """Create and start a match. `first` is the seat (1 or 2, by list order) that moves first;
        `advantage` (1 or 2) instead names the player who chooses; `rules` are house-rule choices;
        `rated=False` makes a casual match (stored with it; `bot.ratings` leaves it out);
        `practice`: one player is the practice opponent; `machine`: its player id, when it plays here (its moves are
        final at once: no rule keeps them provisional); `also(conn, match_id)` writes more in the transaction
        that stores the match (see `MatchStore.create_match`); `private`: whether its room is private (None: asked of
        `room_privacy`), stored with the match."""
        live = new_live(game, players, options, clock, rules, first, advantage)
        live.guild_id, live.channel_id, live.practice, live.started_at = guild_id, channel_id, practice, self.wall()
        live.machine = live.seat_of(machine) if machine is not None else None
        ruleset, tc, raw_opts, settings = live.ruleset, live.clocks.tc, live.raw_options, live.settings
        now = loop_now()
        eff = Effects()
        for rule in live.rules:
            eff = take(live, rule, rule.on_create(live, advantage), eff, now)
        change(live, eff, now)
        live.reask()  # the start's choices (who chooses first) put rules in play
        if live.status == MatchStatus.ONGOING:
            start_turn(live, now)
        created = NewEvent(
            "created",
            text=None,
            data={
                "game": ruleset.id,
                "options": raw_opts,
                "clock": tc.to_json(),
                "rules": settings,
                "players": {str(s): [p.id, p.name] for s, p in live.players.items()},
                "by": by,
                "advantage": advantage,
                "rated": rated,
                **({"practice": True} if practice else {}),
                **self._privacy(private, channel_id),
            },
        )
        wall = self.wall()
        snapshot = dump(live, now, self.hosting.instance, wall)
        job = deadline_of(live, now, wall)  # a correspondence match's first deadline, in the same transaction
        try:
            live.id = await self.store.create_match(
                game=ruleset.id,
                options=raw_opts,
                clock=tc.to_json(),
                status=live.status,
                players={s: (p.id, p.name) for s, p in live.players.items()},
                guild_id=guild_id,
                channel_id=channel_id,
                snapshot=snapshot,
                events=[created],
                rated=rated,
                also=self.hosting.deadlines.with_create(job, also),
            )
        except Exception as exc:
            found = await self.commits.created_after_all(snapshot)
            if found is None:
                if isinstance(exc, LeaseLost):  # another process hosts this place now: expected, one line
                    log.warning("creating a %s match was refused: %s", ruleset.id, exc)
                else:
                    log.exception("creating a %s match failed", ruleset.id)
                raise HostError(Refusal("not_saved")) from None
            log.warning("match %s: the database reported an error, but the match was created", found)
            live.id = found
        live.seq, live.committed = 1, (snapshot, 1)
        self.live[live.id] = live  # hosted here before its deadline is looked at (the runner takes hosted ones)
        self.hosting.deadlines.written(job)
        out = [event(live, n.kind, n.data, n.seat) for n in eff.say]
        for ev in out or [started_event(live)]:
            await self.hosting.publish(ev)
        self.timers.rearm(live)
        return live.id

    def _privacy(self, private: bool | None, channel_id: int | None) -> dict[str, bool]:
        """The `created` event's `private` key: as given, else as the face's `room_privacy` says (no key
        when nobody knows: lists then go by the server's room mode)."""
        if private is None and self.hosting.room_privacy is not None:
            private = self.hosting.room_privacy(channel_id)
        return {} if private is None else {"private": bool(private)}

    async def record_forfeit(
        self,
        game: str,
        players: list[PlayerRef],
        winner: int,
        reason: str,
        *,
        options: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        by: str | None = None,
        rated: bool = True,
        also: AlsoWrite | None = None,
        private: bool | None = None,
    ) -> int:
        """Store a match that was never played as won by seat `winner` (1 or 2, by list order) for `reason`
        (an `EndReason` such as `no_show`): created and finished at once in one transaction (with `also`,
        as in `create_match`), nothing runs. Subscribers hear one `finished` event (its `detail` says
        `unplayed`), as for any match that ends, so ratings and tournaments record it at once. Returns its id.
        `rated=False` stores it as casual (a game of an unrated tournament)."""
        if winner not in (1, 2):
            raise HostError("winner must be 1 or 2")
        try:
            why = EndReason(reason)
        except ValueError:
            raise HostError(f"no such end reason: {reason!r}") from None
        live = new_live(game, players, options, clock, rules, 1, None)
        live.status, live.result = MatchStatus.FINISHED, (winner, why)
        live.guild_id, live.channel_id, live.started_at = guild_id, channel_id, self.wall()
        snapshot = dump(live, loop_now(), self.hosting.instance)
        created = NewEvent(
            "created",
            data={
                "game": live.ruleset.id,
                "options": live.raw_options,
                "clock": live.clocks.tc.to_json(),
                "rules": live.settings,
                "players": {str(s): [p.id, p.name] for s, p in live.players.items()},
                "by": by,
                "advantage": None,
                **self._privacy(private, channel_id),
            },
        )
        ending = [
            NewEvent("forfeit", 3 - winner, data={"reason": why.value, "by": by}),
            NewEvent("finished", winner, data={"winner": winner, "reason": why.value}),
        ]
        try:
            match_id = await self.store.create_match(
                game=live.ruleset.id,
                options=live.raw_options,
                clock=live.clocks.tc.to_json(),
                status=MatchStatus.FINISHED,
                players={s: (p.id, p.name) for s, p in live.players.items()},
                guild_id=guild_id,
                channel_id=channel_id,
                snapshot=snapshot,
                events=[created, *ending],
                rated=rated,
                also=also,
                result=(winner, why.value),
            )
        except Exception:
            log.exception("recording a forfeit of a %s match failed", live.ruleset.id)
            raise HostError("the result could not be saved; try again in a moment") from None
        live.id = match_id
        data = {"winner": winner, "winner_name": live.players[winner].name, "reason": why.value}
        await self.hosting.publish(
            event(
                live,
                EventKind.FINISHED,
                data,
                detail={"by_host": True, "unplayed": True},
                result=match_result(live, winner, why, self.wall()),
            )
        )
        return match_id
