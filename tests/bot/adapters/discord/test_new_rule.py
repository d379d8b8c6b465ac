"""A next house rule touches only its own module: a toy rule, declared whole in this test module (key, games,
default, value parsing, an action with keywords and a button, a timer with a deadline label, its events, the
one that pings, and all their words), registers itself by subclassing `HouseRule` as a rule module would,
and is played through the terminal room and on a simulated Discord (keyword and button) with nothing else
edited. A rule that would clash with the registered ones is refused as it is defined."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bot.adapters.terminal.room import Room
from bot.compose import build_host
from bot.host import rules
from bot.host.rules import Action, Effects, HouseRule, Log, MatchView, Note, OpenAction, Refused, RulesError
from bot.records.matchlog import build_log
from bot.store.matches import MatchStore
from bot.types import MatchStatus
from bot.wording import log_text, refusal_text
from tests.bot.adapters.discord.conftest import World, answer, board_of, bot_text, start
from tests.bot.conftest import room_config, typed

ECHO_SECONDS = 30.0
RING = Action("ring_bell", ("ring bell", "ding"), "bell", "Ring bell", "primary", answered_when_off=True)


def define_bell() -> type[HouseRule]:
    """The toy rule, exactly as a module of `bot/host/rules/` would write it (defining it registers it)."""

    class Bell(HouseRule):
        """`bell=N`: each player may ring a bell N times; it echoes 30 s (or until the other player moves)."""

        key: ClassVar[str] = "bell"
        order: ClassVar[int] = 90
        games: ClassVar[tuple[str, ...] | None] = ("boxes", "dots")
        default: ClassVar[Any] = 0
        in_defaults: ClassVar[bool] = False
        actions: ClassVar[tuple[Action, ...]] = (RING,)
        deadline_labels: ClassVar[Mapping[str, str]] = {"echo": "bell_echo"}
        events: ClassVar[tuple[str, ...]] = ("bell_rung", "bell_quiet")
        pings: ClassVar[tuple[str, ...]] = ("bell_quiet",)
        words: ClassVar[Mapping[str, str]] = {
            "bell_rung": "{player} rings the bell ({left} left).",
            "bell_quiet": "{player}'s bell falls quiet.",
            "bell_none": "You have no bell left to ring.",
            "bell_count": "{rule} is a number of bells from 0 to 3, not {value!r}",
            "deadline:bell_echo": "{who}'s bell echoes until {at}",
            "log:bell_rung": "bell rung",
            "no_rule:ring_bell": "There is no bell in this match.",
        }

        def __init__(self, count: int) -> None:
            self.left = {1: count, 2: count}
            self.ringer: int | None = None

        @classmethod
        def parse(cls, text: str) -> Any:
            if text.strip() not in ("0", "1", "2", "3"):
                raise RulesError("bell_count", rule=cls.key, value=text)
            return int(text)

        @classmethod
        def build(cls, value: Any) -> HouseRule | None:
            return cls(int(value)) if value else None

        def describe(self) -> str:
            return f"bell={max(self.left.values())}"

        def on_keyword(self, m: MatchView, seat: int, action: str, at: float) -> Effects | None:
            if self.left[seat] <= 0:
                raise Refused("bell_none")
            self.left[seat] -= 1
            self.ringer = seat
            return Effects(
                log=[Log("bell_rung", seat, {"left": self.left[seat]})],
                say=[Note("bell_rung", {"left": self.left[seat]}, seat)],
                timers={"echo": ECHO_SECONDS},
            )

        def on_timer(self, m: MatchView, name: str) -> Effects | None:
            ringer, self.ringer = self.ringer, None
            return Effects(say=[Note("bell_quiet", {}, ringer)])

        def after_play(self, m: MatchView, seat: int, notation: str, message_id: str | None, at: float) -> Effects:
            if self.ringer is None or seat == self.ringer:
                return Effects()
            ringer, self.ringer = self.ringer, None
            return Effects(say=[Note("bell_quiet", {}, ringer)], timers={"echo": None})

        def open_actions(self, m: MatchView) -> list[OpenAction]:
            if m.status != MatchStatus.ONGOING or not any(self.left.values()):
                return []
            return [OpenAction(RING, m.ply)]

        def deadline_seat(self, m: MatchView) -> int | None:
            return self.ringer

        def dump(self, now: float) -> dict[str, Any]:
            return {"left": {str(s): n for s, n in self.left.items()}, "ringer": self.ringer}

        def load(self, data: Mapping[str, Any], now: float) -> None:
            self.left = {int(s): int(n) for s, n in data.get("left", {}).items()}
            self.ringer = data.get("ringer")

    return Bell


@pytest.fixture(autouse=True)
def bell() -> Iterator[type[HouseRule]]:
    """The rule, registered for this module's tests only."""
    rule = define_bell()
    try:
        yield rule
    finally:
        HouseRule.registry.remove(rule)


