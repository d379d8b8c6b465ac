"""Match review pages in a real browser: Debian's headless `chromium` driven by Selenium through
`chromium-driver`. One browser for the whole module; the match is a 2×2 Boxes game with a pinned blunder
played in the terminal room by a player whose name is HTML.
(The README's screenshots are taken from a plausible match: `tests/bot/adapters/web/test_review_pages_browser.py`.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests import DATA, ROOT
from tests.bot.adapters.web.browser import chromium, web

CASE = json.loads((DATA / "pages" / "boxes_blunder.json").read_text(encoding="utf-8"))


def _cli(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", *args], input=stdin, capture_output=True, text=True, env=env, timeout=120
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("review")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "cfg"), "PYTHONPATH": str(ROOT), "DMHOST_ANALYSIS": "true"}
    env.pop("DMHOST_WEB_SECRET", None)
    db = str(tmp / "m.db")
    players = [a for name in CASE["players"] for a in ("--player", name)]
    room = _cli(env, "room", "boxes", *players, "--db", db, "--opt", *CASE["options"], stdin="\n".join(CASE["moves"]))
    assert room.returncode == 0, room.stderr
    page = tmp / "match.html"
    wrote = _cli(env, "log", "1", "--db", db, "--html", str(page))
    assert wrote.returncode == 0 and page.exists(), wrote.stderr
    with web(db, env) as base:
        url = _cli(env, "log", "1", "--db", db, "--url", "--base", base).stdout.strip()
        with chromium(tmp, "--window-size=1400,1000") as driver:
            yield {"driver": driver, "file": page, "url": url, "base": base}


def _ply(driver: Any) -> int:
    return int(driver.find_element(By.ID, "ply").text)


def _board(driver: Any) -> str:
    return str(driver.find_element(By.ID, "board").get_attribute("src"))


def _wait_board(driver: Any, ply: int) -> None:
    WebDriverWait(driver, 10).until(
        lambda d: d.find_element(By.ID, "board").get_attribute("data-ply") == str(ply) and _ply(d) == ply
    )


def test_the_served_page_steps_with_keys_and_clicks_and_shows_the_analysis(site: dict[str, Any]) -> None:
    d = site["driver"]
    d.get(site["url"])
    last = len(CASE["moves"])
    assert _ply(d) == last  # the page opens on the last ply
    assert CASE["result"] in d.find_element(By.ID, "result").text
    seen = {_board(d)}
    body = d.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_LEFT)
    _wait_board(d, last - 1)
    seen.add(_board(d))
    body.send_keys(Keys.HOME)
    _wait_board(d, 0)
    seen.add(_board(d))
    body.send_keys(Keys.ARROW_RIGHT)
    _wait_board(d, 1)
    seen.add(_board(d))
    d.find_element(By.CSS_SELECTOR, '#moves [data-ply="5"]').click()
    _wait_board(d, 5)
    seen.add(_board(d))
    body.send_keys(Keys.END)
    _wait_board(d, last)
    assert len(seen) == 5  # every ply shown had its own board
    # The analysis: a mark per analysed ply, the pinned blunder, and a chart whose points go to their ply.
    marks = {
        el.get_attribute("data-ply"): el.get_attribute("data-verdict")
        for el in d.find_elements(By.CSS_SELECTOR, "#analysis [data-ply]")
    }
    assert marks == CASE["verdicts"]
    blunder = CASE["blunder"]
    assert marks[str(blunder["ply"])] == blunder["verdict"]
    points = d.find_elements(By.CSS_SELECTOR, "#chart circle[data-ply]")
    assert len(points) == last
    d.find_element(By.CSS_SELECTOR, f'#chart circle[data-ply="{blunder["ply"]}"]').click()
    _wait_board(d, blunder["ply"])
    # The hostile name is text, and no script it carried ran.
    hostile = CASE["players"][0]
    assert hostile in d.find_element(By.TAG_NAME, "dl").text
    assert d.find_elements(By.CSS_SELECTOR, "img[src='x']") == []
    body.send_keys(Keys.END)
    _wait_board(d, last)
    d.execute_script("window.scrollTo(0, 0)")
    shot = site["file"].with_name("review-page.png")
    d.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_offline_file_makes_no_request(site: dict[str, Any]) -> None:
    d = site["driver"]
    d.get(site["file"].as_uri())
    assert _ply(d) == len(CASE["moves"])
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
    _wait_board(d, 0)
    assert d.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert d.find_elements(By.CSS_SELECTOR, "[src^='http'], link[href], script[src]") == []


def test_the_token_is_required(site: dict[str, Any]) -> None:
    good = site["url"]
    base = site["base"]
    with urllib.request.urlopen(good, timeout=20) as res:
        assert res.status == 200
    for bad in (
        good[:-1] + ("A" if good[-1] != "A" else "B"),
        f"{base}/match/1",
        f"{base}/match/1/",
        good.replace("/1/", "/2/"),
    ):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(bad, timeout=20)
        assert err.value.code == 404
    d = site["driver"]
    d.get(f"{base}/match/1/not-the-token")
    assert d.find_elements(By.ID, "board") == []
