"""A house rule is one module: take it out of the registry and nothing of it is left in what the bot says
or answers (keywords, buttons, option keys and defaults, words, log lines, deadlines, event kinds, the
terminal's help card, the rule cards), and a match plays as if the rule never existed. What is searched for
is what each rule declares (`Trace`), so a new rule is searched for without a line here. Each case first checks that the
same collection does name the rule while it is registered, so the test cannot pass by looking nowhere."""

from __future__ import annotations

import re

import pytest

from bot.adapters.discord.announce._wording import ping_text
from bot.adapters.discord.render import markdown
from bot.host import rules
from bot.host.events import EventKind, HostEvent, TurnFacts
from bot.host.rules import REGISTRY, HouseRule
from bot.host.rules.cards import card_markdown, head_bullets, rule_bullets
from bot.host.service import MatchService, PlayerRef
from bot.store.matches import EntryKind
from bot.text import plain
from bot.wording import (
    _REFUSALS,
    _SHOWN_KINDS,
    deadline_text,
    event_text,
    namer,
    reason_text,
    rule_keywords_line,
    rule_texts,
    rule_words,
    state_words,
    turn_line,
)
from bot.wording.terminal import help_card
from games import registry
from tests.bot.conftest import Recorder, make_service
from tests.bot.host.test_host_flows import _trax_until_win

W, R = PlayerRef("w", "wendy"), PlayerRef("r", "rick")
pytestmark = pytest.mark.looptime

HOST_NAMES = {str(kind) for kind in (*EventKind, *EntryKind)} | {_SHOWN_KINDS.get(str(k), "") for k in EntryKind}
"""The host's own event and log names and labels (`clock`, a provisional move made `final`): no rule's trace."""


class Trace:
    """What would give a rule away, taken from its own declarations (not written out by hand): every name,
    phrase, code, label, event kind and template it declares, as exact items, and, for free text (the help
    card, the rule cards, a sentence made from its templates), its phrases in backticks, `KEY=` and the
    literal parts of its templates."""

    def __init__(self, rule: type[HouseRule]) -> None:
        self.items = {rule.key, *rule.events, *rule.pings, *rule.legacy_statuses, *rule.deadline_labels.values()}
        self.items |= {x for a in rule.actions for x in (a.name, *a.keywords, a.button, a.label) if x}
        said = [markdown(text) for text in rule.words.values()]
        self.items |= {*rule.words, *said}
        self.items -= HOST_NAMES
        pieces = {p.strip(" ,.;:") for text in said for p in re.split(r"\{[^}]*\}", text)}
        self.pieces = {p for p in pieces if len(p) >= 12} | {f"`{k}`" for k in rule.keywords} | {f"`{rule.key}="}
        if rule.card:
            self.pieces.add(card_markdown(rule.card).split("\n")[0])

    def found(self, items: set[str], text: str = "") -> set[str]:
        """What of the rule is in `items` or in `text`."""
        return (self.items & items) | {p for p in self.pieces if p in text}


TRACES = {rule.key: Trace(rule) for rule in REGISTRY if rule.key != "correspondence"}
"""Each rule's trace (the correspondence rule speaks only in correspondence matches: its words are the
clock's, tested with the vacation and the reminder)."""


def everything_declared(live_card: str) -> tuple[set[str], str]:
    """Every name, phrase, code and sentence the host and its faces take from the registered rules and the
    wording tables, as items, and the texts people read that are made from them (the terminal's help card,
    the house-rule part of every game's rule card, its rules' words), as one text."""
    items: set[str] = set()
    items |= {x for k, v in rules.keyword_actions().items() for x in (k, v)}
    items |= {x for rule in REGISTRY for a in rule.actions for x in (a.name, a.button, a.label) if x}
    texts = [live_card]
    for game in registry.ids():
        items |= set(rules.accepted(game))
        texts += [rules.describe(rules.defaults(game)), rule_keywords_line(game) or ""]
        texts += [*head_bullets(game), *rule_bullets(game).values()]  # the rule cards' part made from the rules
    items |= {
        x
        for k, v in {
            **rule_words(),
            **{k: markdown(v) for k, v in rule_texts().items()},
            **_REFUSALS,
            **_SHOWN_KINDS,
        }.items()
        for x in (k, v)
    }
    items |= {str(kind) for kind in EventKind} | set(rules.redraw_kinds())
    items |= {str(rules.withdraw_action()), state_words("held")}
    items |= {kind for rule in REGISTRY for kind in (*rule.events, *rule.pings, *rule.legacy_statuses)}
    items |= {label for rule in REGISTRY for label in rule.deadline_labels.values()}
    return items, "\n".join(texts)


