"""Words as the review pages show them (`bot/records/html_text.py`): escaped HTML, checked against the case list
every face shares (`tests/data/wording/runs.jsonl`)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.records.html_text import html
from bot.text import code, strong
from tests.bot.test_text import CASES, build


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_html(case: dict[str, Any]) -> None:
    assert html(build(case["parts"])) == case["html"]


def test_nothing_a_player_wrote_becomes_markup() -> None:
    assert html("<script>x</script>") == "&lt;script&gt;x&lt;/script&gt;"
    assert (
        html(strong("<img src=x>") + code("</code>")) == "<strong>&lt;img src=x&gt;</strong><code>&lt;/code&gt;</code>"
    )
