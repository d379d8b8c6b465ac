"""Correspondence players away and reminded: vacation (`/dm event vacation days:N`: a player's clocks stand
still in every correspondence match of theirs in a server, within a yearly allowance the server sets, 14 days
by default). (What a daily digest lists: `bot.host.digest`.)

Days are counted whole and charged when the vacation is taken, to the calendar year (UTC) it begins in;
ending it early (`days:0`) gives back the whole days not begun. A move posted while away is played as any
move (its time is not charged) and does not end the vacation. Matches that start during a vacation are
not stopped. No sentences here: a refusal is a `VacationRefused` code with its data (`bot.wording` words it).

The terminal room (`NAME: vacation N`) has no server: its matches have no guild (`guild_id` None), and its
players' allowance and days are kept under `TERMINAL_GUILD` (no Discord server has id 0).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from bot.host.service import MatchService
from bot.store.correspondence import CorrespondenceStore
from bot.types import OVER_STATUSES, ClockKind

DAY = 86400
TERMINAL_GUILD = 0
"""Where the terminal room's players' vacation days are kept (its matches have no guild)."""


class VacationRefused(Exception):
    """A vacation that cannot be taken (or ended): `code` names the sentence, `data` fills it."""

    def __init__(self, code: str, **data: Any) -> None:
        super().__init__(code)
        self.code = code
        self.data = data


@dataclass(frozen=True)
class Vacation:
    """What a vacation command did: the matches whose clock stopped (or runs again), when the vacation ends
    (None: it ended now), the days taken this year of the allowance, and the days given back."""

    matches: list[int] = field(default_factory=list)
    until: dt.datetime | None = None
    used: int = 0
    allowance: int = 0
    refunded: int = 0


def correspondence_matches(service: MatchService, guild_id: int | None, player_id: str) -> list[int]:
    """The ids of the player's running correspondence matches in the guild (None: the terminal's)."""
    return [
        live.id
        for live in service.player_matches(player_id, guild_id)
        if live.clocks.tc.kind == ClockKind.CORRESPONDENCE and live.status not in OVER_STATUSES
    ]


async def take_vacation(
    service: MatchService, store: CorrespondenceStore, guild_id: int | None, player_id: str, days: int
) -> Vacation:
    """Start a vacation of `days` days now, or (`days` 0) end the current one; VacationRefused when it cannot.
    `guild_id` None: the terminal room's matches (its days kept under `TERMINAL_GUILD`)."""
    now = service.wall()
    year = now.year
    kept = TERMINAL_GUILD if guild_id is None else guild_id
    player = await store.player(kept, player_id)
    allowance = await store.allowance(kept)
    used = player.used_in(year)
    if days <= 0:
        if not player.away(now) or player.away_until is None:
            raise VacationRefused("vacation_not_away")
        back = int((player.away_until - now).total_seconds() // DAY)
        used = max(0, used - back)
        await store.save(kept, player_id, vacation_year=year, vacation_used=used, away_until=None)
        matches = await service.set_away(player_id, guild_id, None)
        return Vacation(matches, None, used, allowance, back)
    if player.away(now) and player.away_until is not None:
        raise VacationRefused("vacation_already", until=int(player.away_until.timestamp()))
    if used + days > allowance:
        raise VacationRefused("vacation_allowance", left=max(0, allowance - used), allowance=allowance, days=days)
    if not correspondence_matches(service, guild_id, player_id):
        raise VacationRefused("vacation_no_match")
    until = now + dt.timedelta(days=days)
    await store.save(kept, player_id, vacation_year=year, vacation_used=used + days, away_until=until)
    matches = await service.set_away(player_id, guild_id, until)
    return Vacation(matches, until, used + days, allowance)
