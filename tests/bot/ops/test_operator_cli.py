"""The command line as an operator meets it: settings checked at start (`.env`, secrets folder, bad values in one
line), `--version`, SQLAlchemy URLs as `--db`, a help that imports no command, the web secret from `.env`, an
unwritable secret file said as that, and the bad inputs of issue 47 (one line, exit 2). Real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.opserrors import OperatorError, normal_url
from bot.records.pagetoken import load_secret
from bot.settings import export_dotenv, load_settings
from tests.bot.ops.test_cli_errors import assert_one_line_error, dmhost

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for key in list(os.environ):
        if key.upper().startswith("DMHOST_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("DMHOST_BOT_BUDGET", "abc", ["DMHOST_BOT_BUDGET", "number of seconds"]),
        ("DMHOST_BOT_BUDGET", "nan", ["DMHOST_BOT_BUDGET"]),
        ("DMHOST_LOG_LEVEL", "LOUD", ["DMHOST_LOG_LEVEL", "DEBUG"]),
        ("DMHOST_LOG_FORMAT", "xml", ["DMHOST_LOG_FORMAT", "text or json"]),
        ("DMHOST_METRICS_PORT", "70000", ["DMHOST_METRICS_PORT"]),
    ],
)
@pytest.mark.slow  # `dmhost` processes
def test_a_wrong_setting_is_refused_at_start_in_one_line(
    tmp_path: Path, key: str, value: str, words: list[str]
) -> None:
    proc = dmhost("db", "current", "--db", str(tmp_path / "x.db"), cwd=tmp_path, env={key: value})
    assert_one_line_error(proc, *words)
    # the same from a .env file
    (tmp_path / ".env").write_text(f"{key}={value}\n")
    assert_one_line_error(dmhost("ratings", "--db", str(tmp_path / "x.db"), cwd=tmp_path), key)


@pytest.mark.slow  # `dmhost` processes
def test_version_and_help_import_no_command() -> None:
    probe = (
        "import sys; from bot.ops.cli import main; code = main(['--help']); "
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'sqlalchemy', 'discord', 'pydantic', 'games', "
        "'numpy', 'PIL', 'aiohttp'}); print('HEAVY', heavy, code)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert "HEAVY [] 0" in out and "room" in out and "web" in out
    proc = subprocess.run([sys.executable, "-m", "bot.ops.cli", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.startswith("dmhost ")


@pytest.mark.slow  # `dmhost` processes
def test_sqlalchemy_urls_are_taken_as_they_are_written(tmp_path: Path) -> None:
    assert normal_url("sqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    assert normal_url("postgresql://u@h/db") == "postgresql+asyncpg://u@h/db"
    assert normal_url("sqlite+aiosqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    relative = dmhost("db", "upgrade", "--db", "sqlite:///rel.db", cwd=tmp_path)
    assert relative.returncode == 0, relative.stderr
    assert (tmp_path / "rel.db").is_file()
    absolute = dmhost("db", "upgrade", "--db", f"sqlite:///{tmp_path / 'abs.db'}", cwd=tmp_path)
    assert absolute.returncode == 0, absolute.stderr
    assert (tmp_path / "abs.db").is_file()
    meant = dmhost("db", "current", "--db", "sqlite:///nowhere/x.db", cwd=tmp_path)  # a folder that is not here
    assert_one_line_error(meant, "nowhere/x.db", "does not exist")


def test_the_web_secret_comes_from_dotenv_and_a_secrets_folder(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(clean_env / "cfg"))
    (clean_env / ".env").write_text("DMHOST_WEB_SECRET=from-dotenv\n")
    assert load_secret() == b"from-dotenv"
    assert not (clean_env / "cfg").exists()  # no random secret was made
    secrets = clean_env / "secrets"
    secrets.mkdir()
    (secrets / "DMHOST_WEB_SECRET").write_text("from-a-file\n")
    (clean_env / ".env").unlink()
    monkeypatch.setenv("DMHOST_SECRETS_DIR", str(secrets))
    assert load_settings().web_secret is not None
    assert load_secret() == b"from-a-file"
    monkeypatch.setenv("DMHOST_SECRETS_DIR", str(clean_env / "nowhere"))
    with pytest.raises(OperatorError, match="DMHOST_SECRETS_DIR"):
        load_settings()


def test_dotenv_values_reach_the_settings_read_one_by_one(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (clean_env / ".env").write_text("DMHOST_BOT_BUDGET=0.25\nDMHOST_ANALYSIS=off\nOTHER=x\n")
    monkeypatch.setenv("DMHOST_ANALYSIS", "on")  # the environment wins over .env
    export_dotenv()
    assert os.environ["DMHOST_BOT_BUDGET"] == "0.25" and os.environ["DMHOST_ANALYSIS"] == "on"
    assert "OTHER" not in os.environ
    monkeypatch.delenv("DMHOST_BOT_BUDGET")


@pytest.mark.slow  # `dmhost` processes
def test_an_unwritable_secret_file_is_said_as_that(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = clean_env / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocker))  # its dmhost/ folder cannot be made
    with pytest.raises(OperatorError, match=r"secret file .* cannot be written .*DMHOST_WEB_SECRET"):
        load_secret()
    db = clean_env / "w.db"
    assert dmhost("db", "upgrade", "--db", str(db), cwd=clean_env).returncode == 0
    proc = dmhost("web", "--db", str(db), "--port", "1", cwd=clean_env, env={"XDG_CONFIG_HOME": str(blocker)})
    assert_one_line_error(proc, "secret file", "cannot be written")


@pytest.mark.slow  # `dmhost` processes
def test_bad_inputs_are_one_line_and_exit_2(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    assert dmhost("db", "upgrade", "--db", str(db), cwd=tmp_path).returncode == 0
    assert_one_line_error(dmhost("db", "downgrade", "-999", "--db", str(db), cwd=tmp_path), "-999")
    for args in (
        ["tournament", "create", "Spring\nCup", "--game", "boxes", "--format", "swiss"],
        ["tournament", "create", "Spring \u202ecup", "--game", "boxes", "--format", "swiss"],
        ["tournament", "create", "Cup", "--game", "boxes", "--format", "swiss", "--prize", "x" * 10_000],
    ):
        proc = dmhost(*args, "--db", str(db), cwd=tmp_path)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 2 and "Traceback" not in out and len(proc.stderr.strip().splitlines()) == 1, out
    games = [sys.executable, "-m", "games"]
    for args, stdin in (
        (["replay", "boxes", "--png", str(tmp_path / "missing" / "b.png")], "A1-B1\n"),
        (["solve", "boxes", "--rows", "2", "--cols", "2", "--drawn", "A1-B1,B1-A1"], ""),
        (["duel", "boxes", "easy", "easy", "--budget", "nan"], ""),
        (["move", "boxes", "easy", "--budget", "inf", "-"], ""),
    ):
        proc = subprocess.run([*games, *args], input=stdin, capture_output=True, text=True, cwd=ROOT)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 2 and "Traceback" not in out and len(proc.stderr.strip().splitlines()) == 1, out


def _room(db: Path, *args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.ops.cli", "room", "--db", str(db), "--events-json", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=db.parent,
    )


@pytest.mark.slow  # `dmhost` processes
def test_room_resume_plays_the_lines_of_the_player_named(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    assert _room(db, "boxes", "--player", "alice", "--player", "bob", stdin="alice: A1-B1\n").returncode == 0
    as_alice = _room(db, "--resume", "1", "--player", "alice", stdin="A1-A2\n")  # bob's turn: not alice's
    events = [json.loads(line) for line in as_alice.stdout.splitlines() if line.startswith("{")]
    assert any(e["event"] == "rejected" and e["player"] == "alice" for e in events), events
    as_bob = _room(db, "--resume", "1", "--player", "bob", stdin="A1-A2\n")
    events = [json.loads(line) for line in as_bob.stdout.splitlines() if line.startswith("{")]
    assert [e["move"] for e in events if e["event"] == "move"] == ["A1-A2"], events
    stranger = _room(db, "--resume", "1", "--player", "zed", stdin="A2-B2\n")
    assert_one_line_error(stranger, "zed is not a player of match 1")


@pytest.mark.slow  # `dmhost` processes
def test_a_metrics_port_taken_is_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        proc = subprocess.run(
            [sys.executable, "-m", "bot.shardhost", "--db", str(tmp_path / "s.db"), "--metrics-port", port],
            input="",
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"shardhost: cannot serve /healthz and /metrics on 127.0.0.1:{port}" in proc.stderr
