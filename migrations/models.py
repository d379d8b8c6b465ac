"""Every table dmhost stores, on one metadata: what Alembic's `env.py` compares the database with.

A table module missing here would look, to an autogenerate, like a table to drop; `tests/test_schema.py`
checks that every `__tablename__` under `bot/` is here and that a fresh database equals this metadata.
"""

from __future__ import annotations

import bot.coaching.models
import bot.jobs.table
import bot.ratings.models
import bot.records.analysis_store
import bot.schedule.models
import bot.series.models
import bot.store.correspondence
import bot.store.guilds
import bot.store.leases
import bot.store.outbox
import bot.tournaments.tables  # noqa: F401
from bot.store.db import Base

metadata = Base.metadata
