"""Settings from the environment (`DMHOST_` prefix) and `.env`; built in entry points only.

Every setting is checked when the process starts (`load_settings`): a wrong one is one line naming
the variable and how to fix it, never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Self

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
}


def analysis_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """`DMHOST_ANALYSIS` for the faces that read no full `Settings` (the terminal room): on unless it says
    false, 0, no or off."""
    value = (os.environ if environ is None else environ).get("DMHOST_ANALYSIS", "").strip().lower()
    return value not in {"false", "0", "no", "off"}


class Settings(BaseSettings):
    """Everything the host needs to run; precedence: arguments > environment > .env > defaults."""

    model_config = SettingsConfigDict(env_prefix="DMHOST_", env_file=".env", env_nested_delimiter="__", extra="ignore")

    token: SecretStr | None = Field(None, description="Discord bot token")
    database_url: SecretStr = Field(SecretStr("sqlite+aiosqlite:///dmhost.db"), description="SQLAlchemy async URL")
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

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {value!r}")
        return level

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


def load_settings(**overrides: Any) -> Settings:
    """The settings, checked: SettingsProblem (one line) for the first one that is wrong."""
    try:
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
    value = "" if field == "token" or field == "database_url" or isinstance(shown, dict) else f" ({shown!r})"
    name = f"DMHOST_{field.upper()}" if field else "a DMHOST_ setting"
    return f"{name}{value} is wrong: {message[:1].lower() + message[1:]}; set it to {fix}."
