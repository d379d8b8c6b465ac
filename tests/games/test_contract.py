"""The games contract itself: terminations by name, declared optional hooks, titles, the CLI's options and help."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from games import registry
from games.base import TITLES, Outcome, Ruleset, Termination, UnsupportedError
from games.clitools import replay_lines
from tests import ROOT

READY = registry.ids()


def test_terminations_are_the_contracts_reason_strings() -> None:
    # The reasons docs/cli.md names, plus the engines' (Dots `stop`, Pathing `round-limit`) and the
    # host's (a draw by `agreement`, `aborted`, a scheduled match's `no_show` forfeit).
    contract = {"loop", "line", "four-in-a-row", "score", "five-rows", "no-moves", "resign", "shift", "time", "award"}
    values = {t.value for t in Termination}
    assert contract | {"stop", "round-limit", "agreement", "aborted", "no_show"} == values
    out = Outcome(1, Termination.FOUR_IN_A_ROW, {1: 0, 2: 0})
    assert out.reason == "four-in-a-row" and out.termination == "four-in-a-row"
    assert json.dumps({"reason": Termination.LOOP}) == '{"reason": "loop"}'
    assert Termination("five-rows") is Termination.FIVE_ROWS


def test_titles_are_written_once() -> None:
    assert registry.TITLES is TITLES
    for game in READY:
        assert registry.get(game).title == TITLES[game]


def test_no_getattr_on_a_ruleset_in_games() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in (ROOT / "games").rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"getattr\(\s*\w*ruleset", line)
    ]
    assert found == []


@pytest.mark.parametrize("game", READY)
def test_optional_hooks_answer_on_every_game(game: str) -> None:
    ruleset = registry.get(game)
    options = ruleset.parse_options({})
    state = ruleset.new_game(options)
    move = ruleset.legal_moves(state)[0]
    assert ruleset.loses_by_shifting(state, move) is False  # never on the first move of a game
    assert isinstance(ruleset.format_dm(state, move), str)
    if type(ruleset).format_dm is Ruleset.format_dm:
        assert ruleset.format_dm(state, move) == ruleset.format(state, move)
    after, _events = ruleset.apply(state, move)
    if type(ruleset).rewind is Ruleset.rewind:
        with pytest.raises(UnsupportedError, match=game):
            ruleset.rewind(after)
    else:
        assert ruleset.to_json(ruleset.rewind(after)) == ruleset.to_json(state)
    if ruleset.sgf_records:
        record = ruleset.export_sgf(options, [move])
        sgf_options, lines = ruleset.import_sgf(record)
        result, replayed = replay_lines(ruleset, ruleset.parse_options(sgf_options), lines)
        assert result["error"] is None
        assert ruleset.render_text(replayed) == ruleset.render_text(after)
    else:
        with pytest.raises(UnsupportedError):
            ruleset.export_sgf(options, [move])
        with pytest.raises(UnsupportedError):
            ruleset.import_sgf("(;GM[40])")
    assert ruleset.rules_summary(options) is None  # default options change nothing


def test_dot_dash_declares_the_shifting_confirmation() -> None:
    dotdash = registry.get("dotdash")
    assert type(dotdash).loses_by_shifting is not Ruleset.loses_by_shifting
    assert type(registry.get("boxes")).loses_by_shifting is Ruleset.loses_by_shifting


# -- the command line --------------------------------------------------------------------------


def run(*args: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "games", *args], input=stdin, capture_output=True, text=True, cwd=cwd)


def test_several_options_after_one_opt_and_repeated_opt_agree(tmp_path: Path) -> None:
    moves = "A1-B1\nA1-A2\nB1-B2\nA2-B2\n"  # seat 2 draws the fourth side of box A1
    one = run("replay", "boxes", "--opt", "rows=1", "cols=2", "-", stdin=moves)
    repeated = run("replay", "boxes", "--opt", "rows=1", "--opt", "cols=2", stdin=moves)
    game = tmp_path / "game.txt"
    game.write_text(moves)
    from_file = run("replay", "boxes", "--opt", "rows=1", "cols=2", str(game))
    quoted = run("replay", "boxes", "--opt", "rows=1 cols=2", str(game))
    for proc in (one, repeated, from_file, quoted):
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        assert result["scores"] == {"1": 0, "2": 1} and result["moves_applied"] == 4
    bad = run("replay", "boxes", "--opt", "rows=1", "nonsense")
    assert bad.returncode == 2 and "KEY=VALUE" in bad.stderr and "Traceback" not in bad.stderr


def test_layout_presets_by_name_on_the_command_line(tmp_path: Path) -> None:
    # From any working folder: the presets are found beside the package.
    proc = run("replay", "pathing", "--opt", "layout=corners", "ruleset=original", stdin="", cwd=tmp_path)
    assert json.loads(proc.stdout)["extra"]["board"] == "R..B/..../..../B..R"
    proc = run("replay", "pathing", "--opt", "layout=nowhere", stdin="")
    assert proc.returncode == 2 and "corners" in proc.stderr


def test_help_lists_every_game_with_its_option_keys() -> None:
    for args in (["--help"], ["replay", "--help"]):
        proc = run(*args)
        assert proc.returncode == 0
        for game in READY:
            keys = registry.get(game).options_model.model_fields
            line = next(line for line in proc.stdout.splitlines() if line.split()[:1] == [game])
            assert all(key in line for key in keys), line


def test_sgf_for_a_game_without_records_is_a_usage_error(tmp_path: Path) -> None:
    record = tmp_path / "game.sgf"
    record.write_text("(;GM[40])")
    proc = run("replay", "boxes", "--sgf", str(record))
    assert proc.returncode == 2 and "no SGF" in proc.stderr and "dots" in proc.stderr
