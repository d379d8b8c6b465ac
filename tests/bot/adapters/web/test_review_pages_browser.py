"""The review pages' second pass (issue 49) in a real browser: Debian's headless `chromium` driven by Selenium
through `chromium-driver`, one browser and one `dmhost web` for the module.

The data is made with the command lines as an operator would: a 3×3 Boxes match between mira and tomas
(analysed when it ends), a correspondence match still in play, a rated round robin and an elimination
of ines, kofi, ada and lin played out by practice bots. The addresses come from `--url` without `--base`:
`dmhost web` started first, and the address it printed is the one they use.

`DMHOST_WRITE_SCREENS=1` also saves the README's screenshots under docs/screens/.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests import DATA, ROOT
from tests.bot.adapters.web.browser import chromium, web

pytestmark = pytest.mark.slow

GAME = json.loads((DATA / "analysis" / "boxes-3x3-blunder.json").read_text(encoding="utf-8"))
PLAYERS = ("ines", "kofi", "ada", "lin")
"""The tournaments' entrants (mira and tomas play the matches of the terminal room)."""
PYTHON_VALUES = re.compile(r"\b(None|True|False)\b")
LAPTOP, PHONE = (1024, 768), (390, 844)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("pages")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "cfg"), "PYTHONPATH": str(ROOT), "DMHOST_ANALYSIS": "true"}
    for key in ("DMHOST_WEB_SECRET", "DMHOST_WEB_URL"):
        env.pop(key, None)
    db = str(tmp / "m.db")

    def cli(*args: str, stdin: str = "", **extra: str) -> str:
        res = subprocess.run(
            [sys.executable, "-m", "bot.ops.cli", *args, "--db", db],
            input=stdin,
            capture_output=True,
            text=True,
            env={**env, **extra},
            timeout=300,
        )
        assert res.returncode == 0, res.stderr
        return res.stdout

    players = ["--player", "mira", "--player", "tomas"]
    opts = [f"{k}={v}" for k, v in GAME["options"].items()]
    cli("room", "boxes", *players, "--opt", *opts, "--rule", "takeback=0", stdin="\n".join(GAME["moves"]))
    corr = ["--clock", "kind=correspondence", "move=2d", "bank=5d"]
    cli("room", "boxes", *players, "--opt", "rows=2", "cols=2", *corr, stdin="A1-B1\nB1-C1\n", DMHOST_ANALYSIS="false")
    quick = {"DMHOST_ANALYSIS": "false"}
    for name, fmt in (("Winter Cup", "roundrobin"), ("Spring Knockout", "elimination")):
        tid = cli(
            "tournament",
            "create",
            name,
            "--game",
            "boxes",
            "--format",
            fmt,
            "--opt",
            "rows=2",
            "cols=2",
            "--rated",
            "--prize",
            "a mug",
            **quick,
        ).strip()
        cli("tournament", "join", tid, *PLAYERS, **quick)
        cli("tournament", "start", tid, **quick)
        cli("tournament", "play", tid, "--bot", "random", **quick)
    with web(db, env) as base:
        urls = {
            "match": cli("log", "1", "--url").strip(),
            "corr": cli("log", "2", "--url").strip(),
            "roundrobin": cli("tournament", "status", "1", "--url", **quick).strip(),
            "elimination": cli("tournament", "status", "2", "--url", **quick).strip(),
            "server": cli("ratings", "--url").strip(),
        }
        with chromium(tmp, "--hide-scrollbars") as driver:
            yield {"driver": driver, "urls": urls, "base": base}


def _viewport(d: Any, size: tuple[int, int]) -> None:
    width, height = size
    d.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def _rect(d: Any, css: str) -> dict[str, float]:
    return dict(d.execute_script("return document.querySelector(arguments[0]).getBoundingClientRect().toJSON()", css))


def _painted_width(d: Any) -> float:
    """The width the board's picture is drawn at (the element keeps the picture's proportions inside it)."""
    return float(
        d.execute_script(
            "const b=document.getElementById('board'), r=b.getBoundingClientRect();"
            "return Math.min(r.width, r.height*b.naturalWidth/b.naturalHeight)"
        )
    )


