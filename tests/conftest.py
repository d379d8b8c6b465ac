"""What every test shares: reproducible randomness (fixed seeds or DMHOST_TEST_SEED) and the `pg` mark.

The host's fixtures (a real SQLite file, a real PostgreSQL server) are in tests/bot/conftest.py."""

from __future__ import annotations

import os

import hypothesis
import pytest

from tests import SEED_ENV, env_seed

SEED = env_seed()

# No background analysis in the command lines the tests start (`dmhost room` would start an analysis process
# after every match and wait for it): the tests of the analysis turn it on in their own environment.
os.environ["DMHOST_ANALYSIS"] = "false"

# Hypothesis draws the same examples on every run: derived from each test's name (derandomize), or from
# DMHOST_TEST_SEED when it is set. No example database either, so a run never depends on an earlier one.
# Nothing depends on the machine's speed: no deadline per example, and no health check for slow data.
_NOT_TIMED = {"deadline": None, "suppress_health_check": [hypothesis.HealthCheck.too_slow]}
hypothesis.settings.register_profile("dmhost", derandomize=True, **_NOT_TIMED)
hypothesis.settings.register_profile("dmhost-seeded", database=None, **_NOT_TIMED)
hypothesis.settings.load_profile("dmhost" if SEED is None else "dmhost-seeded")


def pytest_report_header() -> str:
    if SEED is None:
        return f"random seeds: each test's fixed ones ({SEED_ENV}=N to start every seeded test from N)"
    return f"random seeds: {SEED_ENV}={SEED}"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """With DMHOST_TEST_SEED set, every Hypothesis test (inner ones included) draws from that seed, as
    `--hypothesis-seed` would make it (read by Hypothesis' own pytest_configure, which runs after this)."""
    if SEED is not None and config.getoption("hypothesis_seed", None) is None:
        config.option.hypothesis_seed = str(SEED)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test on PostgreSQL carries the `pg` mark (`-m pg` selects them)."""
    for item in items:
        if "pg_url" in getattr(item, "fixturenames", ()) or "pg_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.pg)
