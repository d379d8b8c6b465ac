"""Issue 36, item 5: rematch offers and Confirm / Cancel prompts are durable jobs. On SimCord with a real SQLite
file, the bot is stopped and built again on that file: a pending offer is still accepted (one rematch), a lapse is
shown once, a prompt still answers, and a button no longer open is refused in one line without touching a game."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import simcord

from bot.adapters.discord.app import create_bot
from bot.host.confirm import Answer
from bot.jobs import Job
from bot.ops.apps import discord_app
from bot.series.rematch import Click, offer_key
from bot.settings import Settings
from bot.types import MatchStatus
from tests.bot.adapters.discord.conftest import World, answer, bot_messages, start

ONE_BOX = ["A1-B1", "A1-A2", "B1-B2", "A2-B2"]
"""A 1×1 Dots-and-Boxes game: whoever moves second takes the box with the fourth line and wins 1–0."""


async def settle(w: World) -> None:
    cog: Any = w.bot.get_cog("Series")
    await cog.drain()
    await w.env.settle()


async def one_box(w: World, room: simcord.ChannelHandle) -> None:
    """alice moves first, bob takes the box: the match ends and the rematch offer is posted."""
    for i, move in enumerate(ONE_BOX):
        await (w.alice if i % 2 == 0 else w.bob).send(room, move)
    await settle(w)


def offer_message(w: World, room: simcord.ChannelHandle) -> discord.Message:
    (offer,) = [m for m in bot_messages(w, room) if "with colours swapped?" in m.content]
    return offer


def message(room: simcord.ChannelHandle, message_id: int) -> discord.Message:
    """A message as it reads now."""
    (found,) = [m for m in room.history() if m.id == message_id]
    return found


def prompt_to(w: World, room: simcord.ChannelHandle, sent: discord.Message) -> discord.Message:
    """The bot's prompt answering a player's message, as it reads now."""
    (prompt,) = [m for m in bot_messages(w, room) if m.reference is not None and m.reference.message_id == sent.id]
    return prompt


def edits_of(w: World, channel_id: int, message_id: int) -> list[str]:
    """The contents the bot edited a message to, in order."""
    path = f"/channels/{channel_id}/messages/{message_id}"
    return [str((r.json or {}).get("content")) for r in w.env.http_requests if r.method == "PATCH" and r.path == path]


async def stop(w: World) -> None:
    """The process stops: its jobs runner, timers and database go (what stays is the SQLite file)."""
    old = w.bot
    with w.env._bot_scope():
        await old.jobs.close(finish_s=0)
        await old.service.close()
        await old.service.store.close()


async def restart(w: World, settings: Settings) -> None:
    """A new process on the same database: the bot as `dmhost run` builds it."""
    await w.env.restart_bot(create_bot(settings, discord_app(settings), sync_commands=True))
    await w.env.settle()


# -- rematch offers ------------------------------------------------------------------------------
async def test_a_rematch_offer_accepted_after_a_restart_starts_one_rematch(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, options="rows=1 cols=1")
    await one_box(w, room)
    offer = offer_message(w, room)
    await w.alice.click(offer, label="Rematch")
    assert "alice wants a rematch; waiting for bob" in message(room, offer.id).content
    await stop(w)
    await w.env.advance_time(120)  # two minutes away: the offer (ten minutes) is still open
    await restart(w, settings)
    assert w.bot.service.live == {}
    await w.bob.click(message(room, offer.id), label="Rematch")  # alice's click before the restart counts
    await settle(w)
    (live,) = w.bot.service.live.values()
    assert live.id != match_id and live.players[1].id == str(w.bob.id), "colours swapped: bob moves first"
    shown = message(room, offer.id)
    assert f"Rematch: match {live.id} has started" in shown.content and shown.components == []
    with w.env._bot_scope():
        late = await w.bot.app.rematches.click(match_id, str(w.alice.id))  # a click that crossed the last one
    assert late.kind == Click.LAPSED
    assert list(w.bot.service.live) == [live.id], "no second rematch"
    job = await w.bot.jobs.get(offer_key(match_id))
    assert job is not None and job.done and job.attempts == 0, "accepted: taken, never run as a lapse"


async def test_two_last_clicks_at_once_start_one_rematch(world: World, settings: Settings) -> None:
    """The idempotent claim: the row is closed once, whoever (or whichever process) clicks last."""
    w = world
    match_id, room = await start(w, options="rows=1 cols=1")
    await one_box(w, room)
    await w.alice.click(offer_message(w, room), label="Rematch")
    await stop(w)
    await restart(w, settings)
    rematches = w.bot.app.rematches
    with w.env._bot_scope():
        results = await asyncio.gather(*(rematches.click(match_id, str(w.bob.id)) for _ in range(3)))
    assert sorted(r.kind for r in results) == [Click.LAPSED, Click.LAPSED, Click.STARTED]
    await settle(w)
    assert len(w.bot.service.live) == 1


async def test_a_rematch_offer_lapsing_while_the_bot_is_away_is_edited_once(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, options="rows=1 cols=1")
    await one_box(w, room)
    offer = offer_message(w, room)
    await stop(w)
    await w.env.advance_time(700)  # the offer's ten minutes end while no bot runs
    assert "Rematch" in str(message(room, offer.id).components)
    await restart(w, settings)  # the job fell due meanwhile: run once at the start
    lapsed = message(room, offer.id)
    assert lapsed.content.startswith("Play a rematch") and "This rematch offer has lapsed." in lapsed.content
    assert lapsed.components == []
    await w.env.advance_time(700)
    assert [e for e in edits_of(w, room.id, offer.id) if "lapsed" in e] == [lapsed.content], "edited once"
    with w.env._bot_scope():
        late = await w.bot.app.rematches.click(match_id, str(w.bob.id))
    assert late.kind == Click.LAPSED
    assert w.bot.service.live == {}


async def test_a_rematch_offer_lapses_after_a_restart_at_its_own_time(world: World, settings: Settings) -> None:
    w = world
    _match_id, room = await start(w, options="rows=1 cols=1")
    await one_box(w, room)
    offer = offer_message(w, room)
    await stop(w)
    await restart(w, settings)
    await w.env.advance_time(590)
    assert "Rematch" in str(message(room, offer.id).components), "still open just before ten minutes"
    await w.env.advance_time(20)
    assert "lapsed" in message(room, offer.id).content and message(room, offer.id).components == []
    assert len([e for e in edits_of(w, room.id, offer.id) if "lapsed" in e]) == 1


# -- confirmations -------------------------------------------------------------------------------
async def test_a_resignation_confirmed_after_a_restart_ends_the_match(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    sent = await w.bob.send(room, "resign")
    prompt = prompt_to(w, room, sent)
    await stop(w)
    await w.env.advance_time(10)
    await restart(w, settings)
    live = w.bot.service.live[match_id]
    refused = answer(await w.alice.click(prompt, label="Confirm"))
    assert refused.ephemeral and refused.content == "Only bob can answer this."
    assert live.status == MatchStatus.ONGOING
    await w.bob.click(prompt, label="Confirm")
    assert live.status == MatchStatus.FINISHED and live.result == (1, "resign")
    done = prompt_to(w, room, sent)
    assert done.content == "Confirmed: bob resigns." and done.components == []
    await w.env.advance_time(60)
    assert not [e for e in edits_of(w, room.id, prompt.id) if "Lapsed" in e], "answered: it never lapses"


async def test_a_private_prompt_still_answers_after_a_restart(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    asked = answer(await w.alice.slash(room, "dm resign"))
    await stop(w)
    await restart(w, settings)
    await w.alice.click(asked, label="Confirm")
    stored = await w.bot.service.store.load(match_id)
    assert stored is not None and stored.status == MatchStatus.FINISHED and stored.result_reason == "resign"
    assert stored.winner_seat == 2


async def test_a_prompt_lapsing_across_a_restart_is_edited_once(world: World, settings: Settings) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    sent = await w.alice.send(room, "resign")
    prompt = prompt_to(w, room, sent)
    await stop(w)
    await w.env.advance_time(45)  # its 30 s end while no bot runs
    await restart(w, settings)
    lapsed = prompt_to(w, room, sent)
    assert lapsed.content == "Lapsed: not confirmed within 30 s, so alice did not resign."
    assert lapsed.components == []
    await w.env.advance_time(60)
    assert [e for e in edits_of(w, room.id, prompt.id) if "Lapsed" in e] == [lapsed.content], "edited once"
    assert w.bot.service.live[match_id].status == MatchStatus.ONGOING


async def test_a_private_prompt_lapsed_across_a_restart_says_so_when_pressed(world: World, settings: Settings) -> None:
    """A private prompt can be edited only by the process that asked: after a restart its buttons stay until
    they are pressed, and a press then removes them and says in one line that it lapsed."""
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    asked = answer(await w.alice.slash(room, "dm resign"))
    await stop(w)
    await w.env.advance_time(45)
    await restart(w, settings)
    pressed = await w.alice.click(asked, label="Confirm")
    (line,) = pressed.followups
    assert line.ephemeral and line.content == "Lapsed: not confirmed within 30 s, so alice did not resign."
    assert answer(await w.alice.slash(room, "dm status")).content  # the room still answers
    assert w.bot.service.live[match_id].status == MatchStatus.ONGOING


async def test_a_stale_confirm_never_acts_on_the_live_rematch(world: World, settings: Settings) -> None:
    """alice's prompt in match 1 stays open; bob resigns match 1, the rematch starts in the same room, and alice
    presses her old Confirm after a restart: refused in one line, and the rematch goes on untouched."""
    w = world
    first_id, room = await start(w, options="rows=2 cols=2")
    alice_sent = await w.alice.send(room, "resign")
    alice_prompt = prompt_to(w, room, alice_sent)
    bob_sent = await w.bob.send(room, "resign")
    await w.bob.click(prompt_to(w, room, bob_sent), label="Confirm")
    await settle(w)
    offer = offer_message(w, room)
    await w.alice.click(offer, label="Rematch")
    await w.bob.click(offer, label="Rematch")
    await settle(w)
    (rematch,) = w.bot.service.live.values()
    assert rematch.id != first_id and rematch.channel_id == room.id, "the rematch is played in the same room"
    await stop(w)
    await restart(w, settings)
    live = w.bot.service.live[rematch.id]
    pressed = await w.alice.click(alice_prompt, label="Confirm")
    said = message(room, alice_prompt.id)
    assert "over" in said.content and said.components == [] and "Confirmed" not in said.content
    assert pressed.followups == [], "one line: the prompt itself says why"
    assert live.status == MatchStatus.ONGOING and live.ply == 0 and live.result is None
    first = await w.bot.service.store.load(first_id)
    assert first is not None and first.winner_seat == 1, "bob's resignation stands"


async def test_a_prompt_is_answered_once(world: World) -> None:
    """A Confirm that crosses a Cancel (another tab, another process) does nothing; an unknown prompt neither."""
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    sent = await w.alice.send(room, "resign")
    await w.alice.click(prompt_to(w, room, sent), label="Cancel")
    prompts, alice = w.bot.app.confirmations, str(w.alice.id)
    with w.env._bot_scope():
        late = await prompts.answer(match_id, alice, sent.id, alice, confirm=True)
        unknown = await prompts.answer(match_id, alice, 1, alice, confirm=True)
    assert late.kind == Answer.CLOSED and late.prompt is not None and late.prompt.grave.action == "resign"
    assert unknown.kind == Answer.CLOSED and unknown.prompt is None
    assert w.bot.service.live[match_id].status == MatchStatus.ONGOING


async def test_the_jobs_carry_the_offer_and_the_prompt(world: World) -> None:
    """What a restarted bot reads: the offer's and the prompt's state are in their job rows."""
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    sent = await w.alice.send(room, "resign")
    prompt = prompt_to(w, room, sent)
    (job,) = await w.bot.jobs.listing(f"confirm:{match_id}:", pending=True)
    assert job.kind == "confirm" and job.key == f"confirm:{match_id}:{w.alice.id}:{sent.id}"
    assert job.payload["prompt"] == prompt.id and job.payload["channel"] == room.id and job.scope == w.guild.id
    await w.alice.click(prompt, label="Confirm")
    await settle(w)
    offer = offer_message(w, room)
    rematch_job: Job | None = await w.bot.jobs.get(offer_key(match_id))
    assert rematch_job is not None and rematch_job.kind == "rematch" and not rematch_job.done
    assert rematch_job.payload["message"] == offer.id and rematch_job.payload["clicked"] == []
    assert [pid for pid, _ in rematch_job.payload["needed"]] == [str(w.alice.id), str(w.bob.id)]


async def test_a_new_series_offered_before_a_restart_starts_after_it(world: World, settings: Settings) -> None:
    w = world
    reply = await w.carol.slash(
        w.lobby, "dm start", game="boxes", player1=w.alice, player2=w.bob, options="rows=1 cols=1", series=3,
        room="channel",
    )  # fmt: skip
    assert "game 1 of a best of 3" in answer(reply).content
    for _game in range(3):  # the second mover takes the box: bob, alice, bob
        (live,) = w.bot.service.live.values()
        first, second = (live.players[1].id, live.players[2].id)
        for i, move in enumerate(ONE_BOX):
            who = w.alice if str(w.alice.id) == (first if i % 2 == 0 else second) else w.bob
            await who.send(w.lobby, move)
        await settle(w)
    offer = offer_message(w, w.lobby)
    assert "**bob wins the series**, 2–1 (best of 3)." in offer.content and "a new best of 3" in offer.content
    await stop(w)
    await restart(w, settings)
    await w.alice.click(message(w.lobby, offer.id), label="Rematch")
    shown = message(w.lobby, offer.id).content
    assert "**bob wins the series**" in shown and "alice wants a rematch; waiting for bob" in shown, shown
    await w.bob.click(message(w.lobby, offer.id), label="Rematch")
    await settle(w)
    (live,) = w.bot.service.live.values()
    assert live.players[1].id == str(w.bob.id), "the new series' first game: bob moves first"
    series = w.bot.app.series.of_match(live.id)
    assert series is not None and series.best_of == 3 and series.matches == (live.id,)
