"""Words as Discord shows them (`bot/adapters/discord/render.py`): Markdown marks, `<t:…>` timestamps, names that
cannot ping; checked against the case list every face shares (`tests/data/wording/runs.jsonl`)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.adapters.discord.render import markdown
from bot.text import code, name, strong, time, verbatim
from tests.bot.test_text import CASES, build


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_discord_markdown(case: dict[str, Any]) -> None:
    assert markdown(build(case["parts"])) == case["discord"]


def test_words_never_ping_and_only_the_adapters_own_mentions_do() -> None:
    """A `str` is words too (its marks kept, its mentions broken); a name or code never pings; the adapter's own
    `verbatim` mention stays; a Trax move such as `@0+` mentions nobody and stays as typed; rendering twice
    changes nothing (a table renders lines rendered already)."""
    typed = "**already marked** <@1> @everyone x@here <@!2> <@&3> @0+ a@b.c"
    assert markdown(typed) == (
        "**already marked** <@\u200b1> @\u200beveryone x@\u200bhere <@\u200b!2> <@\u200b&3> @0+ a@b.c"
    )
    said = markdown(strong(name("<@&42>")) + " starts " + time(1796500800, "R"))
    assert "<@&" not in said and said == "**<@\u200b&42>** starts <t:1796500800:R>"
    assert markdown(code("@here") + " " + verbatim("<@7>") + " " + name("@here")) == "`@\u200bhere` <@7> @\u200bhere"
    assert markdown(markdown(typed)) == markdown(typed)
