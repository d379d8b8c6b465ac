"""Match review pages without a browser: the contract's hooks in the HTML, escaping, signed addresses,
private rooms and server isolation on the served lists, and the command line's bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.adapters.web.server import make_app
from bot.adapters.web.views import Views
from bot.compose import build_readers
from bot.host.service import MatchService, PlayerRef
from bot.records.analysis import analyse_match
from bot.records.analysis_store import load_analysis, save_analysis
from bot.records.analysis_worker import AnalysisWorker
from bot.records.page import build_match_page, with_verdicts
from bot.records.pagetoken import page_url, sign, valid
from bot.store.guilds import GuildSettingsStore
from tests import DATA, dmhost
from tests.bot.conftest import Recorder
from tests.buses import following

CASE = json.loads((DATA / "pages" / "boxes_blunder.json").read_text(encoding="utf-8"))
HOSTILE = CASE["players"][0]
SECRET = b"test-secret"


async def _play(
    service: MatchService, guild: int | None, names: tuple[str, str], moves: list[str], **create: Any
) -> int:
    a, b = PlayerRef(f"p-{names[0]}-{guild}", names[0]), PlayerRef(f"p-{names[1]}-{guild}", names[1])
    mid = await service.create_match("boxes", [a, b], options={"rows": 2, "cols": 2}, guild_id=guild, **create)
    live = service.get(mid)
    for text in moves:
        seat = live.ruleset.to_move(live.state)
        assert (await service.submit(mid, live.players[seat].id, text)).status == "accepted"
    return mid


async def test_the_page_has_the_hooks_and_escapes_what_players_typed(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await _play(service, None, (HOSTILE, "bob"), CASE["moves"][:5])
    live = service.get(mid)
    seat = live.ruleset.to_move(live.state)
    await service.submit(mid, live.players[seat].id, "A1-B1")  # drawn already: an illegal try, logged
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    page = build_match_page(stored)
    assert HOSTILE not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert 'id="result"' in page and 'id="board"' in page and 'id="ply">5<' in page
    assert [int(p) for p in re.findall(r'<li data-ply="(\d+)"', page)] == list(range(6))
    tail = page[page.index('<li data-ply="5"') :]
    assert "illegal" in tail[: tail.index("</ol>")]  # the illegal try is in the move list, after ply 5
    assert 'id="analysis"' not in page  # no analysis of a match still being played


def test_the_marks_are_the_stored_verdicts() -> None:
    entries = [
        {"ply": 1, "seat": 1, "move": "A1-B1", "analysed": True, "value": 2, "verdict": "best", "value_p1": 2},
        {"ply": 2, "seat": 2, "move": "B1-C1", "analysed": True, "value": -4, "verdict": "mistake"},  # older row
        {"ply": 3, "seat": 1, "move": "A2-B2", "analysed": True, "value": -1, "loss": 4},  # no verdict: no mark
        {"ply": 4, "seat": 2, "move": "B2-C2", "analysed": False, "engine": "exact solver", "verdict": None},
        {"ply": 5, "seat": 1, "move": "x", "verdict": "good", "value_p1": 0.5, "engine": "hard, 20k nodes"},
    ]
    got = [(e["ply"], e["verdict"], e["value_p1"], e["engine"]) for e in with_verdicts(entries)]
    assert got == [(1, "best", 2, ""), (2, "mistake", 4, ""), (5, "good", 0.5, "hard, 20k nodes")]


async def test_the_page_shows_the_stored_analysis_or_says_it_is_pending(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await _play(service, None, ("ann", "ben"), CASE["moves"])
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None and stored.status == "finished"
    views = Views(build_readers(service.store), SECRET)
    pending = await views.match(mid)  # nothing stored yet: said so, nothing computed while the request waits
    assert pending is not None and 'id="analysis-pending"' in pending and 'id="analysis"' not in pending
    assert await load_analysis(service.store, mid) is None
    assert 'id="analysis-pending"' in build_match_page(stored)
    entries = analyse_match(stored)
    await save_analysis(service.store, mid, entries)
    page = await views.match(mid)  # the cached pending page gives way to the stored analysis
    assert page is not None and 'id="analysis-pending"' not in page
    marks = dict(re.findall(r'<circle [^>]*data-ply="(\d+)" data-verdict="(\w+)"', page))
    assert marks == CASE["verdicts"]
    assert await views.match(mid) is page  # then answered from memory
    # A stored row is what the page shows, whatever it says: nothing is recomputed.
    doctored = [{**entries[0], "verdict": "blunder"}]
    assert re.findall(r'data-verdict="(\w+)"', build_match_page(stored, (), doctored)) == ["blunder"]


async def test_the_web_face_queues_a_missing_analysis(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    mid = await _play(service, None, ("ann", "ben"), CASE["moves"])
    worker = AnalysisWorker(service.store)
    views = Views(build_readers(service.store), SECRET, analysis=worker)
    try:
        page = await views.match(mid)
        assert page is not None and 'id="analysis-pending"' in page
        assert worker.pending == {mid}
        await worker.drain()
        assert await load_analysis(service.store, mid) is not None
        page = await views.match(mid)
        assert page is not None and 'data-verdict="blunder"' in page
    finally:
        await worker.close()


def test_tokens_are_signed_per_page_and_secret() -> None:
    token = sign(SECRET, "match", 7)
    assert len(token) == 22 and valid(SECRET, "match", 7, token)
    assert not valid(SECRET, "match", 8, token)
    assert not valid(SECRET, "server", 7, token)
    assert not valid(b"another secret", "match", 7, token)
    assert page_url("http://h:1/", SECRET, "match", 7) == f"http://h:1/match/7/{token}"


async def test_served_lists_keep_to_their_server_and_leave_private_rooms_out(
    host: tuple[MatchService, Recorder],
) -> None:
    service, _rec = host
    moves = CASE["moves"]
    public = await _play(service, 111, ("alice", "bob"), moves)
    other = await _play(service, 222, ("carol", "dave"), moves)
    hidden = await _play(service, 333, ("erin", "frank"), moves)
    await GuildSettingsStore(service.store.engine).update(333, room_mode="private")
    views = Views(build_readers(service.store), SECRET)
    async with TestClient(TestServer(make_app(views))) as client:

        async def get(kind: str, ident: int, token: str | None = None) -> tuple[int, str]:
            res = await client.get(f"/{kind}/{ident}/{token or sign(SECRET, kind, ident)}")
            return res.status, await res.text()

        status, text = await get("server", 111)
        assert status == 200 and "alice" in text and "carol" not in text and "erin" not in text
        assert f"/match/{public}/{sign(SECRET, 'match', public)}" in text
        status, text = await get("server", 222)
        assert status == 200 and "carol" in text and "alice" not in text
        status, text = await get("server", 333)
        assert status == 200 and "erin" not in text and f"/match/{hidden}/" not in text
        # The private match's own page still opens for whoever holds its signed address.
        assert (await get("match", hidden))[0] == 200
        for kind, ident, token in (
            ("match", other, sign(SECRET, "match", public)),
            ("match", other, "x"),
            ("server", 111, sign(SECRET, "server", 222)),
            ("match", 999, None),
            ("tournament", 5, "nope"),
        ):
            assert (await get(kind, ident, token))[0] == 404
        assert (await client.get("/match/1")).status == 404


async def test_a_private_room_s_match_is_on_no_list_whatever_the_server_says_later(
    host: tuple[MatchService, Recorder],
) -> None:
    service, _rec = host
    moves = CASE["moves"]
    rooms = {7: True, 8: False}
    service.room_privacy = lambda room: rooms.get(room or 0)  # what a face knows of its rooms: stored with each match
    private = await _play(service, 444, ("gina", "hank"), moves, channel_id=7)
    public = await _play(service, 444, ("ivan", "judy"), moves, channel_id=8)
    private_live = await _play(service, 444, ("kate", "liam"), moves[:2], private=True)  # still being played
    public_live = await _play(service, 444, ("mona", "ned"), moves[:2], private=False)
    elsewhere = await _play(service, 555, ("olga", "pete"), moves, private=False)
    created = {}
    for mid in (private, public, private_live, public_live, elsewhere):
        stored = await service.store.load(mid, with_events=True)
        assert stored is not None
        created[mid] = stored.events[0].data.get("private")
    assert created == {private: True, public: False, private_live: True, public_live: False, elsewhere: False}
    settings = GuildSettingsStore(service.store.engine)
    views = Views(build_readers(service.store), SECRET)
    for mode in ("public", "private", "channel"):  # the server's room mode changes after the matches began
        await settings.update(444, room_mode=mode)
        text = await views.server(444)
        assert "ivan" in text and "mona" in text, mode
        assert f"/match/{public}/" in text and f"/match/{public_live}/" in text
        for name, mid in (("gina", private), ("kate", private_live), ("olga", elsewhere)):
            assert name not in text and f"/match/{mid}/" not in text, (mode, name)
    text = await views.server(555)
    assert "olga" in text and "ivan" not in text and "gina" not in text
    assert await views.match(private) is not None  # its own signed page still opens


@pytest.mark.parametrize(
    "args",
    [
        ["log", "42", "--html", "{tmp}/x.html", "--db", "{tmp}/m.db"],
        ["log", "42", "--url", "--db", "{tmp}/m.db"],
        ["web", "--port", "0", "--db", "{tmp}/m.db"],
        ["web", "--port", "http", "--db", "{tmp}/m.db"],
    ],
)
@pytest.mark.slow  # a `dmhost` process per case
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str]) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    assert dmhost("db", "upgrade", "--db", str(tmp_path / "m.db"), env=env, timeout=120).returncode == 0
    res = dmhost(*[a.replace("{tmp}", str(tmp_path)) for a in args], env=env, timeout=120)
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("private", [False, True], ids=["public-rooms", "private-rooms"])
async def test_the_tournament_page_and_a_tournament_match_page_say_where_it_stands(
    migrated_db_url: str, private: bool
) -> None:
    from bot.tournaments.core import TournamentCore
    from bot.tournaments.rounds import Game
    from bot.tournaments.service import TournamentService
    from tests.bot.conftest import make_service

    host = await make_service(migrated_db_url)
    host.room_privacy = lambda _room: private  # the tournament's games open in private rooms, or public ones
    service = TournamentService(TournamentCore(host))
    service.hear = following(host)
    await service.start()
    try:
        tid = await service.create("Spring <Cup>", "boxes", "elimination", options={"rows": 2, "cols": 2})
        for p in ("p1", "p2", "p3", "p4"):
            await service.join(tid, p, p.upper())
        await service.start_tournament(tid, by="host")
        entries = {e.id: e for e in await service.entries(tid)}
        games = [g for g in await service.games(tid) if isinstance(g.pairing, Game)]
        first = games[0]
        assert isinstance(first.pairing, Game) and first.match_id is not None
        await host.resign(first.match_id, entries[first.pairing.black].player_id)
        views = Views(build_readers(host.store), SECRET)
        async with TestClient(TestServer(make_app(views))) as client:
            res = await client.get(f"/tournament/{tid}/{sign(SECRET, 'tournament', tid)}")
            text = await res.text()
            assert res.status == 200 and "Spring &lt;Cup&gt;" in text and "Standings" in text
            assert "Semi-final" in text and "P1" in text and 'id="bracket"' in text and 'id="standings"' in text
            link = f"/match/{first.match_id}/{sign(SECRET, 'match', first.match_id)}"
            assert (link in text) != private  # a private room's match is linked from no list
            assert re.search(r'<td class="num">1</td><td>P\d</td><td>P\d</td>', text)  # the pairing, either way
            res = await client.get(f"/match/{first.match_id}/{sign(SECRET, 'match', first.match_id)}")
            page = await res.text()
            assert "Tournament Spring &lt;Cup&gt;, round 1, board 1" in page
            assert (await client.get(f"/tournament/{tid}/{sign(SECRET, 'tournament', tid + 1)}")).status == 404
    finally:
        await service.close()
        await host.close()
        await host.store.close()


@pytest.mark.parametrize("game", ["boxes", "pathing", "dots", "dotdash", "trax"])
async def test_every_game_gets_a_page_with_a_board_per_ply(host: tuple[MatchService, Recorder], game: str) -> None:
    import base64
    import random

    service, _rec = host
    mid = await service.create_match(game, [PlayerRef("a", "ann"), PlayerRef("b", "ben")])
    live = service.get(mid)
    rng = random.Random(7)
    played = 0
    for _ in range(12):
        seat = live.ruleset.to_move(live.state)
        if seat is None:
            break
        moves = live.ruleset.legal_moves(live.state)
        text = live.ruleset.format(live.state, rng.choice(moves))
        if (await service.submit(mid, live.players[seat].id, text)).status == "accepted":
            played += 1
    stored = await service.store.load(mid, with_events=True)
    assert stored is not None
    page = build_match_page(stored)
    plies = [int(p) for p in re.findall(r'<li data-ply="(\d+)"', page)]
    assert plies == list(range(len(plies))) and len(plies) >= 2
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert found is not None
    data = json.loads(found[1])
    frames = data["boards"]["frames"]
    assert len(frames) == len(plies) and "key" in frames[0]
    for f in frames:  # a key picture, or the tiles that changed as one PNG strip (none: nothing changed)
        png = f.get("key") or f.get("strip")
        assert base64.b64decode(png)[:4] == b"\x89PNG" if png else f["tiles"] == []
    assert f'id="ply">{len(plies) - 1}<' in page and "In progress" in page


async def test_host_restarts_are_said_in_info_not_in_the_move_list(migrated_db_url: str) -> None:
    from tests.bot.conftest import make_service

    first = await make_service(migrated_db_url)
    mid = await _play(first, None, ("ann", "ben"), CASE["moves"][:3])
    await first.close()
    await first.store.close()
    second = await make_service(migrated_db_url)
    try:
        stored = await second.store.load(mid, with_events=True)
        assert stored is not None
        seat = 2 if len(CASE["moves"][:3]) % 2 else 1
        player = stored.players[seat][0]
        assert (await second.submit(mid, player, CASE["moves"][3])).status == "accepted"
        stored = await second.store.load(mid, with_events=True)
        assert stored is not None and any(ev.kind == "resumed" for ev in stored.events)
        page = build_match_page(stored)
        moves = page[page.index('<ol id="moves">') : page.index("</ol>", page.index('<ol id="moves">'))]
        info = page[page.index('<dl id="info">') : page.index("</dl>")]
        assert "restarted" not in moves
        assert "<dt>Host restarts</dt><dd>1 (after ply 3)" in info
        assert not re.search(r"\b(None|True|False)\b", info)
    finally:
        await second.close()
        await second.store.close()


def test_option_and_clock_words_are_the_rule_cards_not_python() -> None:
    from bot.wording.review import option_words, page_clock_words

    assert option_words("pathing", {"ruleset": "dm5", "layout": "empty", "max_rounds": None}) == (
        "dm5 rules, starting board empty, no round limit"
    )
    assert option_words("dots", {"width": 8, "height": 8, "start": "cross", "seed": 0, "free_order": False}) == (
        "8×8 points, cross start, free order off"
    )
    assert option_words("dotdash", {"size": 13, "variant": "standard", "stones": 60}) == (
        "13×13 points, standard variant, 60 stones per colour"
    )
    assert option_words("boxes", {}) == "the game's defaults"
    corr = {"kind": "correspondence", "move": 2 * 86_400, "bank": 5 * 86_400, "remind": 0.8}
    assert page_clock_words(corr) == (
        "correspondence, 2 days a move, unused time saved in a bank of up to 5 days, "
        "a reminder once 80 % of a move's time is used"
    )
    assert page_clock_words({"kind": "move_reserve", "move": 60, "reserve": 300}) == "1:00 a move, then a 5:00 reserve"
