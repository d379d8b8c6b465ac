"""Settings from the environment (`DMHOST_` prefix) and `.env`; built in entry points only.

Every setting is checked when the process starts (`load_settings`): a wrong one is one line naming
the variable and how to fix it, never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings.exceptions import SettingsError

from bot.opserrors import OperatorError

LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")

_FIXES = {
    "token": "the bot token from the Discord developer portal",
    "database_url": "a URL such as sqlite+aiosqlite:///dmhost.db or postgresql+asyncpg://USER:PASSWORD@HOST/DB",
    "host_role": "a role name, e.g. Host",
    "shard_ids": "a JSON list of shard numbers below DMHOST_SHARD_COUNT, e.g. '[0, 1]', with DMHOST_SHARD_COUNT",
    "shard_count": "a whole number of shards, at least 1, e.g. 4",
    "heartbeat_seconds": "a number of seconds above 0, e.g. 1",
    "lease_seconds": "a number of seconds above 0, e.g. 10",
    "announce_batch_seconds": "a number of seconds, 0 or more, e.g. 1",
    "log_level": "one of " + ", ".join(LOG_LEVELS),
    "message_content": "on (moves are read from messages) or off (moves by mentioning the bot or `/move`)",
    "log_format": "text or json",
    "metrics_port": "a TCP port (1–65535) for /healthz, /readyz and /metrics, e.g. 9100, or leave it unset",
    "web_secret": "a long random string shared by every process of the deployment (e.g. `openssl rand -hex 32`)",
    "web_host": "an address to listen on, e.g. 127.0.0.1 or 0.0.0.0",
    "web_port": "a TCP port (1–65535), e.g. 8080",
    "bot_budget": "a number of seconds above 0, e.g. 1",
    "data_dir": "a folder for the default SQLite database, e.g. /data",
    "sentry_dsn": "the DSN of a Sentry project (https://KEY@HOST/PROJECT), with the sentry-sdk package installed",
}


def dmhost_version() -> str:
    """dmhost's installed version ("(source)" when run from a source tree that was never installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dmhost")
    except PackageNotFoundError:
        return "(source)"


def analysis_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """`DMHOST_ANALYSIS` for the faces that read no full `Settings` (the terminal room): on unless it says
    false, 0, no or off."""
    value = (os.environ if environ is None else environ).get("DMHOST_ANALYSIS", "").strip().lower()
    return value not in {"false", "0", "no", "off"}


class Settings(BaseSettings):
    """Everything the host needs to run; precedence: arguments > environment > .env > defaults."""

    model_config = SettingsConfigDict(env_prefix="DMHOST_", env_file=".env", env_nested_delimiter="__", extra="ignore")
    # `secrets_dir` (a file per setting, named like the variable: /run/secrets/DMHOST_WEB_SECRET) is given by
    # `load_settings`: DMHOST_SECRETS_DIR, else /run/secrets when it exists (Docker, Kubernetes, compose).

    token: SecretStr | None = Field(None, description="Discord bot token")
    database_url: SecretStr = Field(
        SecretStr("sqlite+aiosqlite:///dmhost.db"),
        description="SQLAlchemy URL; unset: dmhost.db in DMHOST_DATA_DIR, else in the current folder",
    )
    data_dir: Path | None = Field(
        None, description="the folder of the default SQLite database (the image sets /data); unset: the current one"
    )
    host_role: str = Field("Host", description="role name allowed to run host commands")
    shard_ids: list[int] | None = None
    shard_count: int | None = Field(None, ge=1)
    heartbeat_seconds: float = Field(1.0, gt=0)
    lease_seconds: float = Field(
        10.0, gt=0, description="how long a shard's owner may stay silent before a standby takes over"
    )
    announce_batch_seconds: float = Field(1.0, ge=0)
    schedule_poll_seconds: float = Field(3600.0, gt=0, description="scheduled DMs: look at the database this often")
    log_level: str = "INFO"
    log_format: Literal["text", "json"] = Field(
        "text", description="long-running commands log plain lines (text) or one JSON object a line (json)"
    )
    metrics_port: int | None = Field(
        None,
        ge=1,
        le=65535,
        description="`dmhost run` and the shard host serve /healthz, /readyz and /metrics on this port "
        "(127.0.0.1 unless DMHOST_METRICS_HOST says otherwise); unset: not served",
    )
    metrics_host: str = Field("127.0.0.1", description="the address the metrics port listens on")
    web_secret: SecretStr | None = Field(
        None,
        description="the key of the review pages' addresses, shared by `dmhost web`, the bot and the command "
        "lines; unset: a random one kept in ~/.config/dmhost/web-secret",
    )
    web_host: str = Field("127.0.0.1", description="`dmhost web` listens on this address (--host overrides)")
    web_port: int = Field(8080, ge=1, le=65535, description="`dmhost web` listens on this port (--port overrides)")
    web_access_log: bool = Field(False, description="`dmhost web` logs every request (one line each)")
    bot_budget: float | None = Field(None, gt=0, allow_inf_nan=False, description="practice opponent's seconds a move")
    sentry_dsn: SecretStr | None = Field(
        None, description="report errors to Sentry (needs the sentry-sdk package, not installed by default)"
    )
    web_url: str | None = Field(
        None,
        description="public address of `dmhost web` (e.g. https://dm.example.org): `/dm log` and the posted "
        "result line link to the match's review page; unset: `/dm log` attaches the page as an HTML file",
    )
    analysis: bool = Field(
        True,
        description="analyse every finished match in the background (one low-priority process while there is "
        "work); off: `/dm log`, `dmhost log --analyse` and the review pages still analyse on demand",
    )
    message_content: bool = Field(
        True,
        description="ask Discord for the privileged Message Content Intent and read moves from plain messages; "
        "off: the intent is not asked for, and players move by mentioning the bot (`@dmhost A1-B1`) or with "
        "`/move text:`",
    )
    solver_memory: int | None = Field(
        None,
        description="memory (bytes; `512M`, `4G`) the bot process may reach with the solver's tables for "
        "`/dm practice … level:perfect`; unset: a quarter of the memory available",
    )

    @field_validator("solver_memory", mode="before")
    @classmethod
    def _size(cls, value: Any) -> Any:
        """`512M`, `4G` or a number of bytes."""
        if isinstance(value, str):
            from games.solver.memory import parse_size

            return parse_size(value)
        return value

    @field_validator("database_url", mode="after")
    @classmethod
    def _driver(cls, value: SecretStr) -> SecretStr:
        """A URL without an async driver gets dmhost's (`sqlite:///x.db`, `postgresql://…`)."""
        from bot.opserrors import normal_url

        return SecretStr(normal_url(value.get_secret_value()))

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {value!r}")
        return level

    @model_validator(mode="after")
    def _data_dir(self) -> Self:
        """No database URL given: the default file goes in the data folder, when there is one."""
        if self.data_dir is not None and "database_url" not in self.model_fields_set:
            self.database_url = SecretStr(f"sqlite+aiosqlite:///{self.data_dir.expanduser().resolve() / 'dmhost.db'}")
        return self

    @model_validator(mode="after")
    def _shards_fit(self) -> Self:
        if self.shard_ids is not None:
            if self.shard_count is None:
                raise ValueError("shard_ids: shard ids need DMHOST_SHARD_COUNT (the total number of shards)")
            bad = [i for i in self.shard_ids if not 0 <= i < self.shard_count]
            if bad or not self.shard_ids:
                raise ValueError(
                    f"shard_ids: {bad or '[]'} is not a shard of {self.shard_count} (0 to {self.shard_count - 1})"
                )
        return self

    @property
    def db_url(self) -> str:
        """The database URL in clear (for the engine only)."""
        return self.database_url.get_secret_value()


