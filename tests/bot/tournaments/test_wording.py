"""Below the adapters tournaments say codes and data (refusals, events); the words live in `bot.wording.tournaments`."""

from __future__ import annotations

import ast
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

import bot.adapters.terminal.tournament as terminal_module
import bot.tournaments.advance
import bot.tournaments.core
import bot.tournaments.due
import bot.tournaments.model
import bot.tournaments.opening
import bot.tournaments.pairer
import bot.tournaments.recording
import bot.tournaments.registration
import bot.tournaments.results
import bot.tournaments.running
import bot.tournaments.service
import bot.tournaments.timer
from bot.adapters.discord.render import markdown
from bot.host.events import Refusal
from bot.text import plain, verbatim
from bot.tournaments.refusals import KIND, RefusalCode, TournamentRefused
from bot.tournaments.rounds import Bye, Game
from bot.tournaments.service import TournamentEventKind
from bot.wording import error_text, refusal_text
from bot.wording.tournaments import REFUSALS, announcement, checkin_card, no_show_line
from tests import DATA

SERVICE = [
    bot.tournaments.service,
    bot.tournaments.core,
    bot.tournaments.model,
    bot.tournaments.registration,
    bot.tournaments.running,
    bot.tournaments.results,
    bot.tournaments.opening,
    bot.tournaments.pairer,
    bot.tournaments.recording,
    bot.tournaments.advance,
    bot.tournaments.due,
    bot.tournaments.timer,
]
"""The tournament service and the modules of its collaborators."""
CASES = [json.loads(line) for line in (DATA / "tournaments" / "refusals.jsonl").read_text().splitlines() if line]
TIMES = ("opens", "at")


def _data(raw: dict[str, Any]) -> dict[str, Any]:
    return {k: dt.datetime.fromisoformat(v) if k in TIMES else v for k, v in raw.items()}


def test_every_refusal_code_has_words_and_a_pinned_sentence() -> None:
    assert set(REFUSALS) == set(RefusalCode)
    assert {c["code"] for c in CASES} == {c.value for c in RefusalCode}, "every code has a case in refusals.jsonl"


@pytest.mark.parametrize("case", CASES, ids=[f"{c['code']}-{i}" for i, c in enumerate(CASES)])
def test_each_refusal_reads_as_before(case: dict[str, Any]) -> None:
    exc = TournamentRefused(RefusalCode(case["code"]), **_data(case["data"]))
    assert (exc.refusal.kind, exc.code, str(exc)) == (KIND, case["code"], case["code"]), "the service says no words"
    assert error_text(exc) == case["text"], "the adapters' one wording function"
    assert refusal_text(Refusal(case["code"], KIND, _data(case["data"]))) == case["text"]


def test_a_refusal_missing_its_data_is_still_a_short_reply() -> None:
    assert error_text(TournamentRefused(RefusalCode.FULL)) == "that is not possible now"


def _calls_to(tree: ast.AST, name: str) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and (getattr(n.func, "id", None) == name or getattr(n.func, "attr", None) == name)
    ]


def _strings(node: ast.AST) -> list[str]:
    """The literal text in an expression (the constant parts of f-strings too)."""
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _tree(module: Any) -> ast.AST:
    return ast.parse(Path(module.__file__).read_text())


@pytest.mark.parametrize("modules", [SERVICE, [terminal_module]], ids=["service", "terminal"])
def test_refusals_below_the_adapters_carry_codes_not_sentences(modules: list[Any]) -> None:
    calls = [call for module in modules for call in _calls_to(_tree(module), "TournamentRefused")]
    assert calls, "the module refuses things"
    for call in calls:
        first = call.args[0]
        by_code = isinstance(first, ast.Attribute) and getattr(first.value, "id", None) == "RefusalCode"
        passed_on = ast.unparse(first) == "exc.refusal"  # the host core's own refusal, already data
        assert by_code or passed_on, ast.unparse(call)
        assert not _strings(call), f"a literal in {ast.unparse(call)}"


