"""`dmhost doctor` explains how moves are read in each mode (`DMHOST_MESSAGE_CONTENT`, issue 50 point 7), on a
simulated Discord: with the setting off the Message Content Intent is not asked for (a portal without it
passes), with it on a portal without it fails with both fixes."""

from __future__ import annotations

import io

import discord

from bot.adapters.discord.app import make_intents
from bot.adapters.discord.doctor import run_doctor
from tests.bot.adapters.discord.test_doctor import build_guilds, simcord_connector


def _no_content() -> discord.Intents:
    approved = discord.Intents.all()
    approved.message_content = False
    return approved


async def test_off_needs_no_content_intent_and_says_how_players_move() -> None:
    sessions: list[str] = []
    out = io.StringIO()
    code = await run_doctor(simcord_connector(_no_content(), build_guilds(), sessions), make_intents(False), out)
    lines = out.getvalue().splitlines()
    assert code == 0, lines
    (moves,) = [line for line in lines if line.startswith("note  moves:")]
    assert "DMHOST_MESSAGE_CONTENT=off" in moves and "/move text:" in moves and " A1-B1`" in moves
    assert "to have it: enable Message Content Intent" in moves and "DMHOST_MESSAGE_CONTENT=on" in moves
    assert not any("intent Message Content Intent" in line for line in lines)  # not asked for, not checked
    assert "ok    intent Server Members Intent: enabled" in lines
    assert sessions == ["members"]  # one session, without the content intent


async def test_on_explains_the_intent_and_offers_the_other_mode() -> None:
    sessions: list[str] = []
    out = io.StringIO()
    code = await run_doctor(simcord_connector(_no_content(), build_guilds(), sessions), make_intents(True), out)
    lines = out.getvalue().splitlines()
    assert code == 1, lines
    (moves,) = [line for line in lines if "moves:" in line]
    assert moves.startswith("ok    moves: read from plain messages") and "DMHOST_MESSAGE_CONTENT=on" in moves
    (intent,) = [line for line in lines if "intent Message Content Intent" in line]
    assert intent.startswith("FAIL") and "fix: set DMHOST_MESSAGE_CONTENT=off" in intent and "/move" in intent
    out = io.StringIO()
    assert await run_doctor(simcord_connector(discord.Intents.all(), build_guilds(), []), make_intents(), out) == 0
    assert "ok    intent Message Content Intent: enabled" in out.getvalue().splitlines()