class SettingsProblem(OperatorError):
    """A setting that cannot work; its text is the line to print (naming the variable and the fix)."""


def secrets_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """Where settings are read from files (one per setting): DMHOST_SECRETS_DIR, else /run/secrets if it exists."""
    env = os.environ if environ is None else environ
    given = env.get("DMHOST_SECRETS_DIR", "").strip()
    if given:
        return Path(given)
    default = Path("/run/secrets")
    return default if default.is_dir() else None


def export_dotenv(path: str | Path = ".env") -> None:
    """Put the `DMHOST_` settings of a `.env` file into this process's environment (those the environment does not
    set already), so that the parts that read one setting by itself (`DMHOST_ANALYSIS`, `DMHOST_BOT_BUDGET`, the
    solver's) see what `Settings` sees. Entry points call it once at start."""
    file = Path(path)
    if not file.is_file():
        return
    from dotenv import dotenv_values

    for key, value in dotenv_values(file).items():
        if key.upper().startswith("DMHOST_") and value is not None and key not in os.environ:
            os.environ[key] = value


def load_settings(**overrides: Any) -> Settings:
    """The settings, checked: SettingsProblem (one line) for the first one that is wrong."""
    folder = secrets_dir()
    if folder is not None and not folder.is_dir():
        raise SettingsProblem(f"DMHOST_SECRETS_DIR ({str(folder)!r}) is not a folder: set it to the secrets' folder.")
    try:
        if folder is not None:
            overrides.setdefault("_secrets_dir", folder)
        return Settings(**overrides)
    except ValidationError as exc:
        raise SettingsProblem(_explain(exc)) from None
    except SettingsError as exc:  # a value that is not even JSON where JSON is expected (DMHOST_SHARD_IDS=zz)
        field = next((name for name in _FIXES if f'"{name}"' in str(exc)), None)
        if field is None:
            raise SettingsProblem(f"a DMHOST_ setting cannot be read ({exc})") from None
        raise SettingsProblem(f"DMHOST_{field.upper()} cannot be read: set it to {_FIXES[field]}.") from None


def _explain(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = [str(part) for part in err.get("loc", ())]
    message = str(err.get("msg", "invalid"))
    message = message.removeprefix("Value error, ")
    field = loc[0] if loc else ""
    if not field and ":" in message:  # a check across settings names its field first
        field, _, message = message.partition(": ")
    fix = _FIXES.get(field, "a valid value")
    shown = err.get("input")
    hidden = {"token", "database_url", "web_secret", "sentry_dsn"}
    value = "" if field in hidden or isinstance(shown, dict) else f" ({shown!r})"
    name = f"DMHOST_{field.upper()}" if field else "a DMHOST_ setting"
    return f"{name}{value} is wrong: {message[:1].lower() + message[1:]}; set it to {fix}."
