"""Reading start times: a table of inputs (zones, DST boundaries, relative forms, garbage), in Python and
through `dmhost schedule when`."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from typing import Any

import pytest

from bot.schedule.when import WhenError, iso, parse_when
from tests import DATA

CASES = [json.loads(line) for line in (DATA / "schedule" / "when.jsonl").read_text().splitlines() if line.strip()]


def _now(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.parametrize("case", CASES, ids=[c["why"] for c in CASES])
def test_when_table(case: dict[str, Any]) -> None:
    now = _now(case["now"])
    if "error" in case:
        with pytest.raises(WhenError) as info:
            parse_when(case["text"], tz=case.get("tz"), now=now)
        assert case["error"] in str(info.value)
        if "past" in case["error"] or "cannot read" in case["error"]:
            assert "e.g." in str(info.value)  # a refusal carries an example
    else:
        at = parse_when(case["text"], tz=case.get("tz"), now=now)
        assert at.tzinfo is not None
        assert iso(at) == case["at"]


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in CASES
        if c["why"]
        in (
            "relative hours",
            "DST gap: 02:30 does not exist in Berlin on 29 March",
            "garbage",
            "ISO without zone: the server's zone (winter)",
        )
    ],
    ids=lambda c: c["why"],
)
@pytest.mark.slow  # a `dmhost when` process per case
def test_when_cli(case: dict[str, Any]) -> None:
    cmd = [sys.executable, "-m", "bot.ops.cli", "schedule", "when", case["text"], "--now", case["now"]]
    if case.get("tz"):
        cmd += ["--tz", case["tz"]]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if "error" in case:
        assert done.returncode == 2
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and case["error"] in lines[0] and "Traceback" not in done.stderr
    else:
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"at": case["at"]}


@pytest.mark.slow  # a `dmhost when` process
def test_when_cli_bad_now() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", "schedule", "when", "in 2h", "--now", "yesterday-ish"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "--now takes an ISO-8601 time" in done.stderr and "Traceback" not in done.stderr
