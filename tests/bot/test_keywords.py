"""Exact-keyword matching: only a text that *is* a host keyword acts (issue 28: "resign?" is not a resignation)."""

from __future__ import annotations

import json

import pytest

from bot.host.match import keyword
from tests import DATA

CASES = json.loads((DATA / "host" / "keywords.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize(("text", "action"), CASES, ids=[repr(t) for t, _ in CASES])
def test_a_text_is_a_keyword_only_when_it_is_exactly_one(text: str, action: str | None) -> None:
    assert keyword(text) == action