def _no_sideways_scroll(d: Any) -> bool:
    return bool(d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"))


def _ply(d: Any) -> int:
    return int(d.find_element(By.ID, "ply").text)


def _current(d: Any) -> list[str]:
    return [el.get_attribute("data-ply") for el in d.find_elements(By.CSS_SELECTOR, '#chart [aria-current="true"]')]


def _screen(d: Any, name: str, size: tuple[int, int] | None = None) -> None:
    """With DMHOST_WRITE_SCREENS=1, the page as shown (or at `size`) saved as the README's docs/screens/NAME."""
    if os.environ.get("DMHOST_WRITE_SCREENS") != "1":
        return
    if size is not None:
        _viewport(d, size)
        d.refresh()
    d.execute_script("window.scrollTo(0, 0)")
    d.save_screenshot(str(ROOT / "docs" / "screens" / name))


def test_the_match_page_fits_a_laptop_and_a_phone(site: dict[str, Any]) -> None:
    d = site["driver"]
    _viewport(d, LAPTOP)
    d.get(site["urls"]["match"])
    board, moves = _rect(d, "#board"), _rect(d, "#moves")
    assert moves["left"] >= board["right"] - 1 and moves["top"] < board["bottom"]  # the list beside the board
    assert _painted_width(d) >= 480  # a large board, whole on the screen
    assert board["bottom"] <= LAPTOP[1]
    assert _no_sideways_scroll(d)
    _screen(d, "review-page.png", (1280, 900))
    _viewport(d, LAPTOP)
    # One row per move, no clock where nothing changed, the chart not repeated as chips.
    plies = len(GAME["moves"])
    assert len(d.find_elements(By.CSS_SELECTOR, "#moves li[data-ply]")) == plies + 1
    assert d.find_elements(By.CSS_SELECTOR, "#moves .c") == []  # piped moves use no reserve
    assert "5:00" not in d.find_element(By.ID, "moves").text
    assert d.find_elements(By.CSS_SELECTOR, "#analysis li, ol#analysis") == []
    accuracy = d.find_element(By.ID, "accuracy").text
    assert "mira:" in accuracy and "tomas:" in accuracy and "%" in accuracy
    _viewport(d, PHONE)
    d.get(site["urls"]["match"])
    assert _no_sideways_scroll(d)
    board, moves = _rect(d, "#board"), _rect(d, "#moves")
    assert moves["top"] >= board["bottom"] and board["width"] >= 340  # stacked, the board the page's width
    _screen(d, "review-page-phone.png")
    _viewport(d, LAPTOP)
    # In print: no buttons, the whole move list (nothing to scroll on paper).
    d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert not d.find_element(By.ID, "first").is_displayed()
        assert d.execute_script("const m=document.getElementById('moves'); return m.scrollHeight <= m.clientHeight + 1")
    finally:
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


def test_the_chart_marks_the_ply_shown_and_moves_with_keys_hover_and_clicks(site: dict[str, Any]) -> None:
    d = site["driver"]
    d.get(site["urls"]["match"])
    last = len(GAME["moves"])
    assert _ply(d) == last and _current(d) == [str(last)]
    body = d.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_LEFT)
    WebDriverWait(d, 10).until(lambda drv: _ply(drv) == last - 1)
    assert _current(d) == [str(last - 1)]
    body.send_keys(Keys.ARROW_LEFT)
    WebDriverWait(d, 10).until(lambda drv: _current(drv) == [str(last - 2)])
    body.send_keys(Keys.HOME)
    WebDriverWait(d, 10).until(lambda drv: _ply(drv) == 0)
    assert _current(d) == []  # the start has no point
    point = d.find_element(By.CSS_SELECTOR, '#chart circle[data-ply="8"]')
    ActionChains(d).move_to_element(point).perform()
    WebDriverWait(d, 10).until(lambda drv: drv.find_element(By.ID, "tip").text.startswith("8. "))
    assert "blunder" in d.find_element(By.ID, "tip").text  # the pinned blunder of the stored game
    point.click()
    WebDriverWait(d, 10).until(lambda drv: _ply(drv) == 8 and _current(drv) == ["8"])
    # Axes: the win chance up the side, the plies along the bottom.
    labels = [t.text for t in d.find_elements(By.CSS_SELECTOR, "#chart text")]
    assert {"0%", "50%", "100%"} <= set(labels) and "0" in labels
    caption = d.find_element(By.CSS_SELECTOR, ".chartbox figcaption").text
    assert "mira's chance to win" in caption and "solver" in caption and "seat 1" not in caption


