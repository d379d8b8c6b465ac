"""Issue 37: some refusals started with a small letter. Every refusal template of the host, its house rules,
tournaments and scheduled DMs, filled and said as Discord says a refusal (`error_sentence`): a capital first
letter unless a name opens it, and a full stop or other closing mark."""

from __future__ import annotations

import datetime as dt
import string
from typing import Any

import pytest

from bot.host.events import HostError, Refusal
from bot.tournaments.refusals import KIND
from bot.wording import _REFUSALS, _SEAT_FIELDS, error_sentence, error_text, rule_words
from bot.wording import schedule as schedule_words
from bot.wording.tournaments import REFUSALS as TOURNAMENT_REFUSALS

NAMES = {1: "alice", 2: "bob"}
WHEN = dt.datetime(2026, 11, 27, 20, tzinfo=dt.UTC)


def _data(template: str) -> dict[str, Any]:
    """A value for every field of a template, of the kind its format asks for."""
    data: dict[str, Any] = {}
    for _text, field, spec, _conv in string.Formatter().parse(template):
        if not field:
            continue
        key = field.split(".")[0].split("[")[0]
        data[key] = 1 if key in _SEAT_FIELDS else 2.5 if spec == "g" else WHEN if (spec or "").startswith("%") else key
    return data


def _said(refusal: Refusal) -> tuple[str, str]:
    exc = HostError(refusal)
    return error_text(exc), error_sentence(exc)


HOST = {**rule_words(), **_REFUSALS}
CASES: list[tuple[str, Refusal, str]] = [
    *((f"host:{code}", Refusal(code, data=_data(t), names=NAMES), t) for code, t in HOST.items()),
    *(
        (f"tournament:{code.value}", Refusal(code.value, kind=KIND, data=_data(t)), t)
        for code, t in TOURNAMENT_REFUSALS.items()
    ),
]


@pytest.mark.parametrize(("refusal", "template"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_refusal_is_said_as_a_sentence(refusal: Refusal, template: str) -> None:
    text, sentence = _said(refusal)
    assert sentence.rstrip(".") == (text[:1].upper() + text[1:] if template[:1].isalpha() else text).rstrip(".")
    opener = sentence[:1]
    assert not opener.islower() or not template[:1].isalpha(), sentence
    assert sentence[-1] in ".!?`:", sentence


def test_a_name_opening_a_refusal_keeps_its_case() -> None:
    assert _said(Refusal("choose_not_you", data={"chooser": 1}, names=NAMES))[1] == "alice chooses who starts."


@pytest.mark.parametrize("code", list(schedule_words._REFUSALS))
def test_scheduled_dm_refusals_open_with_a_capital(code: str) -> None:
    data = {k: WHEN if k in schedule_words._TIMES else v for k, v in _data(schedule_words._REFUSALS[code]).items()}
    text = schedule_words.refusal(code, data)
    assert text[:1].isupper() and error_sentence(HostError(text)) == text
