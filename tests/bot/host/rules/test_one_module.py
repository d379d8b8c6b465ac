"""A house rule is one module and nothing else: this test writes a new rule module into a folder of its own,
adds the folder to the rules package (`bot.host.rules.__path__`) and lets the registry find it
(`rules.discover()`, the discovery every rule module goes through). With nothing else written, the rule is
played end to end (its keyword, its event and words, its log line), the rule cards name it, the command
line's contract names it among the game's rules, and the rule-trace test finds it and finds no trace of it
once it is taken out."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.adapters.discord.render import markdown
from bot.host import rules
from bot.host.rules import cards
from bot.host.service import PlayerRef
from bot.records.matchlog import build_log
from bot.wording import event_text, log_text
from games import registry
from tests import ROOT
from tests.bot.conftest import Recorder, make_service
from tests.bot.host.rules import test_rule_unregistered as traces
from tests.bot.host.rules.test_cards import house_rules_named
from tests.test_contract_cli import rule_refusal_names_the_rules

pytestmark = pytest.mark.looptime

MODULE = '''
"""Courtesy: `greetings` greets the opponent (a rule written by a test, as a new rule module would be)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bot.host.rules.base import Action, Effects, HouseRule, Log, MatchView, Note

GREET = Action("greet", ("greetings", "well met"), "greet", "Greet")


class Courtesy(HouseRule):
    """`courtesy=on`: a player may greet the opponent; nothing else changes."""

    key: ClassVar[str] = "courtesy"
    card: ClassVar[str | None] = "`courtesy=on|off` (off by default): `greetings` greets your opponent."
    order: ClassVar[int] = 95
    default: ClassVar[Any] = False
    in_defaults: ClassVar[bool] = False
    actions: ClassVar[tuple[Action, ...]] = (GREET,)
    events: ClassVar[tuple[str, ...]] = ("greeted",)
    words: ClassVar[Mapping[str, str]] = {
        "greeted": "{player} greets {opponent} most courteously.",
        "log:greeted": "greeted courteously",
    }

    def on_keyword(self, m: MatchView, seat: int, action: str, at: float) -> Effects | None:
        """`greetings`: said and logged."""
        if action != GREET.name:
            return None
        return Effects(log=[Log("greeted", seat)], say=[Note("greeted", {}, seat)])
'''
W, R = PlayerRef("w", "wendy"), PlayerRef("r", "rick")


@pytest.fixture
def courtesy(tmp_path: Path) -> Iterator[Path]:
    """The rule module written into a folder of the rules package, found by the registry's discovery."""
    folder = tmp_path / "more_rules"
    folder.mkdir()
    (folder / "courtesy.py").write_text(textwrap.dedent(MODULE).lstrip())
    rules.__path__.append(str(folder))
    rules.discover()
    rule = next(r for r in rules.REGISTRY if r.key == "courtesy")
    traces.TRACES["courtesy"] = traces.Trace(rule)
    try:
        yield folder
    finally:
        traces.TRACES.pop("courtesy", None)
        rules.REGISTRY.remove(rule)
        rules.__path__.remove(str(folder))
        sys.modules.pop("bot.host.rules.courtesy", None)


async def test_a_rule_written_as_one_module_plays_end_to_end(courtesy: Path, db_url: str) -> None:
    assert importlib.import_module("bot.host.rules.courtesy").__file__ == str(courtesy / "courtesy.py")
    rec = Recorder()
    service = await make_service(db_url, rec)
    try:
        mid = await service.create_match("boxes", [W, R], options={"rows": 2, "cols": 2}, rules={"courtesy": "on"})
        assert (await service.submit(mid, W.id, "greetings")).status == "accepted"
        (_at, greeted), *_ = rec.of("greeted")
        assert markdown(event_text(greeted)) == "wendy greets rick most courteously."
        assert (await service.submit(mid, W.id, "A1-B1")).status == "accepted"
        stored = await service.store.load(mid, with_events=True)
        assert stored is not None and "greeted courteously" in log_text(build_log(stored))
    finally:
        await service.close()
        await service.store.close()


@pytest.mark.parametrize("game", registry.ids())
def test_the_cards_name_a_rule_written_as_one_module(courtesy: Path, game: str) -> None:
    assert "courtesy" in rules.accepted(game)
    shown = cards.card(game)
    assert shown is not None and "- `courtesy=on|off` (off by default)" in shown
    house_rules_named(shown, game)


@pytest.mark.slow
def test_the_command_line_contract_names_a_rule_written_as_one_module(courtesy: Path, tmp_path: Path) -> None:
    # the command line in its own process, with the rule folder added to the package as above
    boot = (
        "import sys, bot.host.rules as r; r.__path__.append(sys.argv[1]); r.discover(); "
        "from bot.ops.cli import main; sys.exit(main(sys.argv[2:]))"
    )
    args = ["room", "boxes", "--player", "a", "--player", "b", "--rule", "takeback=0", "nosuch=1"]
    done = subprocess.run(
        [sys.executable, "-c", boot, str(courtesy), *args, "--db", str(tmp_path / "rules.db")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    rule_refusal_names_the_rules(done, "boxes")


async def test_the_trace_test_searches_a_rule_written_as_one_module(courtesy: Path, db_url: str) -> None:
    await traces.test_an_unregistered_rule_leaves_no_trace(db_url, "courtesy")
