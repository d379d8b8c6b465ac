"""The practice opponent behind `/dm practice`: `bot.adapters.practice.PracticeBot`, every game and level."""

from __future__ import annotations

from bot.adapters.practice import PracticeBot
from bot.host.service import MatchService
from games.opponents import LEVELS
from games.opponents import check_level as _check_level


def levels(game: str) -> tuple[str, ...]:
    """The levels the practice opponent plays `game` at (empty: no opponent for this game)."""
    return tuple(LEVELS.get(game, ()))


def check_level(game: str, level: str) -> str:
    """The level in canonical form, or a ValueError that names the levels of `game`."""
    return _check_level(game, level)


def opponent(service: MatchService, player_id: str) -> PracticeBot:
    """The practice opponent playing as `player_id` (`watch(match_id, level)`, `close()`)."""
    return PracticeBot(service, player_id=player_id)
