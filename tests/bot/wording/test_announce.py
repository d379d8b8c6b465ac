"""The sentences after "X played M." (`bot/wording/__init__.py`), from the events the real engines emit."""

from __future__ import annotations

from typing import Any

from bot.adapters.discord.render import markdown
from bot.wording import board_text, describe, reason_text
from games import registry
from games.base import play_text

NAMES = {1: "Ann", 2: "Ben"}


def name(seat: int | None) -> str:
    return NAMES[seat] if seat in NAMES else "nobody"


def events_of_last(game: str, opts: dict[str, Any], moves: list[str]) -> list[Any]:
    ruleset = registry.get(game)
    state = ruleset.new_game(ruleset.parse_options(opts))
    events: list[Any] = []
    for text in moves:
        state, _move, events = play_text(ruleset, state, text)
    return events


def test_a_plain_move_needs_no_extra_sentence() -> None:
    assert describe(events_of_last("boxes", {"rows": 1, "cols": 2}, ["A1-B1"]), name) == ""
    assert describe(events_of_last("trax", {}, ["@0+"]), name) == ""


def test_taking_boxes_names_the_player_the_count_and_the_extra_move() -> None:
    one = describe(events_of_last("boxes", {"rows": 1, "cols": 2}, ["A1-B1", "A2-B2", "A1-A2", "B1-B2"]), name)
    assert one.startswith(" ") and one.endswith(".")
    assert "Ben" in one and "1 box " in one
    assert one.count("moves again") == 1  # the extra turn is said once, not twice
    both = ["A1-B1", "B1-C1", "A2-B2", "B2-C2", "A1-A2", "C1-C2", "B1-B2"]
    two = describe(events_of_last("boxes", {"rows": 1, "cols": 2}, both), name)
    assert "Ann" in two and "2 boxes" in two and "moves again" not in two  # the last boxes end the game


def test_a_pathing_round_end_says_who_picks_and_who_starts_the_next_round() -> None:
    from tests.games.test_pathing import IN_ORDER

    text = describe(events_of_last("pathing", {}, IN_ORDER), name)
    assert "moves again" not in text  # the box that ends the round earns no extra move
    assert text == (
        " Ben takes 1 box; round 1 is over: Ben wins it 6–3 in boxes; Ann (red) must now pick an empty square"
        " to paint blue, like pick C3, then Ben starts round 2."
    )


def test_trax_forced_tiles_are_listed() -> None:
    text = describe(events_of_last("trax", {}, ["@0+", "B1+", "A0/"]), name)
    assert "forced" in text and "B1\\" in text


def test_players_are_named_never_numbered() -> None:
    texts = [
        describe(events_of_last("boxes", {"rows": 1, "cols": 2}, ["A1-B1", "A2-B2", "A1-A2", "B1-B2"]), name),
        describe(events_of_last("trax", {}, ["@0+", "B1+", "A0/"]), name),
    ]
    for text in texts:
        assert "seat" not in text.lower() and "nobody" not in text


def test_dots_captures_are_counted_and_a_stop_says_what_it_hands_over() -> None:
    from tests.bot.adapters.terminal.test_room_games import SETUPS, scripted_game

    ruleset = registry.get("dots")
    opts = SETUPS["dots"]["opts"]
    state = ruleset.new_game(ruleset.parse_options(opts))
    lines, _outcome = scripted_game("dots")
    captured = None
    for line in lines:
        state, _move, events = play_text(ruleset, state, line.split(": ", 1)[1])
        if any(e.kind == "capture" for e in events):
            captured = describe(events, name)
            break
    assert captured is not None, "the scripted game has a capture"
    (capture,) = [e for e in events if e.kind == "capture"][:1]
    taken = capture.data["taken"]
    assert f"captures {taken} dot" in captured and "capture." not in captured
    _after, _move, stop_events = play_text(ruleset, state, "stop")
    stop = describe(stop_events, name)
    assert "stops and hands" in stop and ("ungrounded" in stop or "nothing" in stop)
    assert "seat" not in (captured + stop).lower()


def test_engine_text_about_seats_is_said_with_names() -> None:
    from bot.wording import named

    assert named("boxes: seat 1 0, seat 2 3; Seat 2 to move", name) == "boxes: Ann 0, Ben 3; Ben to move"
    assert named("a seat 12 is not a seat", name) == "a seat 12 is not a seat"


async def test_the_room_board_and_an_engine_refusal_name_the_players(tmp_path: Any) -> None:
    """Every game's text board says names, and an engine reason that speaks of seats is reworded."""
    from bot.host.service import MatchService, PlayerRef
    from bot.store.db import sqlite_url_for
    from bot.store.matches import MatchStore

    service = MatchService(MatchStore(sqlite_url_for(tmp_path / "t.db")), heartbeat_seconds=3600)
    await service.start()
    try:
        players = [PlayerRef("a", "Ann"), PlayerRef("b", "Ben")]
        for game in registry.ids():
            mid = await service.create_match(game, players)
            assert "seat" not in markdown(board_text(service.get(mid), service.now())).lower(), game
        dotdash = await service.create_match("dotdash", players)
        refused = await service.submit(dotdash, "a", "take red")
        assert refused.status == "rejected" and reason_text(refused)
        assert "seat" not in reason_text(refused).lower() and "Ann" in reason_text(refused)
    finally:
        await service.close()
        await service.store.close()
