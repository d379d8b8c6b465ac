"""The tournament service: sign-up, rounds, results and withdrawals, on top of the host's match service.

No Discord here. It opens every match of a round through `MatchService.create_match`, and listens to
the host's events after the commit (`bot.host.subscribers`): when a tournament's match finishes,
`on_host_event` (in its own task, with every match finished since its last call) reads the match's stored
record and the tournament moves on by itself (the next round is paired when every game of this one is over).
Everything lives in the database; `start()` catches up on what happened while no process ran. A round
is paired exactly once even from two processes: pairing claims it with a conditional UPDATE of the
tournament's round number, in the same transaction that writes the round's games. Each game's match is
opened once too: a process first claims the game (`match_id` from NULL to OPENING, with its name, time and
the highest match id then) and only the winner creates the match; a claim left by a stopped process is
taken over after `STALE_S`, and the match it may have created meanwhile is found and kept, not doubled.

Timed parts (`bot.tournaments.due`, run as durable jobs by `bot.tournaments.timer` on `bot.jobs`, or once by
`run_due` in a terminal command): the automatic start at `starts_at` (players who did
not check in are removed first when the tournament has a check-in, and so are members who left the server, as the
adapter's `LeftServer` hook names them), each game's start time (`round_every`)
and, with `no_show` set, the per-game check-in: a game's match opens when both players are here (and its
time has come); a player still absent `no_show` seconds after the game's start loses it by no-show (a
finished match with the reason `no_show`, as for a scheduled DM); if neither came, the match opens anyway
then and the clocks decide.
"""

from __future__ import annotations

from bot.tournaments.lookup import MatchPlace, place_of
from bot.tournaments.model import (
    CANCELLED as CANCELLED,
)
from bot.tournaments.model import (
    FINISHED as FINISHED,
)
from bot.tournaments.model import (
    OPENING as OPENING,
)
from bot.tournaments.model import (
    PAUSED as PAUSED,
)
from bot.tournaments.model import (
    POLL_S as POLL_S,
)
from bot.tournaments.model import (
    RUNNING as RUNNING,
)
from bot.tournaments.model import (
    SEEDINGS as SEEDINGS,
)
from bot.tournaments.model import (
    SIGNUP as SIGNUP,
)
from bot.tournaments.model import (
    STALE_S as STALE_S,
)
from bot.tournaments.model import (
    Entry as Entry,
)
from bot.tournaments.model import (
    GameTaken as GameTaken,
)
from bot.tournaments.model import (
    LeftServer as LeftServer,
)
from bot.tournaments.model import (
    RatingOrder as RatingOrder,
)
from bot.tournaments.model import (
    RoomOpener as RoomOpener,
)
from bot.tournaments.model import (
    SeedOrder as SeedOrder,
)
from bot.tournaments.model import (
    StoredGame as StoredGame,
)
from bot.tournaments.model import (
    Tournament as Tournament,
)
from bot.tournaments.model import (
    TournamentEvent as TournamentEvent,
)
from bot.tournaments.model import (
    TournamentEventKind as TournamentEventKind,
)
from bot.tournaments.model import (
    TournamentListener as TournamentListener,
)
from bot.tournaments.opening import MatchOpening
from bot.tournaments.refusals import TournamentRefused as TournamentRefused
from bot.tournaments.registration import Registration
from bot.tournaments.results import Results
from bot.tournaments.running import Running
from bot.tournaments.timer import Timer


class TournamentService(Registration, Running, Results, MatchOpening, Timer):
    """Runs tournaments on one host service; one instance per process (beside the host service). Made of its
    parts (sign-up, running, results, opening, the timer: one module each), which share `TournamentCore`."""

    # -- reading for those outside this package (`bot.tournaments.lookup`) ------------------
    async def place_of(self, match_id: int) -> MatchPlace | None:
        """The tournament, round and board a match was opened for (None: not a tournament's match)."""
        return await place_of(self.engine, match_id)

    async def match_ids(self, tid: int) -> set[int]:
        """The matches opened for a tournament's games so far."""
        return {g.match_id for g in await self.games(tid) if g.match_id}
