"""The web face, hardened: headers on every answer (aiohttp's own 404 and 405 included), the page's scripts
allowed by hash only, 404 for every token or id that is not ours, one log line per refused request, the probes,
and the server page built once for many readers."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import re

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot import metrics
from bot.adapters.web.server import ServerPages, make_app, page_csp, parse_id
from bot.adapters.web.views import Views
from bot.compose import build_readers
from bot.host.service import MatchService, PlayerRef
from bot.records.pagetoken import sign, valid
from tests import DATA
from tests.bot.conftest import Recorder

SECRET = b"test-secret"
CASE = json.loads((DATA / "pages" / "boxes_blunder.json").read_text(encoding="utf-8"))


async def _played(service: MatchService) -> int:
    a, b = PlayerRef("p-a", "alice"), PlayerRef("p-b", "bob")
    mid = await service.create_match("boxes", [a, b], options={"rows": 2, "cols": 2}, guild_id=7)
    live = service.get(mid)
    for text in CASE["moves"][:4]:
        seat = live.ruleset.to_move(live.state)
        assert (await service.submit(mid, live.players[seat].id, text)).status == "accepted"
    return mid


def _secure(headers: object) -> None:
    h = dict(headers)  # type: ignore[call-overload]
    assert "Server" not in h
    assert h["X-Content-Type-Options"] == "nosniff"
    csp = h["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "unsafe-inline'" not in csp.split("script-src")[-1].split(";")[0]
    assert "'unsafe-inline'" not in csp or "script-src 'unsafe-inline'" not in csp


async def test_every_answer_carries_the_headers_and_bad_ids_and_tokens_are_404(
    host: tuple[MatchService, Recorder], caplog: pytest.LogCaptureFixture
) -> None:
    service, _rec = host
    mid = await _played(service)
    before = metrics.sample("dmhost_moves_total", {"game": "boxes"})
    assert before is not None and before >= 4
    async with TestClient(TestServer(make_app(Views(build_readers(service.store), SECRET)))) as client:
        good = f"/match/{mid}/{sign(SECRET, 'match', mid)}"
        res = await client.get(good)
        page = await res.text()
        assert res.status == 200
        _secure(res.headers)
        csp = res.headers["Content-Security-Policy"]
        assert "'unsafe-inline'" not in csp.split("script-src", 1)[1]
        scripts = [
            s
            for attrs, s in re.findall(r"<script([^>]*)>(.*?)</script>", page, re.DOTALL)
            if "application/json" not in attrs
        ]
        assert scripts, "the match page runs a script"
        for body in scripts:
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in csp

        caplog.clear()
        caplog.set_level(logging.INFO, logger="dmhost.web")
        token = sign(SECRET, "match", mid)
        refused = [
            ("GET", "/nothing/here"),  # aiohttp's own 404
            ("POST", good),  # aiohttp's own 405
            ("GET", f"/match/{mid}/{token[:-1]}é"),  # a non-ASCII token
            ("GET", f"/match/{2**63}/{sign(SECRET, 'match', 2**63)}"),  # beyond a signed 64-bit id
            ("GET", f"/match/{2**64 + mid}/{token}"),
            ("GET", f"/match/+{mid}/{token}"),
            ("GET", f"/match/١٢/{token}"),  # digits, but not ASCII ones
            ("GET", f"/server/99999999999999999999999/{token}"),
            ("GET", f"/tournament/1/{token}"),
        ]
        for method, path in refused:
            res = await client.request(method, path)
            assert res.status in (404, 405), (path, res.status)
            _secure(res.headers)
        lines = [r for r in caplog.records if r.name == "dmhost.web"]
        assert len(lines) == len(refused)
        assert all(r.exc_info is None and "\n" not in r.getMessage() for r in lines)
        assert all(r.levelno == logging.INFO and "refused" in r.getMessage() for r in lines)


def test_tokens_and_ids_that_are_not_ours_are_simply_not_valid() -> None:
    assert not valid(SECRET, "match", 1, "ïïïïïïïïïïïïïïïïïïïïïï")
    assert not valid(SECRET, "match", 1, "")
    assert valid(SECRET, "match", 1, sign(SECRET, "match", 1))
    assert parse_id(str(2**63 - 1)) == 2**63 - 1
    for text in (str(2**63), "-1", "+1", "1_0", " 1", "١", "", "1" * 40):
        assert parse_id(text) is None


def test_the_policy_allows_exactly_the_page_s_scripts() -> None:
    html = '<script type="application/json" id="d">{"a":1}</script><script>go()</script><script>go()</script>'
    digest = base64.b64encode(hashlib.sha256(b"go()").digest()).decode()
    assert page_csp(html).endswith(f"script-src 'sha256-{digest}'")
    assert "script-src" not in page_csp("<p>no script</p>")


async def test_the_probes_answer_for_this_process(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    await _played(service)
    async with TestClient(TestServer(make_app(Views(build_readers(service.store), SECRET)))) as client:
        res = await client.get("/healthz")
        assert res.status == 200
        assert (await res.json()) == {"loop": "ok", "database": "ok", "leases": "standby", "ok": True}
        _secure(res.headers)
        assert (await client.get("/readyz")).status == 200
        res = await client.get("/metrics")
        text = await res.text()
        assert res.status == 200 and res.headers["Content-Type"].startswith("text/plain")
        assert re.search(r'^dmhost_moves_total\{game="boxes"\} [1-9]', text, re.MULTILINE)
        assert "dmhost_move_seconds_bucket" in text and "dmhost_db_errors_total" in text


async def test_the_server_page_is_built_once_for_many_readers() -> None:
    now = [0.0]
    builds: list[int] = []
    gate = asyncio.Event()

    async def build(guild: int) -> str:
        builds.append(guild)
        await gate.wait()
        return f"page {len(builds)}"

    pages = ServerPages(build, fresh=5.0, clock=lambda: now[0])
    readers = [asyncio.ensure_future(pages.get(1)) for _ in range(50)]
    await asyncio.sleep(0)
    gate.set()
    assert set(await asyncio.gather(*readers)) == {"page 1"} and builds == [1]
    now[0] = 4.0
    assert await pages.get(1) == "page 1" and builds == [1]  # still fresh
    now[0] = 6.0
    assert await pages.get(1) == "page 1"  # stale: answered at once, a new one on its way
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert builds == [1, 1] and await pages.get(1) == "page 2"


async def test_a_request_aiohttp_cannot_parse_is_one_line_without_traceback(
    host: tuple[MatchService, Recorder], caplog: pytest.LogCaptureFixture
) -> None:
    service, _rec = host
    caplog.set_level(logging.DEBUG, logger="aiohttp.server")
    malformed = [
        b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
        b"GET /match/1/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/9.9\r\n\r\n",
        b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\n\r\n",
        b"POST /match/1/x HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        b"GET /match/1/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n",
    ]
    async with TestServer(make_app(Views(build_readers(service.store), SECRET))) as server:
        for raw in malformed:
            reader, writer = await asyncio.open_connection(server.host, server.port)
            writer.write(raw)
            await writer.drain()
            assert (await reader.readline()).startswith(b"HTTP/1.0 400")
            writer.close()
            await writer.wait_closed()
    lines = [r for r in caplog.records if r.name == "aiohttp.server"]
    assert len(lines) == len(malformed)
    assert all(r.levelno == logging.INFO and r.exc_info is None for r in lines)
    assert all(r.getMessage().startswith("refused a malformed request from ") for r in lines)


async def test_the_server_page_lists_live_matches_read_in_one_go(host: tuple[MatchService, Recorder]) -> None:
    service, _rec = host
    ids = [
        await service.create_match(
            "boxes", [PlayerRef(f"a{i}", f"ann{i}"), PlayerRef(f"b{i}", f"ben{i}")], options={"rows": 2}, guild_id=9
        )
        for i in range(3)
    ]
    listed = await service.store.listed(list(reversed(ids)))
    assert [m.id for m in listed] == ids and all(m.snapshot == {} for m in listed)
    assert listed[1].players == {1: ("a1", "ann1"), 2: ("b1", "ben1")}
    async with TestClient(TestServer(make_app(Views(build_readers(service.store), SECRET)))) as client:
        res = await client.get(f"/server/9/{sign(SECRET, 'server', 9)}")
        text = await res.text()
    assert res.status == 200
    for i, mid in enumerate(ids):
        assert f"#{mid} " in text and f"ann{i} vs ben{i}" in text
