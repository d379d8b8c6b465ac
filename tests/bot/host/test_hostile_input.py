"""Hostile input: every game's move parser and the service's `submit` under fuzzing.

No exception escapes, rejected input changes nothing, and what the host says back is short and, as Discord
shows it (`bot/adapters/discord/render.py`, the one guard), never carries a mention that would ping
(`@everyone`, `@here`, `<@&role>`, `<@user>`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.adapters.discord.render import markdown
from bot.host.service import HostEvent, MatchService, PlayerRef, SubmitResult
from bot.store.db import sqlite_url_for
from bot.text import Text, plain
from bot.wording import event_text, reason_text
from games import registry
from games.base import MoveError, play_text
from tests.bot.conftest import make_service

GAMES = sorted(registry.GAME_MODULES)
MAX_REPLY = 400
PING = re.compile(r"@(everyone|here)|<@[!&]?\d+>")

SPECIALS = [
    "@everyone",
    "@here A1-B1",
    "A1-B1 @everyone",
    "<@&123456789012345678> A1-B1",
    "<@123456789012345678>",
    "<@!123456789012345678> B1+",
    "`A1-B1` @everyone",
    "**A1-B1**",
    "||A1-B1||",
    "```A1-B1```",
    "> A1-B1",
    "\u200bA1-B1\u200b",
    "A\u200d1-B\u20601",
    "\ufeffA1-B1",
    "A1\u2013B1",
    "Ａ１－Ｂ１",
    "🙂 A1-B1 🙂",
    "👨‍👩‍👧‍👦" * 50,
    "\x00A1-B1\x07",
    "\x1b[2JA1-B1",
    "A1-B1\r\nB1-C1",
    "\u202eA1-B1",
    "A" * 100_000,
    "A1-B1 " * 20_000,
    "@everyone " + "x" * 100_000,
    "@0+ @everyone",
    "B3 north east @here",
    "setup red F7 blue E5 G5 <@&1>",
    "swap a4 b4 @everyone",
    "pick C3 @here",
    "99999999999999999999999999-1",
    "ZZZZZZZZZZZZZZZZZZZ99999999999999+",
    "@" * 300,
    "\\\\ \\",
]

CONTROL = st.characters(categories=["Cc", "Cf", "Zs", "Mn", "So"])
hostile_text = st.one_of(
    st.text(max_size=300),
    st.text(alphabet=CONTROL, max_size=60),
    st.sampled_from(SPECIALS),
    st.tuples(st.sampled_from(SPECIALS), st.text(max_size=20), st.sampled_from(SPECIALS)).map("".join),
    st.from_regex(r"[A-Za-z@]{1,3}[0-9]{0,3}[-+/\\ ,]{0,2}[A-Za-z]{0,2}[0-9]{0,3}", fullmatch=True),
)


def _safe(text: str | Text | None, what: str) -> None:
    said = None if text is None else plain(text)
    assert said is None or len(said) <= MAX_REPLY, f"{what} is {len(said or '')} characters long"
    shown = None if text is None else markdown(text)
    assert shown is None or not PING.search(shown), f"{what} would ping on Discord: {shown!r}"


# -- the engines' parsers -----------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_parsers_survive_hostile_text(game: str) -> None:
    ruleset = registry.get(game)
    start = ruleset.new_game(ruleset.parse_options({}))

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=hostile_text)
    def check(text: str) -> None:
        assert isinstance(ruleset.looks_like_move(text), bool)
        try:
            parsed = ruleset.parse_syntax(text)
        except MoveError:
            parsed = None
        if parsed is not None:
            for seat in (1, 2):
                try:
                    ruleset.validate(start, parsed, seat)
                except MoveError as exc:
                    _safe(exc.reason, "an engine's reason")
        try:
            play_text(ruleset, start, text)
        except MoveError:
            pass

    check()


# -- the service ----------------------------------------------------------------------------------------

A, B, C = PlayerRef("111", "alice"), PlayerRef("222", "bob"), PlayerRef("333", "carol")


class Hosted:
    """A service on its own event loop, so hypothesis can drive it from a plain test."""

    def __init__(self, tmp: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.events: list[HostEvent] = []
        self.service: MatchService = self.run(make_service(sqlite_url_for(tmp / "fuzz.db"), self.events.append))
        self.matches: dict[str, int] = {}
        for game in GAMES:
            self.matches[game] = self.run(self.service.create_match(game, [A, B], guild_id=1, channel_id=10))

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def fingerprint(self, mid: int) -> Any:
        live = self.service.live.get(mid)
        if live is None:
            return None
        return (live.ruleset.to_json(live.state), live.ply, live.status, live.clocks.running, live.provisional())

    def close(self) -> None:
        self.run(self.service.close())
        self.run(self.service.store.close())
        self.loop.close()


@pytest.fixture
def hosted(tmp_path: Path) -> Iterator[Hosted]:
    h = Hosted(tmp_path)
    yield h
    h.close()


def test_submit_survives_hostile_text(hosted: Hosted) -> None:
    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(game=st.sampled_from(GAMES), who=st.sampled_from([A, B, C]), text=hostile_text)
    def check(game: str, who: PlayerRef, text: str) -> None:
        mid = hosted.matches[game]
        others = {g: hosted.fingerprint(m) for g, m in hosted.matches.items() if g != game}
        before = hosted.fingerprint(mid)
        seen = len(hosted.events)
        result: SubmitResult = hosted.run(hosted.service.submit(mid, who.id, text, message_id="1"))
        assert result.status in ("accepted", "rejected", "ignored")
        _safe(reason_text(result), "SubmitResult.reason")
        for ev in [*result.events, *hosted.events[seen:]]:
            _safe(event_text(ev), f"the {ev.kind} announcement")
        if result.status != "accepted":
            assert hosted.fingerprint(mid) == before, f"rejected {text!r} changed the match"
        if who is C:
            assert result.status == "ignored"
        assert {g: hosted.fingerprint(m) for g, m in hosted.matches.items() if g != game} == others

    check()


def test_moves_meant_for_another_match_change_nothing(hosted: Hosted) -> None:
    """Carol plays boxes with alice; her moves sent to alice and bob's matches are ignored."""
    s = hosted.service
    mine = hosted.run(s.create_match("boxes", [C, A], guild_id=2, channel_id=20))
    for game, mid in hosted.matches.items():
        live = s.get(mid)
        before = hosted.fingerprint(mid)
        for move in live.ruleset.legal_moves(live.state)[:5]:
            text = live.ruleset.format(live.state, move)
            result = hosted.run(s.submit(mid, C.id, text))
            assert result.status == "ignored", (game, text)
            assert hosted.fingerprint(mid) == before
    assert hosted.run(s.submit(mine, C.id, "A1-B1")).status == "accepted"
    assert [m.id for m in s.matches_in_channel(20)] == [mine]
    assert mine not in [m.id for m in s.matches_in_channel(10)]


@pytest.mark.parametrize(
    "name", ["@everyone", "<@&123456789012345678>", "x" * 500, "\u202e@here\u202c", "`A1-B1` @here"]
)
def test_hostile_display_names_never_ping(hosted: Hosted, name: str) -> None:
    """A display name is chosen by the player and echoed in every sentence about them."""
    s = hosted.service
    evil = PlayerRef("666", name)
    seen = len(hosted.events)
    mid = hosted.run(s.create_match("boxes", [evil, A], options={"rows": 1, "cols": 1}))
    for who, text in [
        (A, "A1-B1"),
        (evil, "A1-C1"),
        (evil, "A1-B1"),
        (evil, "A1 9"),
        (evil, "A1-B1"),
        (evil, "resign"),
    ]:
        result = hosted.run(s.submit(mid, who.id, text))
        _safe(reason_text(result), "SubmitResult.reason")
    for ev in hosted.events[seen:]:
        _safe(event_text(ev), f"the {ev.kind} announcement")
