"""A correspondence reminder owed in the outbox since before moments were stored as seconds (its `deadline` then
was a chat timestamp in a string) reads as a new one does, in every face."""

from __future__ import annotations

from bot.adapters.discord.render import markdown
from bot.host.events import HostEvent
from bot.text import plain
from bot.types import REMINDER
from bot.wording.events import rule_event_text

AT = 1796500800


def _reminder(deadline: object) -> HostEvent:
    return HostEvent(
        match_id=7,
        kind=REMINDER,
        data={"player": 1, "left": 3600},
        seat=1,
        names={1: "alice", 2: "bob"},
        detail={"left_text": "1 hour", "deadline": deadline},
    )


def test_an_old_reminder_reads_as_a_new_one() -> None:
    new = rule_event_text(_reminder(AT), REMINDER)
    old = rule_event_text(_reminder(f"<t:{AT}:R>"), REMINDER)
    assert new is not None and old is not None
    assert plain(old) == plain(new)
    assert "2026-12-05 20:00 UTC" in plain(new) and "<t:" not in plain(old)
    assert markdown(old) == markdown(new) and f"<t:{AT}:R>" in markdown(new)
