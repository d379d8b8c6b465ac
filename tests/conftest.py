"""What every test shares: reproducible randomness (fixed seeds or DMHOST_TEST_SEED) and the `pg` mark.

The host's fixtures (a real SQLite file, a real PostgreSQL server) are in tests/bot/conftest.py."""

from __future__ import annotations

import os
import sys

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
    _keep_bytecode()


def _keep_bytecode() -> None:
    """The tests start about 800 `dmhost` and `python` processes. Where PYTHONDONTWRITEBYTECODE is set (as on our
    machines), each compiled the project's modules from source again: about 0.15 s of a 0.9 s start. The session
    lets its processes (the workers too, which inherit the environment) keep bytecode where Python keeps it, in
    the `__pycache__` folders git ignores; installed packages have theirs from the install, so nothing else moves.
    (A cache folder of the session's own, PYTHONPYCACHEPREFIX, was tried: it left every installed package to be
    compiled again, numba's first solver build with them.) What a process does is the same."""
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        sys.dont_write_bytecode = False


SLOW_MODULES = frozenset(
    f"tests/{path}.py"
    for path in """
    bot/ops/test_cli_errors bot/ops/test_operator_mistakes bot/ops/test_listing_at_a_terminal bot/ops/test_operating
    bot/ops/test_interrupts bot/ops/test_big_ids
    bot/adapters/terminal/test_crash_safety bot/adapters/terminal/test_room_leases
    bot/adapters/terminal/test_room_promises
    bot/adapters/terminal/test_room_terminal bot/adapters/terminal/test_room_games bot/adapters/terminal/test_room_cli
    bot/adapters/terminal/test_room_stop_and_key bot/adapters/terminal/test_room_newcomer
    bot/adapters/terminal/test_room_vacation
    bot/adapters/web/test_review_browser bot/adapters/web/test_review_pages_browser
    bot/adapters/practice/test_practice_start bot/adapters/practice/test_practice_first_build
    bot/adapters/practice/test_practice_and_analysis
    bot/ownership/test_ownership bot/ownership/test_frozen_owner
    bot/schedule/test_two_room_processes bot/schedule/test_scheduled_room bot/schedule/test_two_rooms
    bot/schedule/test_scheduled_room_order bot/schedule/test_schedule_cli
    bot/tournaments/test_terminal bot/tournaments/test_start_kills bot/tournaments/test_two_players_of_one
    bot/store/test_migrate_together bot/ratings/test_cli bot/ratings/test_ratings_exactly_once
    bot/host/test_deadlines_on_time bot/host/rules/test_correspondence
    bot/adapters/discord/test_rate_limits bot/adapters/discord/test_full_matches
    bot/adapters/discord/test_correspondence_notify bot/adapters/discord/test_correspondence_away
    games/test_analysis_scales
    test_contract_cli games/test_replay_cli games/opponents/test_cli games/solver/test_aot games/solver/test_cache_dir
    """.split()
)
"""Modules whose tests run the real command lines in processes (kills, standbys, whole rooms), a browser, a
first build, whole SimCord matches on looptime's clock (Pathing against the rate limits, correspondence over
simulated days) or long searches: all `slow`, with the tests marked one by one elsewhere. `python -m pytest -m
"not slow"` is the fast loop (tests/README.md); CI runs everything."""

PG_IN_THE_FAST_LOOP = ("tests/bot/store/", "tests/bot/jobs/")
"""Where the fast loop runs the PostgreSQL half of the tests on both databases: the store's and the jobs' own
tests (their SQL). Every other test on both databases runs there on SQLite only; its PostgreSQL half is `slow`."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test on PostgreSQL carries the `pg` mark (`-m pg` selects them), and the `slow` one outside
    PG_IN_THE_FAST_LOOP; every test of a module of SLOW_MODULES the `slow` mark."""
    for item in items:
        if "pg_url" in getattr(item, "fixturenames", ()) or "pg_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.pg)
        if item.get_closest_marker("pg") and not item.nodeid.startswith(PG_IN_THE_FAST_LOOP):
            item.add_marker(pytest.mark.slow)
        if item.nodeid.split("::", 1)[0] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
