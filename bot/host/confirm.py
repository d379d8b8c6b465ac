"""Confirm / Cancel before a grave text (a resignation, a move that gives up the mover's play: `Grave`), as
durable jobs: a prompt outlives a restart.

The host never waits for anyone: a face that can ask (Discord) opens a prompt here (`ask`), shows it, and
hands the answer over (`answer`). A prompt is one row of the jobs table (`bot.jobs`, kind `confirm`, key
`confirm:<match>:<player>:<nonce>`, the nonce naming the one question: the message or command that asked),
due when it lapses; its payload is the question (the text, the position it was asked in, the message to
answer, where the prompt is shown). So after a restart a prompt still answers, and its lapse is still said.

- **An answer** closes the row by one conditional update (`jobs.store.take`) before anything is done: a
  prompt is answered once, and never after it fell due (its lapse is the runner's, claimed once).
- **Confirm** submits the text as if it were posted then, to that prompt's match only, so the host checks
  everything again: a match that ended meanwhile is a refusal, and a move asked in a position that changed
  is not played (`MOVED_ON`). Nobody is held meanwhile; the clocks keep running.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

from bot.host.events import Grave, HostError, Outcome, SubmitResult
from bot.host.service import MatchService
from bot.jobs import Job, JobQueue
from bot.jobs import store as job_store
from bot.jobs.store import DIRECT_MESSAGES

KIND: Final = "confirm"
"""The kind of a prompt's job."""
LAPSE_S: Final = 30.0
"""How long a Confirm / Cancel prompt stays open."""
MOVE: Final = "move"
"""`Grave.action` of a move that gives up the mover's play (else "resign")."""


def prompt_key(match_id: int, player_id: str, nonce: int) -> str:
    """`confirm:<match>:<player>:<nonce>`: the job of one prompt."""
    return f"{KIND}:{match_id}:{player_id}:{nonce}"


@dataclass(frozen=True)
class Prompt:
    """One open question to one player of one match, as its job's payload keeps it."""

    grave: Grave
    player_id: str
    nonce: int
    """What asked: the player's message, or the command's interaction (unique per question)."""
    name: str
    """The player's name, as the prompt addresses them."""
    due: dt.datetime
    guild_id: int | None = None
    message_id: str | None = None
    """The player's message the question answers (submitted with the text), if it came from one."""
    channel_id: int | None = None
    prompt_id: int | None = None
    """The message that shows the prompt, once posted where anyone may see it (a private prompt has none)."""

    @property
    def key(self) -> str:
        """Its job's key."""
        return prompt_key(self.grave.match_id, self.player_id, self.nonce)

    def payload(self) -> dict[str, Any]:
        """The job's payload (JSON)."""
        g = self.grave
        return {
            "grave": [g.action, g.match_id, g.seat, g.text, g.ply],
            "player": self.player_id,
            "nonce": self.nonce,
            "name": self.name,
            "guild": self.guild_id,
            "message": self.message_id,
            "channel": self.channel_id,
            "prompt": self.prompt_id,
        }

    @classmethod
    def from_job(cls, job: Job) -> Prompt:
        """The prompt its job keeps."""
        p = job.payload
        action, match_id, seat, text, ply = p["grave"]
        return cls(
            grave=Grave(str(action), int(match_id), int(seat), str(text), int(ply)),
            player_id=str(p["player"]),
            nonce=int(p["nonce"]),
            name=str(p["name"]),
            due=job.due,
            guild_id=None if p.get("guild") is None else int(p["guild"]),
            message_id=None if p.get("message") is None else str(p["message"]),
            channel_id=None if p.get("channel") is None else int(p["channel"]),
            prompt_id=None if p.get("prompt") is None else int(p["prompt"]),
        )


class Answer(StrEnum):
    """What became of a press on a prompt."""

    LAPSED = "lapsed"
    """The prompt lapsed: nothing is done."""
    CLOSED = "closed"
    """The prompt was answered already, or is unknown: nothing is done."""
    NOT_YOURS = "not_yours"
    """Someone other than the player asked pressed: nothing is done, the prompt stays open."""
    CANCELLED = "cancelled"
    DONE = "done"
    """Confirmed and accepted by the host."""
    MOVED_ON = "moved_on"
    """Confirmed, but the position changed since the move was asked: not played."""
    REFUSED = "refused"
    """Confirmed, and refused by the host (`result` says why: the match ended meanwhile, …)."""


