"""Words as runs (`bot/text.py`): building a `Text` (`+`, `join`, templates), the plain face (the terminal's),
and the one case list every face is checked against (`tests/data/wording/runs.jsonl`: each case's runs and what
the terminal, Discord and the review pages show)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.text import (
    Kind,
    Text,
    as_text,
    chat_only,
    code,
    emphasis,
    fill_in,
    from_markdown,
    lines,
    name,
    plain,
    strong,
    time,
)
from tests import DATA

CASES = [json.loads(line) for line in (DATA / "wording" / "runs.jsonl").read_text(encoding="utf-8").splitlines()]
"""Each case: `parts` (how its text is built), and what `plain`, Discord and HTML make of it."""


def build(parts: list[list[Any]]) -> Text:
    """A case's text from its parts: `[kind, value, *options]`."""
    made = Text()
    for kind, value, *options in parts:
        if kind == "time":
            made += time(value, *options[:1], relative=bool(options[1:] and options[1]))
        else:
            made += {
                "plain": as_text,
                "strong": strong,
                "emphasis": emphasis,
                "code": code,
                "name": name,
                "chat": chat_only,
                "strong_name": lambda v: strong(name(v)),
            }[kind](value)
    return made


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_plain_text_is_what_the_terminal_shows(case: dict[str, Any]) -> None:
    assert plain(build(case["parts"])) == case["plain"]


def test_text_is_built_with_strings_and_runs_in_any_order() -> None:
    said = "Check-in for " + strong("DM #3") + ": type " + code("here") + "."
    assert said == Text() + "Check-in for " + strong("DM #3") + as_text(": type ") + code("here") + "."
    assert [run.kind for run in said.runs] == [Kind.PLAIN, Kind.PLAIN, Kind.PLAIN, Kind.CODE, Kind.PLAIN]
    assert plain(as_text(", ").join(["a", strong("b"), code("c")])) == "a, b, `c`"
    assert plain(lines(["one", strong("two")])) == "one\ntwo"


def test_a_template_takes_strings_and_texts_and_keeps_the_runs_of_both() -> None:
    template = "{player} played {move}. It becomes final in {seconds:g} s (" + chat_only("or press ") + "undo)."
    said = fill_in(template, player=name("alice"), move="A1-B1", seconds=5.0)
    assert plain(said) == "alice played A1-B1. It becomes final in 5 s (undo)."
    assert said.runs[0].kind == Kind.NAME and any(run.chat for run in said.runs)
    assert plain(fill_in("until {at}", at=time(0))) == "until 1970-01-01 00:00 UTC"
    held = fill_in(strong("{cup}") + " starts", cup=name("Spring Cup"))
    assert [(run.kind, run.strong) for run in held.runs] == [(Kind.NAME, True), (Kind.PLAIN, False)]


def test_text_is_never_a_string_by_accident() -> None:
    with pytest.raises(TypeError):
        str(strong("Cup"))
    with pytest.raises(TypeError):
        f"{strong('Cup')}"


def test_map_and_rstrip_change_the_words_not_the_runs() -> None:
    said = (strong("seat 1") + " wins  ").map(lambda w: w.replace("seat 1", "alice")).rstrip()
    assert plain(said) == "alice wins" and said.runs[0].strong
    assert not Text() and not as_text("") and Text().rstrip() == Text()


def test_a_cards_markdown_reads_as_runs() -> None:
    said = from_markdown("**Move.** Write `A1-B1`; **chat** is ignored.")
    assert plain(said) == "Move. Write `A1-B1`; chat is ignored."
    assert [(run.text, run.kind, run.strong) for run in said.runs] == [
        ("Move.", Kind.PLAIN, True),
        (" Write ", Kind.PLAIN, False),
        ("A1-B1", Kind.CODE, False),
        ("; ", Kind.PLAIN, False),
        ("chat", Kind.PLAIN, True),
        (" is ignored.", Kind.PLAIN, False),
    ]
