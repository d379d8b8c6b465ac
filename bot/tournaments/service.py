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

Timed parts (`bot.tournaments.due`, run as durable jobs kept by `bot.tournaments.timer` on `bot.jobs`, or once
by `run_due` in a terminal command): the automatic start at `starts_at` (players who did
not check in are removed first when the tournament has a check-in, and so are members who left the server, as the
adapter's `LeftServer` hook names them), each game's start time (`round_every`)
and, with `no_show` set, the per-game check-in: a game's match opens when both players are here (and its
time has come); a player still absent `no_show` seconds after the game's start loses it by no-show (a
finished match with the reason `no_show`, as for a scheduled DM); if neither came, the match opens anyway
then and the clocks decide.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Sequence

from bot.host.events import HostEvent
from bot.host.service import MatchService
from bot.jobs import JobQueue
from bot.tournaments.advance import Advancer
from bot.tournaments.core import TournamentCore
from bot.tournaments.due import Due
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
from bot.tournaments.opening import Opening
from bot.tournaments.pairer import Finisher, Pairer
from bot.tournaments.recording import Recorder
from bot.tournaments.refusals import TournamentRefused as TournamentRefused
from bot.tournaments.registration import Registration
from bot.tournaments.results import Results
from bot.tournaments.rounds import Pairing, Result
from bot.tournaments.running import Running
from bot.tournaments.standings import Standing
from bot.tournaments.timer import Owed, Timer

Hear = Callable[[Callable[[Sequence[HostEvent]], Awaitable[None]]], None]
"""How the service subscribes to the host's events (see `TournamentCore.hear`)."""