@pytest.mark.parametrize("module", SERVICE, ids=[m.__name__.rsplit(".", 1)[1] for m in SERVICE])
def test_the_service_publishes_no_sentences(module: Any) -> None:
    """No literal with a space (a sentence) outside docstrings and the operators' log lines; no f-string in an
    event."""
    tree = _tree(module)
    skip: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and getattr(n.func.value, "id", None) == "log":
            skip |= {id(x) for x in ast.walk(n)}
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant):  # docstrings, of attributes too
            skip.add(id(n.value))
    said = [
        ast.unparse(n)
        for n in ast.walk(tree)
        if id(n) not in skip and isinstance(n, ast.Constant) and isinstance(n.value, str) and " " in n.value.strip()
    ]
    assert said == []
    for call in _calls_to(tree, "emit"):
        assert not [n for n in ast.walk(call) if isinstance(n, ast.JoinedStr)], ast.unparse(call)


NOW = dt.datetime(2026, 11, 25, 20, 0, tzinfo=dt.UTC)
NAMES = {1: "alice", 2: "bob", 3: "carol"}


def _iso(at: dt.datetime) -> str:
    return at.strftime("%H:%M")


def _at(name: str) -> str:
    return f"@{name}"


def test_announcements_are_worded_from_the_events_data() -> None:
    def say(kind: TournamentEventKind, **data: Any) -> str:
        return markdown(announcement("Cup", kind, data, NAMES, _iso, NOW))

    later = NOW + dt.timedelta(hours=1)
    assert say(TournamentEventKind.ROUND, round=2, pairings=[Game(1, 2), Bye(3, 1.0)], starts_at=later) == (
        "**Cup**\nRound 2\n1. alice – bob\n2. carol: bye (1)\nThe games start 21:00."
    )
    assert say(TournamentEventKind.ROUND, round=1, pairings=[Game(2, 1)], starts_at=NOW).endswith("1. bob – alice")
    assert say(TournamentEventKind.STARTED, players=3, removed=["dave"]) == (
        "**Cup** has started with 3 players. Out for not checking in: dave."
    )
    assert say(TournamentEventKind.STARTED, players=4, removed=[]) == "**Cup** has started with 4 players."
    assert say(TournamentEventKind.STARTED, players=2, removed=["carol"], left=["dave"]) == (
        "**Cup** has started with 2 players. Out for leaving the server: dave. Out for not checking in: carol."
    )
    assert say(TournamentEventKind.NO_SHOW, round=1, board=2, winner_name="alice", absent_name="bob") == (
        "**Cup**, round 1 board 2: alice wins by no-show (bob did not check in)."
    )
    assert say(TournamentEventKind.REMATCH, round=1, pairings=[Game(2, 1)]) == (
        "**Cup**: drawn, so replayed with colours swapped: bob – alice"
    )
    assert say(TournamentEventKind.FINISHED, winner_name="carol", prize="a crown") == "carol wins Cup! Prize: a crown."
    assert say(TournamentEventKind.FINISHED, winner_name=None, prize=None) == "**Cup** is over."
    why = Refusal(RefusalCode.TOO_FEW.value, KIND, {"name": "Cup", "need": 2, "joined": 1})
    assert say(TournamentEventKind.CANCELLED, by=None, refusal=why) == (
        "**Cup** is cancelled: Cup needs at least 2 players to start; 1 joined."
    )
    assert say(TournamentEventKind.CANCELLED, by="host") == "**Cup** is cancelled."
    assert say(TournamentEventKind.PAUSED, by="host") == "**Cup** is paused."


def test_a_games_check_in_card_and_its_no_show() -> None:
    data = {
        "round": 3,
        "board": 1,
        "white": "11",
        "black": "22",
        "starts_at": NOW + dt.timedelta(minutes=30),
        "deadline": NOW + dt.timedelta(minutes=40),
    }
    assert markdown(checkin_card("Cup", data, _at, _iso, NOW)).splitlines() == [
        "**Cup**, round 3 board 1: @11 (first) vs @22",
        "Click **I'm here** or type `here`: the match starts 20:30 once both of you are here.",
        "A player still absent 20:40 loses this game by no-show.",
    ]
    started = markdown(checkin_card("Cup", {**data, "starts_at": NOW, "deadline": None}, _at, _iso, NOW))
    assert started.splitlines()[1:] == [
        "Click **I'm here** or type `here`: the match starts once both of you are here."
    ]
    ruling = {"winner": "11", "absent": "22"}
    assert plain(no_show_line(ruling, _at)) == "@11 wins by no-show: @22 did not check in in time."
    # on Discord the players are the adapter's own mentions, which the renderer leaves as they are
    pinged = markdown(no_show_line(ruling, lambda p: verbatim(f"<@{p}>")))
    assert pinged == "<@11> wins by no-show: <@22> did not check in in time."
