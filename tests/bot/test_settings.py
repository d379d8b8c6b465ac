"""Settings (`bot/settings.py`): defaults, then `.env`, then the environment, then arguments; secrets stay hidden."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from bot.settings import Settings

TOKEN = "MTIz.not-a-real-token.xyz"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No DMHOST_ variable from the caller's shell, and a working folder without a .env."""
    for key in list(os.environ):
        if key.upper().startswith("DMHOST_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_defaults() -> None:
    s = Settings()
    assert s.token is None
    assert s.db_url == "sqlite+aiosqlite:///dmhost.db"
    assert s.host_role == "Host"
    assert (s.shard_ids, s.shard_count) == (None, None)
    assert s.heartbeat_seconds == 1.0 and s.announce_batch_seconds == 1.0
    assert s.log_level == "INFO"


def test_environment_overrides_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DMHOST_TOKEN", TOKEN)
    monkeypatch.setenv("DMHOST_DATABASE_URL", "postgresql+asyncpg://u:pw@db/dmhost")
    monkeypatch.setenv("DMHOST_HOST_ROLE", "Referee")
    monkeypatch.setenv("DMHOST_SHARD_IDS", "[0, 2]")
    monkeypatch.setenv("DMHOST_SHARD_COUNT", "4")
    monkeypatch.setenv("DMHOST_HEARTBEAT_SECONDS", "0.25")
    monkeypatch.setenv("DMHOST_SOMETHING_ELSE", "ignored")
    s = Settings()
    assert s.token is not None and s.token.get_secret_value() == TOKEN
    assert s.db_url == "postgresql+asyncpg://u:pw@db/dmhost"
    assert s.host_role == "Referee"
    assert (s.shard_ids, s.shard_count) == ([0, 2], 4)
    assert s.heartbeat_seconds == 0.25
    assert not hasattr(s, "something_else")


def test_precedence_arguments_then_environment_then_dotenv_then_defaults(
    monkeypatch: pytest.MonkeyPatch, clean_env: Path
) -> None:
    (clean_env / ".env").write_text("DMHOST_HOST_ROLE=FromFile\nDMHOST_LOG_LEVEL=DEBUG\nDMHOST_TOKEN=file-token\n")
    from_file = Settings()
    assert (from_file.host_role, from_file.log_level) == ("FromFile", "DEBUG")
    assert from_file.announce_batch_seconds == 1.0  # not in the file: the default
    monkeypatch.setenv("DMHOST_HOST_ROLE", "FromEnv")
    from_env = Settings()
    assert (from_env.host_role, from_env.log_level) == ("FromEnv", "DEBUG")
    from_args = Settings(host_role="FromArgs")  # type: ignore[call-arg]
    assert (from_args.host_role, from_args.log_level) == ("FromArgs", "DEBUG")
    assert from_args.token is not None and from_args.token.get_secret_value() == "file-token"
    without_file = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (without_file.host_role, without_file.log_level, without_file.token) == ("FromEnv", "INFO", None)


def test_secrets_never_show_in_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DMHOST_TOKEN", TOKEN)
    monkeypatch.setenv("DMHOST_DATABASE_URL", "postgresql+asyncpg://u:hunter2@db/dmhost")
    s = Settings()
    assert isinstance(s.token, SecretStr) and isinstance(s.database_url, SecretStr)
    for text in (str(s), repr(s), s.model_dump_json(), str(s.model_dump())):
        assert TOKEN not in text and "hunter2" not in text
    assert "hunter2" in s.db_url  # the engine still gets the real URL


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("DMHOST_HEARTBEAT_SECONDS", "0"),
        ("DMHOST_ANNOUNCE_BATCH_SECONDS", "-1"),
        ("DMHOST_SHARD_COUNT", "many"),
        ("DMHOST_SHARD_IDS", "zero"),
    ],
)
def test_bad_values_are_refused_naming_the_setting(monkeypatch: pytest.MonkeyPatch, key: str, value: str) -> None:
    monkeypatch.setenv(key, value)
    with pytest.raises(ValidationError) as info:
        Settings()
    assert key.removeprefix("DMHOST_").lower() in str(info.value)
