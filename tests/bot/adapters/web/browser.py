"""What the review pages' browser tests share: `dmhost web` serving a database on a free port, and Debian's
headless `chromium` driven by Selenium through `chromium-driver`."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from tests import DMHOST

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
"""Chromium's flags for a test: no window, no sandbox (containers), nothing fetched in the background."""


def free_port() -> int:
    """A TCP port free on this machine just now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def web(db: str, env: Mapping[str, str]) -> Iterator[str]:
    """`dmhost web` serving `db` on a free port while the block runs (with `env` as its whole environment): its
    base address, once it said it serves there; SIGTERM at the end must stop it cleanly."""
    port = free_port()
    server = subprocess.Popen(
        [*DMHOST, "web", "--db", db, "--port", str(port)], env=dict(env), stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stderr is not None
        said = server.stderr.readline()
        assert f"serving on http://127.0.0.1:{port}" in said, said
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        assert server.wait(timeout=20) == 0


@contextlib.contextmanager
def chromium(tmp: Path, *flags: str) -> Iterator[webdriver.Chrome]:
    """A headless Chromium (its profile in a new folder under `tmp`; `FLAGS` and `flags`), quit at the end."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in (*FLAGS, *flags):
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(dir=tmp)}")
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "chromedriver"))
    try:
        yield driver
    finally:
        driver.quit()
