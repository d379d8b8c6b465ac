"""`dmhost tournament create|join|leave|start|here|stay|status|result|pause|resume|cancel|play`: a tournament run
from the terminal on the host core and the database, as the terminal room runs a match.

Each command opens the host service on the database, resuming only this tournament's matches (none
for the read-only ones), does its work and closes it again. A match is played with
`dmhost room --resume MATCH_ID`, or every open one by practice bots with `play`; the next command
records the results that arrived meanwhile and pairs the next round. Not for a database a running
bot serves (use `/dm tournament` there).

The commands that host the tournament's matches (start, here, result, leave, cancel, resume, play) hold
the tournament's lease while they run (`bot.compose.hold`): while another process holds it (a `play`
under way), such a command is refused with one line (exit 2); a `play` whose lease is taken over stops
with one line (exit 2).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from bot.compose import Bus, Host, HostLease, Scope, Stage
from bot.host.service import HostEvent
from bot.playernames import name_problem
from bot.tournaments import telling
from bot.tournaments.refusals import RefusalCode
from bot.tournaments.rounds import Game, to_json
from bot.tournaments.service import FINISHED, RUNNING, SIGNUP, TournamentEvent, TournamentRefused, TournamentService
from bot.wording import terminal as answers
from bot.wording import tournament_terminal as told_words
from bot.wording.tournaments import pairing_lines, standings_lines, winner_line

PLAY_TIMEOUT_SECONDS = 3600.0


class Elsewhere(Exception):
    """Another process hosts this tournament's matches (now, or from now on: the lease was taken over)."""

    def __init__(self, tid: int, *, lost: bool = False) -> None:
        super().__init__(answers.tournament_elsewhere(tid, lost=lost))


@contextlib.asynccontextmanager
async def open_tournaments(
    host: Host,
    resume_of: int | None,
    bot_level: str | None = None,
    leases: list[HostLease] | None = None,
    heard: list[TournamentEvent] | None = None,
) -> AsyncIterator[TournamentService]:
    """The host (built by the composition root, `bot.compose.build_host`, with the ratings: `--rated` rates)
    resuming the unfinished matches of tournament `resume_of` only, and the tournament service on it (caught
    up). `bot_level`: practice bots will play (`play`), so the solver their level searches with is made ready
    first, before any of the matches' clocks runs again. With `resume_of`
    the tournament's lease is taken first (`Elsewhere` while another process holds it) and appended to
    `leases`. `heard`: every tournament event from then on is appended to it (from the bus)."""
    await host.store.open()
    wanted: set[int] = set()
    if resume_of is not None:
        reader = host.tournament_reader()  # on the bare store: it only reads, nothing is hosted or subscribed
        wanted = await reader.match_ids(resume_of)
        if bot_level is not None:
            with contextlib.suppress(TournamentRefused):  # no such tournament: the command says so later
                await _prepare_solver((await reader.get(resume_of)).game, bot_level)
    if resume_of is not None and await host.hold(Scope.TOURNAMENT, resume_of) is not None:
        await host.close()
        raise Elsewhere(resume_of)
    if leases is not None and host.lease is not None:
        leases.append(host.lease)
    await host.service.start(select=lambda m: m.id in wanted)
    service = host.tournaments()  # listening to the host, seeded by its ratings
    if heard is not None:
        host.bus.subscribe(heard.append, topic=TournamentEvent)
    try:
        await host.catch_up()  # matches that ended while no command listened are rated, in order
        await service.catch_up(give_back=False)  # a deadline passed between two commands is ruled now
        await service.run_due()  # what fell due since the last command (no timer task: one command, then exit)
        yield service
        await host.catch_up()  # a rating that failed during the command is owed no longer than its end
    finally:
        await service.close()
        await host.close()


async def _prepare_solver(game: str, level: str) -> None:
    """Build or load the compiled solver (once per machine, about 20 s, said on stderr) when the practice bots
    of `game` at `level` search with it, so that its build is never charged to their clocks."""
    from games.opponents import uses_solver

    try:
        if not uses_solver(game, level):
            return
    except ValueError:  # a level this game does not have: `play` refuses it
        return
    from games.solver import ensure_compiled

    await asyncio.to_thread(ensure_compiled)