def test_it_declares_itself_into_the_registry(bell: type[HouseRule]) -> None:
    assert bell in rules.REGISTRY
    assert "bell" in rules.accepted("boxes") and "bell" not in rules.accepted("trax")
    assert "bell" not in rules.defaults("boxes")
    assert rules.parse("boxes", {"bell": "2"})["bell"] == 2
    with pytest.raises(RulesError) as bad:
        rules.parse("boxes", {"bell": "7"})
    assert refusal_text(bad.value.refusal) == "bell is a number of bells from 0 to 3, not '7'"
    with pytest.raises(RulesError) as other:
        rules.parse("trax", {"bell": "1"})
    assert "trax takes no rule 'bell'" in refusal_text(other.value.refusal)
    assert rules.keyword_actions()["ding"] == "ring_bell"


async def run_room(tmp_path: Path, lines: list[str], **rule: str) -> list[dict[str, Any]]:
    config = room_config(tmp_path, options={"rows": "2", "cols": "2"}, rules=dict(rule))
    queue = typed(*lines, None)
    out = io.StringIO()
    assert await Room(config, build_host(config.db_url), out=out).run(queue) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def test_in_the_terminal_room(tmp_path: Path) -> None:
    heard = await run_room(tmp_path, ["alice: ring bell", "alice: Ding!", "bob: ding", "alice: A1-B1"], bell="1")
    said = [(e["event"], e.get("text") or e.get("reason")) for e in heard[1:-1] if e["event"] != "turn"]
    assert said == [
        ("bell_rung", "alice rings the bell (0 left)."),
        ("rejected", "You have no bell left to ring."),
        ("bell_rung", "bob rings the bell (0 left)."),
        ("move", "alice played A1-B1."),
        ("bell_quiet", "bob's bell falls quiet."),
    ]
    store = MatchStore(room_config(tmp_path).db_url)
    await store.open()
    try:
        stored = await store.load(heard[0]["match"], with_events=True)
        assert stored is not None
        text = log_text(build_log(stored))
    finally:
        await store.close()
    assert "bell=1" in text.splitlines()[4].split() and text.count("bell rung") == 2


async def test_refused_where_the_rule_is_off(tmp_path: Path) -> None:
    heard = await run_room(tmp_path, ["alice: ring bell"])
    assert heard[1]["event"] == "rejected" and heard[1]["reason"] == "There is no bell in this match."


async def test_on_discord_by_button_and_by_keyword(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2", rules="bell=1")
    live = w.bot.service.live[match_id]
    assert "Ring bell" in str(board_of(w, room, match_id).components)
    await w.alice.click(board_of(w, room, match_id), label="Ring bell")
    board = board_of(w, room, match_id).content
    assert "> alice rings the bell (0 left)." in board and "alice's bell echoes until <t:" in board
    await w.bob.send(room, "ding")
    assert "> bob rings the bell (0 left)." in board_of(w, room, match_id).content
    assert "Ring bell" not in str(board_of(w, room, match_id).components)  # nobody has a bell left
    await w.alice.send(room, "ring bell")
    assert "You have no bell left to ring." in bot_text(w, room)
    await w.env.advance_time(ECHO_SECONDS + 1)
    board = board_of(w, room, match_id).content
    assert "> bob's bell falls quiet." in board and "echoes until" not in board
    assert f"<@{w.bob.id}> bob's bell falls quiet." in bot_text(w, room)  # the event it declares as a ping
    assert live.status == "ongoing"


async def test_on_discord_refused_where_the_rule_is_off(world: World) -> None:
    w = world
    match_id, room = await start(w, options="rows=2 cols=2")
    assert "Ring bell" not in str(board_of(w, room, match_id).components)
    await w.bob.send(room, "ding")
    assert "There is no bell in this match." in bot_text(w, room)
    refused = answer(
        await w.carol.slash(w.lobby, "dm start", game="trax", player1=w.alice, player2=w.bob, rules="bell=1")
    )
    assert "trax takes no rule 'bell'" in refused.content


def test_a_rule_that_would_clash_is_refused_as_it_is_defined() -> None:
    before = list(rules.REGISTRY)
    with pytest.raises(TypeError, match="ding already belong to Bell"):

        class Gong(HouseRule):
            key: ClassVar[str] = "gong"
            actions: ClassVar[tuple[Action, ...]] = (Action("strike_gong", ("gong", "ding")),)

    with pytest.raises(TypeError, match="'draw' is DrawOffer's"):

        class Draw(HouseRule):
            key: ClassVar[str] = "draw"

    with pytest.raises(TypeError, match="not lower-case letters"):

        class Horn(HouseRule):
            key: ClassVar[str] = "horn"
            actions: ClassVar[tuple[Action, ...]] = (Action("blow_horn", ("horn",), "horn_2", "Blow"),)

    assert rules.REGISTRY == before