def _take_out(key: str) -> tuple[int, type[HouseRule]]:
    rule = next(r for r in REGISTRY if r.key == key)
    at = REGISTRY.index(rule)
    REGISTRY.remove(rule)
    return at, rule


async def _card(service: MatchService) -> tuple[int, str]:
    mid = await service.create_match("trax", [W, R])
    return mid, plain(help_card(service.get(mid), "dmhost room --resume"))


@pytest.mark.parametrize("key", sorted(TRACES))
async def test_an_unregistered_rule_leaves_no_trace(db_url: str, key: str) -> None:
    trace = TRACES[key]
    service = await make_service(db_url, Recorder())
    try:
        _mid, help_text = await _card(service)
        assert trace.found(*everything_declared(help_text)), "the collection must see the rule while it is registered"
    finally:
        await service.close()
        await service.store.close()
    at, rule = _take_out(key)
    try:
        service = await make_service(db_url, Recorder())
        try:
            _mid, help_text = await _card(service)
            said = everything_declared(help_text)
            assert not trace.found(*said), trace.found(*said)
            assert rules.log_rewind(key, {"to_ply": 0}, 4) is None  # its logged rewinds mean nothing now
            assert all(deadline_text(label, "wendy", "soon") is None for label in rule.deadline_labels.values())
            with pytest.raises(rules.RulesError):
                rules.parse("trax", {key: "1"})
        finally:
            await service.close()
            await service.store.close()
    finally:
        REGISTRY.insert(at, rule)


RULE_EVENTS = {
    "advantage": HostEvent(1, "choose", {"chooser": "w", "seconds": 30.0}, 1, {1: "wendy", 2: "rick"}),
    "presence": HostEvent(1, "presence_ok", {"how": "confirmed"}, 1, {1: "wendy", 2: "rick"}),
    "threesame": HostEvent(1, EventKind.CLOCK, {"notice": "restart"}, 1, {1: "wendy", 2: "rick"}),
}
"""An event of each rule whose words once sat in the shared wording (the sentence and the player's ping)."""


@pytest.mark.parametrize("key", sorted(RULE_EVENTS))
def test_an_unregistered_rules_events_have_no_words_of_it_left(key: str) -> None:
    ev = RULE_EVENTS[key]
    assert TRACES[key].found(set(), markdown(event_text(ev))) and TRACES[key].found(set(), ping_text(ev))
    at, rule = _take_out(key)
    try:
        assert not TRACES[key].found(set(), markdown(event_text(ev))) and not TRACES[key].found(set(), ping_text(ev))
    finally:
        REGISTRY.insert(at, rule)


def test_the_turn_line_says_a_provisional_move_only_with_the_take_back_rule() -> None:
    facts, name = TurnFacts("ongoing", 2, "", 1), namer({1: "wendy", 2: "rick"})
    assert turn_line(facts, name) == "wendy's move becomes final in a few seconds."
    at, rule = _take_out("takeback")
    try:
        assert turn_line(facts, name) == "rick to move."
    finally:
        REGISTRY.insert(at, rule)


async def test_a_trax_match_without_the_take_back_rule_is_final_at_once(db_url: str) -> None:
    # Trax's default is a 5-second take-back window: with the rule gone, a move is final when played and
    # `take back` is only chat.
    at, rule = _take_out("takeback")
    try:
        rec = Recorder()
        service = await make_service(db_url, rec)
        try:
            mid = await service.create_match("trax", [W, R])
            assert (await service.submit(mid, W.id, "@0+")).status == "accepted"
            assert service.pending_move(mid) is None and not rec.of("provisional")
            moved = rec.of("move")[-1][1]
            assert not TRACES["takeback"].found(set(), markdown(event_text(moved)))
            answer = await service.submit(mid, W.id, "take back")
            assert answer.status != "accepted" and service.get(mid).ply == 1
            assert not TRACES["takeback"].found(set(), reason_text(answer) or "")
        finally:
            await service.close()
            await service.store.close()
    finally:
        REGISTRY.insert(at, rule)


async def test_a_trax_win_without_the_mulligan_rule_is_final(db_url: str) -> None:
    # Trax's default is one mulligan each: with the rule gone, a win ends the match at once, no offer.
    at, rule = _take_out("mulligan")
    try:
        rec = Recorder()
        service = await make_service(db_url, rec)
        try:
            mid = await _trax_until_win(service)
            await rec.wait("finished")
            stored = await service.store.load(mid)
            assert not rec.of("mulligan_offer") and stored is not None and stored.status == "finished"
            assert all(not TRACES["mulligan"].found(set(), markdown(event_text(ev))) for _m, ev in rec.events)
        finally:
            await service.close()
            await service.store.close()
    finally:
        REGISTRY.insert(at, rule)