async def check_in(service: TournamentService, tid: int, name: str) -> None:
    """`here`: the tournament's check-in before its start, else the player's game waiting in this round."""
    t = await service.get(tid)
    if t.status == SIGNUP:
        await service.check_in(tid, name)
        return
    entry = next((e for e in await service.entries(tid) if e.player_id == name), None)
    for g in await service.games(tid):
        p = g.pairing
        if entry is not None and isinstance(p, Game) and g.round == t.round and entry.id in (p.white, p.black):
            if g.match_id is None and p.result is None:
                await service.check_in_game(g.id, name)
                return
    raise TournamentRefused(RefusalCode.NO_GAME_WAITING, player=name, name=t.name)


async def _check_in_all(service: TournamentService, tid: int) -> None:
    """Practice bots answer every check-in of the round."""
    entries = {e.id: e.player_id for e in await service.entries(tid)}
    for g in await service.games(tid):
        p = g.pairing
        if isinstance(p, Game) and g.match_id is None and p.result is None:
            for seat, entry in enumerate((p.white, p.black)):
                if g.here[seat] is None:
                    with contextlib.suppress(TournamentRefused):
                        await service.check_in_game(g.id, entries[entry])


async def status_json(service: TournamentService, tid: int) -> dict[str, Any]:
    """The tournament, its rounds (contract shapes plus match ids and results) and the standings."""
    t = await service.get(tid)
    names = await service.names(tid)
    rounds: list[list[dict[str, Any]]] = []
    for g in await service.games(tid):
        while len(rounds) < g.round:
            rounds.append([])
        row: dict[str, Any] = dict(to_json(g.pairing))
        if isinstance(g.pairing, Game):
            row["match"] = g.match_id
            row["result"] = g.pairing.result.value if g.pairing.result else None
            if g.pairing.forfeit:
                row["forfeit"] = True
            if g.match_id is None and g.pairing.result is None and t.no_show_s is not None:
                row["here"] = [h is not None for h in g.here]  # waiting for its players' check-in
        rounds[g.round - 1].append(row)
    return {
        "tournament": {
            "id": t.id,
            "name": t.name,
            "game": t.game,
            "format": t.format.value,
            "status": t.status,
            "round": t.round,
            "rounds": t.rounds,
            "prize": t.prize,
        },
        "players": {str(k): v for k, v in names.items()},
        "rounds": rounds,
        "standings": [s.to_json() for s in await service.standings(tid)],
    }


async def status_text(service: TournamentService, tid: int, url: str | None = None) -> str:
    """Pairings of every round and the table, as lines."""
    t = await service.get(tid)
    names = await service.names(tid)
    lines = [f"{t.name}: {t.game} {t.format.value}, {t.status}, round {t.round}/{t.rounds or '?'}"]
    by_round: dict[int, list[Any]] = {}
    for g in await service.games(tid):
        by_round.setdefault(g.round, []).append(g)
    for number, games in sorted(by_round.items()):
        lines.append(f"Round {number}")
        for line, g in zip(pairing_lines(number, [g.pairing for g in games], names)[1:], games, strict=True):
            if isinstance(g.pairing, Game) and g.pairing.result is None and g.match_id:
                line += f"  (match {g.match_id}: {_resume(url, g.match_id)})"
            lines.append(f"  {line}")
    lines.append("Standings")
    lines += [f"  {x}" for x in standings_lines(await service.standings(tid), names)]
    if t.status == FINISHED:
        table = await service.standings(tid)
        if table:
            lines.append(winner_line(t.name, names.get(table[0].player, "?"), t.prize))
    return "\n".join(lines)


def _resume(url: str | None, match_id: int) -> str:
    """The command that plays a tournament match, with its database (shell-quoted), ready to paste."""
    import shlex

    from bot.opserrors import shown_url

    where = "" if url is None else f"--db {shlex.quote(shown_url(url))} "
    return f"dmhost room {where}--resume {match_id}"


