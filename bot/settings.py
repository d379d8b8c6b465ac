"""Settings from the environment (`DMHOST_` prefix) and `.env`; built in entry points only."""

from __future__ import annotations

from pydantic import Field, SecretStr
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
    schedule_poll_seconds: float = Field(3600.0, gt=0, description="scheduled DMs: look at the database this often")
    log_level: str = "INFO"

    @property
    def db_url(self) -> str:
        """The database URL in clear (for the engine only)."""
        return self.database_url.get_secret_value()