class TournamentService:
    """Runs tournaments on one host service; one instance per process (beside the host service). A façade: each
    action is one call into the collaborator that does it, each given what it needs here, once (see
    `bot.tournaments.core`). It is built from a ready `TournamentCore`, which alone takes the host and the
    options (the clock, the jobs runner, the hooks): `TournamentService(TournamentCore(host, wall=wall))`."""

    def __init__(self, core: TournamentCore) -> None:
        """The façade over `core` (built with the host and its options: `TournamentCore(host, wall=…, jobs=…)`),
        and the collaborators it builds on it."""
        self.core = core
        self._owed = owed = Owed()
        self.timer = timer = Timer(core, owed)
        self.recorder = recorder = Recorder(core)
        pairer = Pairer(core, timer, Finisher(core))
        self.advancer = advancer = Advancer(core, recorder, pairer, Opening(core, recorder), timer)
        self.registration = Registration(core, timer, advancer)
        # The action with a long signature is its collaborator's own bound method: one signature to keep.
        self.create = self.registration.create
        """Open a tournament for sign-up (see `Registration.create`); returns its id."""
        self.running = running = Running(core, pairer, advancer, timer)
        self.results = Results(core, recorder, advancer, owed)
        self.due = Due(core, timer, owed, running, advancer)

    # -- what the composition root and the faces set ---------------------------------------
    @property
    def publish(self) -> TournamentListener | None:
        """Where its events go: the composition root's bus (`Bus.tell`); None: nobody hears them."""
        return self.core.publish

    @publish.setter
    def publish(self, listener: TournamentListener | None) -> None:
        self.core.publish = listener

    @property
    def hear(self) -> Hear | None:
        """How it subscribes to the host's events (`listen`), set by the root; None: it hears nothing."""
        return self.core.hear

    @hear.setter
    def hear(self, hear: Hear | None) -> None:
        self.core.hear = hear

    @property
    def open_room(self) -> RoomOpener | None:
        """The face's hook giving a game its room (None: the tournament's channel)."""
        return self.core.open_room

    @open_room.setter
    def open_room(self, hook: RoomOpener | None) -> None:
        self.core.open_room = hook

    @property
    def left_server(self) -> LeftServer | None:
        """The face's hook naming the entrants who left the server (taken out at the automatic start)."""
        return self.core.left_server

    @left_server.setter
    def left_server(self, hook: LeftServer | None) -> None:
        self.core.left_server = hook

    @property
    def rating_order(self) -> RatingOrder | None:
        """Seeding by rating (`seeding:rating`); None: sign-up order."""
        return self.core.rating_order

    @rating_order.setter
    def rating_order(self, hook: RatingOrder | None) -> None:
        self.core.rating_order = hook

    @property
    def seed_order(self) -> SeedOrder:
        """Seeding by sign-up (`seeding:joined`)."""
        return self.core.seed_order

    @seed_order.setter
    def seed_order(self, hook: SeedOrder) -> None:
        self.core.seed_order = hook

    # -- what it runs on -------------------------------------------------------------------
    @property
    def host(self) -> MatchService:
        """The host's match service its matches are opened on."""
        return self.core.host

    @property
    def wall(self) -> Callable[[], dt.datetime]:
        """Its clock."""
        return self.core.wall

    @property
    def instance(self) -> str:
        """This process's name on its claims."""
        return self.core.instance

    @property
    def jobs(self) -> JobQueue:
        """The durable jobs its times are kept in."""
        return self.core.jobs

    @property
    def owed(self) -> bool:
        """A finished match's result could not be stored: `settle_owed` records it."""
        return self._owed.owed

    # -- reading ---------------------------------------------------------------------------
    async def get(self, tid: int) -> Tournament:
        """A tournament, or a refusal naming the id."""
        return await self.core.get(tid)

    async def tournaments(self, guild_id: int | None = None) -> list[Tournament]:
        """Tournaments (of a guild), newest first."""
        return await self.core.tournaments(guild_id)

    async def entries(self, tid: int) -> list[Entry]:
        """Entries in the order they joined."""
        return await self.core.entries(tid)

    async def games(self, tid: int) -> list[StoredGame]:
        """Every pairing so far, by round and board."""
        return await self.core.games(tid)

    async def rounds(self, tid: int) -> list[list[Pairing]]:
        """The pairings of every round (index 0 = round 1)."""
        return await self.core.rounds(tid)

    async def names(self, tid: int) -> dict[int, str]:
        """Entry number → display name."""
        return await self.core.names(tid)

    async def standings(self, tid: int) -> list[Standing]:
        """The table now."""
        return await self.core.standings(tid)

    async def waiting_in(self, room_id: int) -> list[StoredGame]:
        """Games whose room is this channel and whose match has not opened yet (they take check-ins)."""
        return await self.core.waiting_in(room_id)

    async def decided_in(self, room_id: int) -> list[Tournament]:
        """Tournaments with a game in this room that has its result."""
        return await self.core.decided_in(room_id)

    async def signup_in(self, channel_id: int) -> list[Tournament]:
        """Tournaments taking sign-up (and check-in) in this channel."""
        return await self.core.signup_in(channel_id)

    async def game(self, game_id: int) -> tuple[Tournament, StoredGame]:
        """A stored game and its tournament."""
        return await self.core.game(game_id)

    async def place_of(self, match_id: int) -> MatchPlace | None:
        """The tournament, round and board a match was opened for (None: not a tournament's match)."""
        return await place_of(self.core.engine, match_id)

    async def match_ids(self, tid: int) -> set[int]:
        """The matches opened for a tournament's games so far."""
        return {g.match_id for g in await self.core.games(tid) if g.match_id}

    # -- sign-up (`Registration`) ----------------------------------------------------------

    async def join(self, tid: int, player_id: str, name: str) -> int:
        """Enter a player (late entry: a Swiss with rounds still to pair); returns their entry number."""
        return await self.registration.join(tid, player_id, name)

    async def check_in(self, tid: int, player_id: str) -> Entry:
        """A player says "I'm here" for the tournament (before the start, in its check-in window)."""
        return await self.registration.check_in(tid, player_id)

    async def check_in_game(self, game_id: int, player_id: str) -> StoredGame:
        """A player says "I'm here" for a game of a round; its match opens when both are here and it is time."""
        return await self.registration.check_in_game(game_id, player_id)

    async def stay(self, tid: int, player_id: str) -> Entry:
        """Under `missed:withdraw`: a player who missed a game confirms they play on."""
        return await self.registration.stay(tid, player_id)

    async def leave(self, tid: int, player_id: str, by: str | None = None) -> None:
        """Before the start: take the entry back. After it: withdraw, forfeiting what remains."""
        await self.registration.leave(tid, player_id, by)

    # -- running (`Running`) ---------------------------------------------------------------
    async def start_tournament(self, tid: int, by: str | None = None, *, left: Sequence[str] = ()) -> None:
        """Close sign-up, seed the field, pair round 1 and open its matches (`left`: see `Running`)."""
        await self.running.start_tournament(tid, by, left=left)

    async def pair_next_round(self, tid: int) -> int:
        """Pair the next round now (refused while games of this round are unfinished); returns its number."""
        return await self.running.pair_next_round(tid)

    async def pause(self, tid: int, by: str) -> None:
        """Stop pairing new rounds (matches already open go on)."""
        await self.running.pause(tid, by)

    async def resume(self, tid: int, by: str) -> None:
        """Pair again (at once, if the round ended meanwhile)."""
        await self.running.resume(tid, by)

    async def cancel(self, tid: int, by: str) -> None:
        """End the tournament without a winner; its running matches are aborted."""
        await self.running.cancel(tid, by)

    # -- results (`Results`) ---------------------------------------------------------------
    def listen(self) -> None:
        """Subscribe to the host's events (before the host resumes matches, so no result is missed)."""
        self.results.listen()

    @property
    def on_host_event(self) -> Callable[[Sequence[HostEvent]], Awaitable[None]]:
        """The subscriber to the host's finished matches (`Results.on_host_event`, marked `after_commit`)."""
        return self.results.on_host_event

    async def adjudicate(self, tid: int, board: int, result: Result | str, by: str, round_: int | None = None) -> None:
        """The host decides a game: a running match ends with that result; a finished one is overridden."""
        await self.results.adjudicate(tid, board, result, by, round_)

    async def record_match(self, match_id: int) -> int | None:
        """Read a finished match into its game, as the subscriber does (a process that does not listen); the
        tournament's id (None: not a tournament's match). Nothing moves on until the tournament is advanced."""
        return await self.recorder.record_match(match_id)

    # -- what falls due (`Due`, `Timer`) ---------------------------------------------------
    async def start(self) -> None:
        """`listen()`, `catch_up()`, then the jobs (`run()`): for a process whose host service has started."""
        self.results.listen()
        await self.due.catch_up()
        self.due.run()

    def run(self) -> None:
        """Run the tournaments' jobs here from now on (and the runner, when it is this service's own)."""
        self.due.run()

    async def close(self) -> None:
        """Stop running the tournaments' jobs here (they stay in the database) and any retry of an owed result."""
        await self.due.close()

    async def catch_up(self, *, give_back: bool = True) -> None:
        """Every running tournament this process owns, caught up, and its job put (see `Due.catch_up`)."""
        await self.due.catch_up(give_back=give_back)

    async def settle_owed(self) -> None:
        """When a result could not be stored: catch up."""
        await self.due.settle_owed()

    async def run_due(self) -> dt.datetime | None:
        """Do what is due now in the tournaments this process owns; returns when the next thing falls due."""
        return await self.due.run_due()

    async def run_tournament(self, tid: int) -> dt.datetime | None:
        """Do what is due now in one tournament; returns when its next thing falls due."""
        return await self.due.run_tournament(tid)

    async def pending(self) -> list[int]:
        """The tournaments of this process with something still to fall due."""
        return await self.timer.pending()

    async def next_due(self, tid: int) -> dt.datetime | None:
        """When something next falls due in a tournament (None: nothing will by itself)."""
        return await self.timer.next_due(tid)