async def play_out(
    service: TournamentService,
    tid: int,
    level: str,
    *,
    bus: Bus,
    timeout: float = PLAY_TIMEOUT_SECONDS,
    lease: HostLease | None = None,
    progress: Callable[[str], None] | None = None,
) -> None:
    """Practice bots play every seat until the tournament is over (or `timeout` seconds pass, or the
    tournament's `lease` is taken over by another process: `Elsewhere`); `progress` gets one line per game
    as it ends. `bus`: the host's bus (`Host.bus`), which the bots and `progress` hear the matches on. The bots'
    moves are final at once (`PracticeBot` says so to the host): no take-back window is waited out."""
    from bot.adapters.practice import PracticeBot

    if progress is not None:
        bus.subscribe(_game_over_lines(progress), Stage.FOLLOW)
    bots = [
        PracticeBot(service.host, level, bus=bus, player_id=e.player_id, budget_seconds=0.2, seed=e.id)
        for e in await service.entries(tid)
    ]
    for live in list(service.host.live.values()):
        for bot in bots:
            if any(p.id == bot.player_id for p in live.players.values()):
                bot.watch(live.id, level)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    lost = lease.lost if lease is not None else asyncio.Event()
    try:
        while not lost.is_set() and (await service.get(tid)).status == RUNNING and loop.time() < deadline:
            await _check_in_all(service, tid)
            with contextlib.suppress(Exception):  # logged; owed again, tried at the next turn
                await service.settle_owed()  # a result whose commit failed is recorded, so `play` never spins
            await service.run_due()  # no timer task in a terminal command: round times are looked at here
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(lost.wait(), 0.2)
    finally:
        for bot in bots:
            await bot.close()
    if lost.is_set():
        raise Elsewhere(tid, lost=True)


def _progress_line(line: str) -> None:
    print(line, flush=True)


def _game_over_lines(progress: Callable[[str], None]) -> Callable[[HostEvent], Awaitable[None]]:
    """A host listener that says each game's end in one line (`tournament play`'s progress)."""
    from bot.host.events import EventKind
    from bot.wording import result_sentence

    async def told(ev: HostEvent) -> None:
        if ev.kind != EventKind.FINISHED:
            return
        names = dict(ev.names)
        said = result_sentence(ev.data.get("reason"), ev.data.get("winner"), names, score=ev.detail.get("score"))
        progress(answers.game_over(ev.match_id, names.get(1, "?"), names.get(2, "?"), said))

    return told


def _quiet_after_loss(leases: list[HostLease]) -> Callable[[asyncio.AbstractEventLoop, dict[str, Any]], None]:
    """The loop's handler of errors nobody awaited: a lost connection's, once the lease is lost, is the takeover
    already said in one line (not a stray "Future exception was never retrieved"); anything else as asyncio
    says it."""

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if isinstance(context.get("exception"), ConnectionError) and any(lease.lost.is_set() for lease in leases):
            return
        loop.default_exception_handler(context)

    return handle


