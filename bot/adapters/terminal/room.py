"""The terminal room: one match hosted on stdin/stdout with the real host core, clocks and database."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bot.adapters.practice import BOT_ID, PracticeBot
from bot.adapters.terminal import words
from bot.compose import Host, Scope
from bot.host import rules
from bot.host.events import EventKind, RefusalKind
from bot.host.service import HostError, HostEvent, Outcome, PlayerRef
from bot.opserrors import shown_url
from bot.records.analysis_worker import AnalysisWorker
from bot.text import Text, plain
from bot.types import MatchStatus
from bot.wording import board_text, error_text, event_text, named, namer, reason_text, result_sentence
from bot.wording import terminal as answers
from bot.wording.ratings import change_line
from bot.wording.review import analysing
from games.opponents import check_level, uses_solver

__all__ = ["BOT_ID", "SPEAKER", "Room", "RoomConfig", "looks_like_move_with_colon", "resume_command", "stdin_lines"]
SPEAKER = re.compile(r"^\s*([^:\s][^:]{0,39}?)\s*:\s?(.*)$", re.DOTALL)
"""A `NAME: text` line (the name, the text)."""


def resume_command(db_url: str, match_id: int) -> str:
    """The command that continues a match, ready to paste: the database as `--db` takes it, shell-quoted."""
    return f"dmhost room --db {shlex.quote(shown_url(db_url))} --resume {match_id}"


@dataclass
class RoomConfig:
    """What `dmhost room` was asked to do."""

    db_url: str
    game: str | None = None
    players: list[str] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)
    clock: dict[str, str] = field(default_factory=dict)
    rules: dict[str, str] = field(default_factory=dict)
    events_json: bool = False
    resume: int | None = None
    png_dir: Path | None = None
    bot_level: str | None = None
    rated: bool = True
    """False (`--rule rated=off`): a casual match; a match against the practice opponent is never rated."""
    scheduled: int | None = None
    """`--scheduled ID`: host that DM of `dmhost schedule add` (see `bot.adapters.terminal.scheduled`)."""
    lease: bool = False
    """Host under the lease of the match (its tournament's, its scheduled DM's, or its own), as the bot hosts
    under its shards' (`bot.compose.hold`): the command line sets it; a room built in a test may not."""
    analyse: bool = False
    """Analyse the match once it ends (the background worker) and wait for it, at most `ANALYSIS_WAIT` s
    (`dmhost room` does)."""


ANALYSIS_WAIT = 120.0
"""Seconds the room waits, after the match, for its analysis to be stored (else `dmhost log --analyse`)."""


