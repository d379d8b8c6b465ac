"""A 30-digit id (or 0) in every command that takes one: one usage line, exit 2, that blames the id —
never a traceback from the driver's overflow, never "the database URL" — on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ops import cli

HUGE = "123456789012345678901234567890"

COMMANDS = [
    ["log", HUGE],
    ["room", "--resume", HUGE],
    ["room", "--scheduled", HUGE],
    ["schedule", "cancel", HUGE],
    ["tournament", "status", HUGE],
    ["tournament", "start", HUGE],
    ["tournament", "play", HUGE],
    ["tournament", "join", HUGE, "bob"],
    ["tournament", "result", "1", "1", "1-0", "--round", HUGE],
    ["tournament", "result", "1", "1", "1-0", "--round", "0"],
    ["tournament", "create", "cup", "--game", "boxes", "--format", "swiss", "--max-players", HUGE],
    ["ratings", "--guild", HUGE],
    ["log", "0"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c).replace(HUGE, "HUGE") for c in COMMANDS])
def test_an_id_out_of_range_is_one_line(
    command: list[str], db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["db", "upgrade", "--db", db_url]) == 0
    capsys.readouterr()
    assert cli.main([*command, "--db", db_url]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("dmhost"), err
    assert "Traceback" not in out + err
    assert "database" not in lines[0].lower(), lines[0]
    assert ("from 1 to 9223372036854775807" in lines[0]) or ("too large" in lines[0]), lines[0]