def test_info_says_words_not_values(site: dict[str, Any]) -> None:
    d = site["driver"]
    said = {}
    for key in ("match", "corr"):
        d.get(site["urls"][key])
        info = d.find_element(By.ID, "info").text
        assert not PYTHON_VALUES.search(info), info
        for label in ("Game", "Players", "Options", "Clock", "House rules"):
            assert label in info
        said[key] = info
    assert "3×3 boxes" in said["match"] and "1:00 a move" in said["match"]
    assert "2 days a move" in said["corr"] and "a bank of up to 5 days" in said["corr"]  # not "2880:00 a move"


def test_the_tournament_pages(site: dict[str, Any]) -> None:
    d = site["driver"]
    d.get(site["urls"]["roundrobin"])
    table = d.find_element(By.CSS_SELECTOR, "table#standings")
    assert len(table.find_elements(By.CSS_SELECTOR, "tbody tr")) == len(PLAYERS)
    titled = {th.text: th.get_attribute("title") for th in table.find_elements(By.CSS_SELECTOR, "th[title]")}
    assert {"Bh", "SB", "H2H"} <= set(titled) and all(len(t or "") > 20 for t in titled.values())
    result = d.find_element(By.ID, "result").text
    assert result.startswith("Winner: ") and "a mug" in result
    cross = d.find_element(By.CSS_SELECTOR, "table#crosstable")
    assert len(cross.find_elements(By.CSS_SELECTOR, "tbody tr")) == len(PLAYERS)
    links = [a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "a[href*='/match/']")]
    assert len(set(links)) == 6  # every game of a 4-player round robin, each linking its page
    for href in set(links):
        with urllib.request.urlopen(href, timeout=30) as res:
            assert res.status == 200
    _viewport(d, PHONE)
    d.get(site["urls"]["roundrobin"])
    assert _no_sideways_scroll(d)
    _viewport(d, LAPTOP)
    d.get(site["urls"]["roundrobin"])
    _screen(d, "tournament-page.png")
    d.get(site["urls"]["elimination"])
    assert d.find_elements(By.CSS_SELECTOR, "table#standings th[title]")
    bracket = d.find_element(By.ID, "bracket")
    assert bracket.tag_name in ("img", "svg")
    assert d.execute_script("return arguments[0].naturalWidth", bracket) > 200
    assert d.find_element(By.ID, "result").text.startswith("Winner: ")
    assert d.find_elements(By.ID, "crosstable") == []


def test_the_server_page(site: dict[str, Any]) -> None:
    d = site["driver"]
    d.get(site["urls"]["server"])
    assert d.title != "Server" and d.find_element(By.TAG_NAME, "h1").text == "Terminal rooms"
    board = d.find_element(By.CSS_SELECTOR, "#leaderboard table")
    heads = [th.text for th in board.find_elements(By.TAG_NAME, "th")]
    assert "Rating" in heads and "Deviation" in heads
    rows = board.find_elements(By.CSS_SELECTOR, "tbody tr")
    shown = [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows]
    assert sorted(shown) == sorted({*PLAYERS, "mira", "tomas"})
    assert all(r.find_elements(By.TAG_NAME, "td")[3].text.startswith("±") for r in rows)
    assert d.find_elements(By.CSS_SELECTOR, "#leaderboard .prov")  # a few games each: provisional, marked
    _viewport(d, PHONE)
    d.get(site["urls"]["server"])
    assert _no_sideways_scroll(d)
    _viewport(d, LAPTOP)
    d.get(site["urls"]["server"])
    _screen(d, "server-page.png")


def test_url_addresses_load_and_a_wrong_token_is_a_404(site: dict[str, Any]) -> None:
    base = site["base"]
    for url in site["urls"].values():
        assert url.startswith(base + "/")  # `dmhost web`'s own address, not an assumed port
        with urllib.request.urlopen(url, timeout=30) as res:
            assert res.status == 200
        token = url.rsplit("/", 1)[1]
        wrong = url[: -len(token)] + ("A" if token[0] != "A" else "B") + token[1:]
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(wrong, timeout=30)
        assert err.value.code == 404
    with urllib.request.urlopen(base + "/", timeout=30) as res:
        landing = res.read().decode()
        assert res.status == 200
    assert not any(re.search(rf"\b{name}\b", landing) for name in (*PLAYERS, "mira", "tomas"))
    assert "Winter Cup" not in landing
    d = site["driver"]
    _viewport(d, PHONE)
    d.get(base + "/")
    assert _no_sideways_scroll(d)
    _viewport(d, LAPTOP)