def run(args: argparse.Namespace, url: str, host_of: Callable[[], Host]) -> int:
    """Carry out one `dmhost tournament` command on database `url`; a refusal is one line and exit 2.
    `host_of`: the composition root's builder of this command's host (called once, in the command's loop)."""

    leases: list[HostLease] = []

    async def main() -> int:
        asyncio.get_running_loop().set_exception_handler(_quiet_after_loss(leases))
        try:
            return await carry_out()
        except Exception:
            # Once another process took the tournament over, what fails next (a connection the database closed
            # while this one was stopped) is that takeover, said in its one line.
            if any(lease.lost.is_set() for lease in leases):
                raise Elsewhere(args.id, lost=True) from None
            raise

    async def carry_out() -> int:
        command = args.tournament_command
        resume = args.id if command in ("start", "result", "leave", "cancel", "resume", "play", "here") else None
        bots = getattr(args, "bot", None) if command == "play" else None
        heard: list[TournamentEvent] = []
        host = host_of()
        async with open_tournaments(host, resume, bots, leases, heard) as service:
            if command == "create":
                tid = await service.create(
                    args.name,
                    args.game,
                    args.format,
                    rounds=args.rounds,
                    options=args.options,
                    clock=args.clock_spec,
                    rules=args.rules,
                    prize=args.prize,
                    bye_points=args.bye_points,
                    max_players=args.max_players,
                    rated=args.rated,
                    by="terminal",
                    starts_at=args.start,
                    checkin_s=args.checkin,
                    no_show_s=args.no_show,
                    round_every_s=args.round_every,
                    seeding=args.seeding,
                    missed=None if args.missed == "play_on" else args.missed,
                )
                if getattr(args, "json", False):
                    print(json.dumps(await status_json(service, tid)))
                else:
                    print(tid)
                return 0
            tid = args.id
            await service.get(tid)
            if command == "status" and getattr(args, "url", False):
                from bot.records.pagetoken import load_secret, page_base, page_url

                print(page_url(page_base(getattr(args, "base", None)), load_secret(), "tournament", tid))
                return 0
            since = len(heard)  # what this command causes from here on is said below
            if command == "join":
                taken = [e.name for e in await service.entries(tid) if not e.withdrawn and e.name not in args.names]
                if (bad := name_problem(args.names, taken)) is not None:
                    raise telling.BadName(bad)
                for name in args.names:
                    print(f"{name}: entry {await service.join(tid, name, name)}")
            elif command == "leave":
                await service.leave(tid, args.player_name, by="terminal")
            elif command == "start":
                await service.start_tournament(tid, by="terminal")
            elif command == "here":
                await check_in(service, tid, args.player_name)
            elif command == "stay":  # `--missed withdraw`: a player who missed a game plays on
                await service.stay(tid, args.player_name)
            elif command == "result":
                await service.adjudicate(tid, args.board, args.result, "terminal", args.round)
            elif command == "pause":
                await service.pause(tid, "terminal")
            elif command == "resume":
                await service.resume(tid, "terminal")
            elif command == "cancel":
                await service.cancel(tid, "terminal")
            elif command == "play":
                progress = None if getattr(args, "json", False) else _progress_line
                lease = leases[0] if leases else None
                await play_out(service, tid, args.bot, bus=host.bus, lease=lease, progress=progress)
            await service.host.drained()  # what a match's end moves on (after the commit) is shown below
            if not getattr(args, "json", False):
                due = [ev for ev in heard[:since] if ev.kind in telling.DUE]  # fell due as the command opened
                told = telling.of_tournament(due + heard[since:], tid)
                for line in await _told_lines(service, tid, told, url):
                    print(line)
            if command in ("status", "start", "result", "play", "resume", "here") or getattr(args, "json", False):
                if getattr(args, "json", False):
                    print(json.dumps(await status_json(service, tid)))
                else:
                    print(await status_text(service, tid, url))
            return 0

    try:
        return asyncio.run(main())
    except telling.BadName as exc:
        import sys

        print(f"dmhost tournament join: {exc}", file=sys.stderr)
        return 2
    except Elsewhere as exc:
        import sys

        print(f"dmhost tournament: {exc}", file=sys.stderr)
        return 2
    except TournamentRefused as exc:
        import sys

        from bot.wording import error_text

        print(f"dmhost tournament: {error_text(exc)}", file=sys.stderr)
        return 2


async def _told_lines(service: TournamentService, tid: int, told: list[TournamentEvent], url: str) -> list[str]:
    """One line per event worth saying in the terminal."""
    import shlex

    from bot.opserrors import shown_url
    from bot.tournaments.model import TournamentEventKind

    t = await service.get(tid)
    out: list[str] = []
    db = shlex.quote(shown_url(url))
    for ev in told:
        if ev.kind == TournamentEventKind.CHECKED_IN:
            entries = [e for e in await service.entries(tid) if not e.withdrawn]
            here = [e.name for e in entries if e.checked_in]
            absent = [e.name for e in entries if not e.checked_in]
            out.append(told_words.checked_in(ev.data["name"], t.name, here, absent))
        elif (line := told_words.event_line(ev.kind, t.name, tid, t.round, ev.data, db)) is not None:
            out.append(line)
    return out
