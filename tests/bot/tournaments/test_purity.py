"""The pairing and standings core stays pure: importing it pulls in no discord, sqlalchemy or asyncio."""

from __future__ import annotations

import json

from tests import run_python

PURE = ["rounds", "pairing", "standings", "progress", "simulate"]


def test_the_core_imports_no_io_framework() -> None:
    code = (
        "import json, sys\n"
        + "".join(f"import bot.tournaments.{m}\n" for m in PURE)
        + "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('discord', 'sqlalchemy', 'asyncio'))))"
    )
    done = run_python(["-c", code], timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
