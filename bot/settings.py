"""Settings from the environment (`DMHOST_` prefix) and `.env`; built in entry points only."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything the host needs to run; precedence: arguments > environment > .env > defaults."""

    model_config = SettingsConfigDict(env_prefix="DMHOST_", env_file=".env", env_nested_delimiter="__", extra="ignore")

    token: SecretStr | None = Field(None, description="Discord bot token")
    database_url: SecretStr = Field(SecretStr("sqlite+aiosqlite:///dmhost.db"), description="SQLAlchemy async URL")
    host_role: str = Field("Host", description="role name allowed to run host commands")
    shard_ids: list[int] | None = None
    shard_count: int | None = None
    heartbeat_seconds: float = Field(1.0, gt=0)
    announce_batch_seconds: float = Field(1.0, ge=0)
    log_level: str = "INFO"
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

    @property
    def db_url(self) -> str:
        """The database URL in clear (for the engine only)."""
        return self.database_url.get_secret_value()