@dataclass(frozen=True)
class Answered:
    """A press's result, with the prompt when it is known (for its words)."""

    kind: Answer
    prompt: Prompt | None = None
    result: SubmitResult | None = None


Lapsed = Callable[[Prompt], Awaitable[None]]
"""Show that a prompt lapsed (its job's run)."""


@dataclass
class Confirmations:
    """The Confirm / Cancel prompts of one process (built by `bot.compose`; its face sets `lapsed`)."""

    service: MatchService
    jobs: JobQueue
    lapse_s: float = LAPSE_S
    lapsed: Lapsed | None = None

    def start(self) -> None:
        """Run the prompts' lapses from now on (the face has set its hook)."""
        self.jobs.register(KIND, self._lapse)

    def stop(self) -> None:
        """Stop running lapses here (they stay stored for the next start)."""
        self.jobs.unregister(KIND)

    async def ask(
        self,
        grave: Grave,
        player_id: str,
        nonce: int,
        *,
        guild_id: int | None,
        message_id: str | None = None,
        channel_id: int | None = None,
    ) -> Prompt:
        """Open a prompt for a grave text of a player, lapsing after `lapse_s` (`nonce`: what asked)."""
        live = self.service.live.get(grave.match_id)
        name = live.players[grave.seat].name if live is not None else "?"
        due = await self.jobs.now() + dt.timedelta(seconds=self.lapse_s)
        prompt = Prompt(grave, player_id, nonce, name, due, guild_id, message_id, channel_id)
        scope = DIRECT_MESSAGES if guild_id is None else guild_id
        await self.jobs.add(KIND, prompt.key, due, prompt.payload(), scope=scope)
        return prompt

    async def shown(self, prompt: Prompt, prompt_id: int) -> Prompt:
        """The prompt is shown by this message (kept with it, for its lapse and after a restart)."""
        shown = replace(prompt, prompt_id=prompt_id)
        async with self.jobs.engine.begin() as conn:
            await job_store.rewrite(conn, prompt.key, shown.payload(), await self.jobs.now())
        return shown

    async def drop(self, prompt: Prompt) -> None:
        """Forget a prompt that could not be shown."""
        await self.jobs.cancel(prompt.key)

    async def read(self, match_id: int, player_id: str, nonce: int) -> Prompt | None:
        """A prompt as stored, open or not (None: unknown)."""
        job = await self.jobs.get(prompt_key(match_id, player_id, nonce))
        return None if job is None else Prompt.from_job(job)

    async def answer(self, match_id: int, player_id: str, nonce: int, by: str, *, confirm: bool) -> Answered:
        """`by` pressed Confirm (`confirm`) or Cancel on the prompt of `player_id` in `match_id` asked by `nonce`."""
        prompt = await self.read(match_id, player_id, nonce)
        if prompt is None:
            return Answered(Answer.CLOSED)
        if by != prompt.player_id:
            return Answered(Answer.NOT_YOURS, prompt)
        async with self.jobs.engine.begin() as conn:
            taken = await job_store.take(conn, prompt.key, await self.jobs.now())
            job = None if taken else await job_store.read(conn, prompt.key)
        if not taken:  # answered already (closed without a run), or lapsed (due; its run is the runner's)
            lapsed = job is not None and not (job.done and job.attempts == 0)
            return Answered(Answer.LAPSED if lapsed else Answer.CLOSED, prompt)
        if not confirm:
            return Answered(Answer.CANCELLED, prompt)
        g = prompt.grave
        live = self.service.live.get(g.match_id)
        if g.action == MOVE and live is not None and live.ply != g.ply:
            return Answered(Answer.MOVED_ON, prompt)
        try:
            result = await self.service.submit(g.match_id, prompt.player_id, g.text, message_id=prompt.message_id)
        except HostError as exc:
            result = SubmitResult.rejected(exc.refusal)
        return Answered(Answer.DONE if result.status == Outcome.ACCEPTED else Answer.REFUSED, prompt, result)

    async def _lapse(self, job: Job) -> None:
        """A prompt's job fell due: it lapsed (the runner claims it once; an answer can no longer take it)."""
        if self.lapsed is not None:
            await self.lapsed(Prompt.from_job(job))


__all__ = ["KIND", "LAPSE_S", "Answer", "Answered", "Confirmations", "Prompt", "prompt_key"]
