"""Why the tournament service refused a request, as data: a `RefusalCode` and the facts its sentence needs.

The sentences are in `bot.wording.tournaments` (`REFUSALS`); `bot.wording.error_text` words a
`TournamentRefused` as it words the host's refusals, so every adapter says it the same way.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from bot.host.events import HostError, Refusal

KIND = "tournament"
"""The `Refusal.kind` of every tournament refusal."""


class RefusalCode(StrEnum):
    """Every refusal of the tournament service (and its terminal commands); the data each one carries is
    named in its template in `bot.wording.tournaments.REFUSALS`."""

    NO_TOURNAMENT = "no_tournament"
    NO_GAME = "no_game"
    START_PAST = "start_past"
    BAD_TIME = "bad_time"
    BAD_SEEDING = "bad_seeding"
    BAD_NAME = "bad_name"
    NAME_CHARS = "name_chars"
    PRIZE_LONG = "prize_long"
    BAD_FORMAT = "bad_format"
    BAD_ROUNDS = "bad_rounds"
    BAD_BYE = "bad_bye"
    TOO_SMALL = "too_small"
    NAIVE_TIME = "naive_time"
    NO_CHECKIN = "no_checkin"
    CHECKIN_OVER = "checkin_over"
    CHECKIN_EARLY = "checkin_early"
    NOT_JOINED = "not_joined"
    ALREADY_HERE = "already_here"
    BYE_NO_CHECKIN = "bye_no_checkin"
    NOT_IN_GAME = "not_in_game"
    GAME_NOT_WAITING = "game_not_waiting"
    GAME_ALREADY_HERE = "game_already_here"
    NO_GAME_WAITING = "no_game_waiting"
    SIGNUP_CLOSED = "signup_closed"
    SIGNUP_CLOSED_AT = "signup_closed_at"
    ALREADY_JOINED = "already_joined"
    FULL = "full"
    NOT_ENTERED = "not_entered"
    BAD_MISSED = "bad_missed"
    NOTHING_MISSED = "nothing_missed"
    OVER_NO_WITHDRAW = "over_no_withdraw"
    ALREADY_STARTED = "already_started"
    TOO_FEW = "too_few"
    BAD_SEED_ORDER = "bad_seed_order"
    NOT_RUNNING = "not_running"
    ROUND_UNFINISHED = "round_unfinished"
    ALREADY_PAIRED = "already_paired"
    BAD_RESULT = "bad_result"
    NO_GAMES = "no_games"
    NO_BOARD = "no_board"
    NOT_PAUSED = "not_paused"
    ALREADY_OVER = "already_over"
    CHANGED = "changed"


class TournamentRefused(HostError):
    """A refused request that changed nothing: `refusal` says why as a code and data (adapters answer it as
    they answer the host's refusals, with `bot.wording.error_text`). A refusal of the host core met on the
    way (a match option, a clock) is passed on as it is."""

    def __init__(self, code: RefusalCode | Refusal, /, **data: Any) -> None:
        super().__init__(code if isinstance(code, Refusal) else Refusal(code.value, kind=KIND, data=data))

    @property
    def code(self) -> str:
        """The refusal's code (a `RefusalCode` value for the tournament's own refusals)."""
        return self.refusal.code
