"""Words as Discord shows them (`bot/adapters/discord/render.py`): Markdown marks, `<t:…>` timestamps, names that
cannot ping; checked against the case list every face shares (`tests/data/wording/runs.jsonl`)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.adapters.discord.render import markdown
from bot.text import name, strong, time
from tests.bot.test_text import CASES, build


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_discord_markdown(case: dict[str, Any]) -> None:
    assert markdown(build(case["parts"])) == case["discord"]


def test_a_string_is_sent_as_it_is_and_a_text_never_pings() -> None:
    assert markdown("**already marked** <@1>") == "**already marked** <@1>"
    said = markdown(strong(name("<@&42>")) + " starts " + time(1796500800, "R"))
    assert "<@&" not in said and said == "**<@\u200b&42>** starts <t:1796500800:R>"