class Room:
    """Reads `NAME: text` lines, hands them to the host, prints what happens."""

    def __init__(
        self,
        config: RoomConfig,
        host: Host,
        out: TextIO | None = None,
        *,
        shared: bool = False,
        listen: bool = True,
    ) -> None:
        """`shared`: the host's service is another face's (a test's bot), whose owner analyses its matches.
        `listen=False`: the room does not hear the host's events itself; its owner hands them to `on_event`
        (the scheduled room, which hosts a DM around this room)."""
        self.config = config
        self.out = out or sys.stdout
        self.host = host
        """The host core and its subscribers, built by the composition root (`bot.compose.build_host`, called by
        the entry point) and handed to the room whole."""
        self.owns_service = not shared
        """Its own host core (not a shared service's): it analyses its matches itself."""
        self.service = self.host.service
        self.match_id: int | None = None
        self.finished = asyncio.Event()
        self.ratings = self.host.ratings  # the room asks for a finished match's rating (`settle`) before it reports it
        if listen:
            self.host.bus.subscribe(self.on_event)  # `Stage.TELL`: before a scheduled DM records the end
        self.service.tells = True  # its reminders and results are owed durably until printed (the outbox)
        self._told: set[str] = set()
        """The notices printed by this room (one printed live is never printed again from the outbox)."""
        self._pictures: Callable[..., Any] | None = None
        self._frame = 0
        self._live: Any = None
        self._shown: Any = None
        self._moves: dict[int, tuple[str | None, Any]] = {}
        self._seen: Any = None
        """The match's live record as last seen (a finished match leaves `service.live` before its last
        events arrive; its final position is still here)."""
        self.bot = PracticeBot(self.service, config.bot_level, bus=self.host.bus) if config.bot_level else None
        self.left = False
        """`quit`, `exit` or Ctrl-C: the room stops, the match stays resumable."""
        self.analysis: AnalysisWorker | None = None
        """Analyses the match once it ends (started with the match)."""
        self._stopping = asyncio.Event()
        self.come_back: Callable[[], str] | None = None
        """The command that continues what this room hosts, when its owner says it (the scheduled room's DM)."""

    def emit(self, obj: dict[str, Any], text: str | Text | None = None) -> None:
        """One JSON line (with --events-json) or one human line."""
        try:
            if self.config.events_json:
                shown = {k: plain(v) if isinstance(v, str | Text) else v for k, v in obj.items()}
                self.out.write(json.dumps(shown, default=str) + "\n")
            elif text:
                self.out.write(plain(text) + "\n")
            self.out.flush()
        except BrokenPipeError:
            pass

    def _timeout_line(self, ev: HostEvent) -> None:
        """Before the `finished` line of a loss on time, the contract's `{"event": "timeout"}` line naming who ran
        out (JSON only: the human room's end line already says it); `"late": true` as its `finished` line when a
        start tells a result a killed room had not (`tell_untold`)."""
        winner = ev.data.get("winner")
        if ev.data.get("reason") != "time" or winner not in (1, 2):
            return
        seat = 3 - winner
        late = {"late": True} if ev.late else {}
        self.emit({"event": "timeout", "match": ev.match_id, "seat": seat, "player": ev.names.get(seat), **late})

    async def on_event(self, ev: HostEvent) -> None:
        """Print a host event of this room's match (a notice only once, marked told once printed)."""
        if self.match_id not in (None, -1) and ev.match_id != self.match_id:
            return
        if ev.notice is not None:
            if ev.notice in self._told:
                return
            self._told.add(ev.notice)
        await self._tell(ev)
        if ev.notice is not None:
            await self.service.told(ev)  # after it was printed: a room killed in between prints it at its next start

    async def tell_untold(self, match_id: int) -> int:
        """Print what the match still owes (a reminder or a result committed by a room that died before printing
        it), marked `"late": true`; how many."""
        late = await self.service.untold([match_id])
        for ev in late:
            await self.on_event(ev)
        return len(late)

    async def _tell(self, ev: HostEvent) -> None:
        if ev.match_id in self.service.live:
            self._seen = self.service.live[ev.match_id]
        text = event_text(ev)
        obj: dict[str, Any] = {"event": ev.kind, "match": ev.match_id, **ev.data, "text": text}
        if ev.seat is not None:
            obj.setdefault("seat", ev.seat)
        if ev.kind == EventKind.FINISHED:
            self._timeout_line(ev)
            obj = {
                "event": "finished",
                "match": ev.match_id,
                "winner": ev.data.get("winner_name"),
                "reason": ev.data.get("reason"),
                "text": text,
            }
        if ev.late:
            obj["late"] = True
        self.emit(obj, None if ev.kind == EventKind.TURN else text)
        if ev.kind == EventKind.FINISHED and not self.config.events_json:
            rated = await self.ratings.settle(ev.match_id)  # rated now if its batch has not come yet
            if rated is not None:
                self.emit({}, f"Ratings: {change_line(rated)}")
        if ev.kind in _redraws() and ev.match_id in self.service.live:
            if not self.config.events_json:
                self.emit({}, board_text(self.service.live[ev.match_id], self.service.now()))
            self._save_picture(ev.match_id, ev)
        elif ev.kind in (EventKind.MOVE, EventKind.FINISHED):
            if (
                ev.kind == EventKind.MOVE
                and not self.config.events_json
                and getattr(self._seen, "id", None) == ev.match_id
            ):
                final = self._seen  # the move that ended the match: its final position, before "Game over"
                self.emit({}, named(final.ruleset.render_text(final.state), namer(final.names())))
            self._save_picture(ev.match_id, ev)  # a finishing move, then the final position with the result
        if ev.kind in (EventKind.FINISHED, EventKind.ABORTED):
            self.finished.set()

    def _save_picture(self, match_id: int, ev: HostEvent) -> None:
        """One --png frame: names, the last move highlighted; after the end, the final position and result."""
        if self.config.png_dir is None:
            return
        if self._pictures is None:
            from games import pictures

            self._pictures = pictures.save_png
        live = self.service.live.get(match_id) or self._live
        if live is None or live.id != match_id:
            return
        self._live = live  # a finished match leaves service.live before its last events arrive
        if ev.kind == EventKind.MOVE:
            self._moves[int(ev.data.get("ply", live.ply))] = (ev.data.get("move"), self._shown)
            if match_id not in self.service.live:
                return  # the match just ended: its frame comes with the "finished" event
        last_move, before = self._moves.get(live.ply, (None, None))
        history, ply = [], live.ply  # the states before this one, back to the start (Boxes colours edges by drawer)
        while ply in self._moves and self._moves[ply][1] is not None:
            history.append(self._moves[ply][1])
            ply -= 1
        result = winner = None
        names = {seat: p.name for seat, p in live.players.items()}
        final = live.status != MatchStatus.HELD and live.provisional() is None
        if ev.kind == EventKind.FINISHED:
            winner = ev.data.get("winner")
            result = result_sentence(ev.data.get("reason"), winner, names, score=ev.detail.get("score"))
        elif not final and (outcome := live.ruleset.outcome(live.state)) is not None:
            result = result_sentence(outcome.termination, outcome.winner, names, pending=True)
        self.config.png_dir.mkdir(parents=True, exist_ok=True)
        self._pictures(
            live.ruleset,
            live.state,
            self.config.png_dir / f"{match_id}-{self._frame:04d}.png",
            names={seat: p.name for seat, p in live.players.items()},
            last_move=last_move,
            prev_state=before,
            history=history[::-1],
            result=result,
            winner=winner,
            final=final,  # a result on the board that a rule may still undo is not a win yet
        )
        self._shown = live.state
        self._frame += 1

    async def run(self, lines: asyncio.Queue[str | None]) -> int:
        """Host the match until it ends or input ends; returns the exit code."""
        cfg = self.config
        try:
            if cfg.analyse and self.owns_service:  # a shared service's owner analyses its matches
                self.analysis = self.host.start_analysis(catch_up=False)
            if cfg.resume is not None:
                self.match_id = cfg.resume
                if self.bot is not None:  # its solver made ready before the match's clocks run again
                    await self.service.store.open()
                    stored = await self.service.store.load(cfg.resume)
                    await self._prepare_bot(stored.game if stored is not None else None)
                if cfg.lease:
                    await self._hold_resumed(cfg.resume)
                resumed = await self.service.start(select=lambda m: m.id == cfg.resume)
                await self.host.catch_up()
                if cfg.resume not in resumed:
                    await self.tell_untold(cfg.resume)  # it ended, but the room that ended it died before telling
                    stored = await self.service.store.load(cfg.resume)
                    if stored is None:
                        raise HostError(answers.no_match(cfg.resume, shown_url(cfg.db_url)))
                    raise HostError(answers.nothing_to_resume(cfg.resume, stored.status))
                await self.tell_untold(cfg.resume)  # owed by a room that died after committing it
                await self.service.rule_overdue()  # deadlines that passed while the room was closed
                await self.service.wake(cfg.resume)  # an idle correspondence match: built and shown now
                self._check_resumer(cfg.resume)
            else:
                await self.service.start(select=lambda _m: False)
                await self.host.catch_up()
                if not cfg.game or len(cfg.players) != (1 if cfg.bot_level else 2):
                    raise HostError(answers.NEW_MATCH_NEEDS)
                if cfg.bot_level:
                    try:
                        check_level(cfg.game, cfg.bot_level)
                    except ValueError as exc:
                        raise HostError(str(exc)) from None
                self.match_id = -1
                if not cfg.events_json:  # how to play, before the clock runs (the JSON lines start with `started`)
                    self.emit({}, answers.intro(cfg.game, cfg.players, cfg.bot_level is not None))
                players = [PlayerRef(f"local:{n}", n) for n in cfg.players]
                if cfg.bot_level:
                    players.append(PlayerRef(BOT_ID, f"dmhost ({cfg.bot_level})"))
                    await self._prepare_bot(cfg.game)  # before the match, whose clock starts at once
                mid = await self.service.create_match(
                    cfg.game,
                    players,
                    options=cfg.options,
                    clock=cfg.clock,
                    rules=cfg.rules,
                    rated=cfg.rated and not cfg.bot_level,
                    practice=cfg.bot_level is not None,
                    machine=BOT_ID if cfg.bot_level else None,
                )
                self.match_id = mid
                if cfg.lease and await self.host.hold(Scope.MATCH, mid) is not None:  # nobody else knows it yet
                    raise HostError(answers.hosted_elsewhere(mid))
            code = await self._loop(lines)
            await self.await_analysis(lines)
            return code
        finally:
            if self.analysis is not None:
                await self.analysis.close()
            if self.bot is not None:
                await self.bot.close()
            await self.host.close()

    async def _hold_resumed(self, match_id: int) -> None:
        """Take the lease of the match's tournament, scheduled DM or of the match itself before resuming it;
        while another process holds it, one line (exit 2)."""
        await self.service.store.open()
        scope, ident = await self.host.scope_of(match_id)
        if await self.host.hold(scope, ident) is not None:
            where = None if scope is Scope.MATCH else f"its {scope.value} {ident}"
            raise HostError(answers.hosted_elsewhere(match_id, where, retry=True))

    async def _prepare_bot(self, game: str | None) -> None:
        """Make the practice opponent's solver ready before any clock runs: its one-time build (about 20 s, once
        per machine, said on stderr) is never charged to the bot's clock."""
        if self.config.bot_level is None or game is None:
            return
        try:
            if not uses_solver(game, self.config.bot_level):
                return
        except ValueError:  # a level this game does not have: the match itself refuses it
            return
        from games.solver import ensure_compiled

        await asyncio.to_thread(ensure_compiled)

    def terminate(self) -> None:
        """SIGTERM: stop without waiting for the analysis (the input ends too)."""
        self._stopping.set()

    async def await_analysis(self, lines: asyncio.Queue[str | None]) -> None:
        """The match ended: wait until its analysis is stored (the worker's process does the work), unless
        Ctrl-C, SIGTERM or `ANALYSIS_WAIT` seconds come first."""
        worker = self.analysis
        if worker is None or not worker.pending or self.left or self.match_id is None:
            return
        if not self.config.events_json:  # the JSON lines end with `finished` (CONTRACT.md)
            self.emit({}, analysing(self.match_id, ANALYSIS_WAIT))

        async def interrupted() -> None:
            while await lines.get() != words.INTERRUPT:
                pass

        waits = [asyncio.ensure_future(w) for w in (worker.drain(), interrupted(), self._stopping.wait())]
        try:
            await asyncio.wait(waits, timeout=ANALYSIS_WAIT, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()

    async def _loop(self, lines: asyncio.Queue[str | None]) -> int:
        assert self.match_id is not None
        lost = self.host.lease.lost if self.host.lease is not None else asyncio.Event()
        while not self.finished.is_set():
            getter = asyncio.ensure_future(lines.get())
            done_waiter = asyncio.ensure_future(self.finished.wait())
            lost_waiter = asyncio.ensure_future(lost.wait())
            waits = {getter, done_waiter, lost_waiter}
            done, _pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            lost_waiter.cancel()
            if lost.is_set() and not self.finished.is_set():
                getter.cancel()
                done_waiter.cancel()
                return self.taken_over()
            if getter not in done:
                getter.cancel()
                break
            done_waiter.cancel()
            line = getter.result()
            if self.bot is not None:  # its answer first, as a person at the keyboard would wait for it
                await self.bot.wait_idle()
            if line is None and await self._settled(lines):
                continue  # a provisional move became final and ended the match
            if line is None and self.bot is not None:
                await self.bot.wait_idle()  # its answer to the move that just became final
                if self.finished.is_set():
                    continue
            if line is None:
                self.emit(
                    {
                        "event": "eof",
                        "match": self.match_id,
                        "text": answers.EOF_EVENT,
                    },
                    answers.end_of_input(resume_command(self.config.db_url, self.match_id)),
                )
                return 0
            await self.handle_line(line)
            if self.left:
                return 0
        return 0

    def taken_over(self) -> int:
        """The lease was taken over mid-game: another process hosts the match now; one line, exit 2."""
        text = answers.taken_over(self.match_id)
        self.emit({"event": "elsewhere", "match": self.match_id, "text": text}, text)
        return 2

    def again(self) -> str:
        """The command that continues this match (or what the room's owner hosts, `come_back`)."""
        if self.come_back is not None:
            return self.come_back()
        assert self.match_id is not None
        return resume_command(self.config.db_url, self.match_id)

    def leave(self, how: str, again: str) -> None:
        """`quit`/`exit`/Ctrl-C: say how to come back (`again`: the command), and stop reading."""
        self.left = True
        self.emit(
            {"event": "left", "match": self.match_id, "by": how, "text": answers.LEFT_EVENT},
            answers.left_room(again),
        )

    async def _settled(self, lines: asyncio.Queue[str | None]) -> bool:
        """At the end of input: a move still provisional is left to become final (its window was asked
        for), so the room never exits on a move that could still be taken back; True when the match ended."""
        assert self.match_id is not None
        live = self.service.live.get(self.match_id)
        pending = None if live is None else live.provisional()
        if live is None or pending is None:
            return self.finished.is_set()
        self.emit(
            {"event": "waiting", "match": self.match_id, "text": answers.WAITING_EVENT},
            answers.END_OF_INPUT_PENDING,
        )
        while live.provisional() is not None and self.match_id in self.service.live and not self.finished.is_set():
            if not lines.empty():  # SIGTERM: stop at once; the move stays provisional, the match resumable
                return False
            await asyncio.sleep(0.05)
        async with live.lock:  # the action that made the move final has been stored and told (its lines printed)
            pass
        return self.finished.is_set()

    def _resumer(self, live: Any) -> Any:
        """The player `--resume ID --player NAME` named (the one person at this terminal), or None."""
        cfg = self.config
        if cfg.resume is None or len(cfg.players) != 1:
            return None
        wanted = cfg.players[0].strip().lower()
        return next((p for p in live.players.values() if p.name.lower() == wanted), None)

    def _check_resumer(self, match_id: int) -> None:
        """`--resume ID --player NAME`: NAME must be a player of that match (else one line, exit 2)."""
        cfg = self.config
        if len(cfg.players) > 1:
            raise HostError(answers.RESUMER_ONE)
        live = self.service.live.get(match_id)
        if cfg.players and live is not None and self._resumer(live) is None:
            names = ", ".join(p.name for p in live.players.values())
            raise HostError(answers.not_a_player(cfg.players[0], match_id, names))

    async def handle_line(self, raw: str) -> None:
        """One input line."""
        assert self.match_id is not None
        if raw == words.INTERRUPT:
            self.leave("interrupt", self.again())
            return
        line = raw.rstrip("\r\n")
        if not line.strip():
            return
        live = self.service.live.get(self.match_id)
        if live is None:
            return
        spoken = SPEAKER.match(line)
        bare = spoken.group(2) if spoken and _is_name(spoken.group(1), live.players.values()) else line
        if words.is_leave(bare):
            self.leave("quit", self.again())
            return
        if words.is_help(bare):
            card = answers.help_card(live, self.again())
            self.emit({"event": "help", "match": self.match_id, "text": card}, card)
            return
        speaker_name: str | None = None
        text = line
        m = SPEAKER.match(line)
        if m and _is_name(m.group(1), live.players.values()):
            speaker_name, text = m.group(1).strip(), m.group(2)
        elif m and not looks_like_move_with_colon(line):
            self.emit(
                {"event": "ignored", "match": self.match_id, "player": m.group(1).strip()[:40], "reason": "stranger"},
                answers.stranger(m.group(1)[:40]),
            )
            return
        if speaker_name is None and self.bot is not None:  # the one person here speaks, never the bot
            player = next(p for p in live.players.values() if p.id != BOT_ID)
        elif speaker_name is None and (here := self._resumer(live)) is not None:  # `--resume ID --player NAME`
            player = here
        elif speaker_name is None and words.is_withdraw(text) and (seat := words.withdrawer_seat(live)):
            player = live.players[seat]  # an unnamed withdrawal is the player who just moved
        elif speaker_name is None:
            seat = live.ruleset.to_move(live.state) or 1
            player = live.players[seat]
        else:
            player = next(p for p in live.players.values() if p.name.lower() == speaker_name.lower())
        days = words.vacation_days(text)
        if isinstance(days, str):  # `vacation -1`, `vacation abc`: refused, never chat
            obj = {"event": "rejected", "match": self.match_id, "player": player.name, "kind": "vacation"}
            self.emit({**obj, "reason": days}, answers.aside(player.name, days))
            return
        if days is not None:
            await self._vacation(player, days)
            return
        try:
            if words.is_withdraw(text):  # a withdrawal even where moves are final at once (then refused)
                result = await self.service.withdraw(self.match_id, player.id, via="text")
            else:
                result = await self.service.submit(self.match_id, player.id, text)
        except HostError as exc:
            said = error_text(exc)
            self.emit({"event": "error", "match": self.match_id, "reason": said}, answers.error_aside(said))
            return
        if result.status == Outcome.REJECTED and result.kind != RefusalKind.ILLEGAL:
            reason = reason_text(result)
            self.emit(
                {
                    "event": "rejected",
                    "match": self.match_id,
                    "player": player.name,
                    "kind": result.kind,
                    "reason": reason,
                },
                answers.aside(player.name, reason),
            )
        elif result.status == Outcome.IGNORED and not self.config.events_json:
            self.emit({}, answers.not_a_move(player.name, reason_text(result)))
        elif result.status == Outcome.IGNORED:
            self.emit({"event": "ignored", "match": self.match_id, "player": player.name, "reason": result.reason})

    async def _vacation(self, player: PlayerRef, days: int) -> None:
        """`NAME: vacation N`: NAME's correspondence clocks stand still for N days (0: back now), as
        `/dm event vacation days:N` (`bot.host.vacation`); the host tells the opponent in the room."""
        from bot.host.vacation import VacationRefused, take_vacation

        try:
            done = await take_vacation(self.service, self.host.correspondence, None, player.id, days)
        except VacationRefused as exc:
            refused = answers.vacation_refused(player.name, exc.code, exc.data)
            obj = {"event": "rejected", "match": self.match_id, "player": player.name, "kind": "vacation"}
            self.emit({**obj, "reason": refused}, f"({player.name}: " + refused + ")")
            return
        until = None if done.until is None else int(done.until.timestamp())
        said = answers.vacation_taken(player.name, until, done.used, done.allowance, done.refunded)
        obj = {"event": "vacation_taken", "match": self.match_id, "player": player.name, "until": until}
        # the host announced the vacation (or its end) in the match already: the person reads only the days
        shown = answers.vacation_used(player.name, until, done.used, done.allowance, done.refunded)
        self.emit({**obj, "used": done.used, "allowance": done.allowance, "text": said}, shown)


def _redraws() -> set[str]:
    """Events after which the room prints the board: a move, the start, and what the house rules declare."""
    return {EventKind.MOVE, EventKind.STARTED, EventKind.RESUMED, *(k for rule in rules.REGISTRY for k in rule.redraws)}


def _is_name(candidate: str, players: Any) -> bool:
    return any(p.name.lower() == candidate.strip().lower() for p in players)


def looks_like_move_with_colon(line: str) -> bool:
    """Whether a line with a colon is a move (`1: a1`) rather than `NAME: text`."""
    return bool(re.match(r"^\s*[12]\s*:", line))


async def stdin_lines(stream: TextIO | None = None) -> asyncio.Queue[str | None]:
    """A queue fed by a reader thread; None marks end of input."""
    src = stream or sys.stdin
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def reader() -> None:
        for line in iter(src.readline, ""):
            loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, None)

    import threading

    threading.Thread(target=reader, daemon=True, name="room-stdin").start()
    return queue
