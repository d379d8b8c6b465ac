"""The deployment files keep their promises (docs/operating.md): compose.yaml runs the bot, the review pages and
PostgreSQL with a healthcheck each, one run of the migrations first, secrets as files named like the settings
(never environment variables), a volume for the database; the Dockerfile's base is pinned by version and codename,
it carries OCI labels and asks this instance for its health; `.env` and the secrets never reach the image.
(Containers themselves: tools/smoke-compose.sh.)"""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests import ROOT

COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
SERVICES: dict[str, Any] = COMPOSE["services"]


def _secret_targets(service: dict[str, Any]) -> dict[str, str]:
    return {s["target"]: s["source"] for s in service.get("secrets", []) if isinstance(s, dict)}


def test_every_long_running_service_has_a_healthcheck_of_its_own() -> None:
    assert set(SERVICES) == {"db", "migrate", "bot", "web"}
    for name in ("db", "bot", "web"):
        test = SERVICES[name]["healthcheck"]["test"]
        assert test[0] == "CMD" and len(test) > 1, name
    assert SERVICES["bot"]["healthcheck"]["test"][1:] == ["dmhost", "health"]  # this instance's /healthz
    assert SERVICES["bot"]["environment"]["DMHOST_METRICS_PORT"] == "9100"
    web = SERVICES["web"]
    port = web["command"][web["command"].index("--port") + 1]
    assert web["healthcheck"]["test"][1:] == ["dmhost", "health", "--url", f"http://127.0.0.1:{port}/healthz"]
    assert SERVICES["migrate"]["healthcheck"] == {"disable": True}


def test_the_migrations_run_once_before_the_bot_and_the_pages() -> None:
    assert SERVICES["migrate"]["command"] == ["dmhost", "db", "upgrade"]
    assert SERVICES["migrate"]["depends_on"] == {"db": {"condition": "service_healthy"}}
    for name in ("bot", "web"):
        assert SERVICES[name]["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}


def test_secrets_are_files_named_like_their_settings_and_shared_where_they_must_be() -> None:
    declared = COMPOSE["secrets"]
    assert all(set(spec) == {"file"} and spec["file"].startswith("./secrets/") for spec in declared.values())
    bot, web = _secret_targets(SERVICES["bot"]), _secret_targets(SERVICES["web"])
    assert bot["DMHOST_TOKEN"] == "discord_token" and "DMHOST_TOKEN" not in web
    for setting in ("DMHOST_DATABASE_URL", "DMHOST_WEB_SECRET"):  # one database, one key for the page links
        assert bot[setting] == web[setting]
    db = SERVICES["db"]
    assert db["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    secret_words = re.compile(r"(TOKEN|SECRET|PASSWORD|DATABASE_URL)$")
    for name, service in SERVICES.items():  # no secret as an environment variable
        for key, value in (service.get("environment") or {}).items():
            assert not secret_words.search(key) or str(value).startswith("/run/secrets/"), (name, key)


def test_the_database_lives_in_a_volume_and_images_are_pinned() -> None:
    assert "pgdata" in COMPOSE["volumes"]
    assert "pgdata:/var/lib/postgresql/data" in SERVICES["db"]["volumes"]
    assert re.fullmatch(r"docker\.io/library/postgres:\d+\.\d+-[a-z]+", SERVICES["db"]["image"])
    assert SERVICES["bot"]["build"] == "." and SERVICES["bot"]["image"] == SERVICES["web"]["image"]


def test_the_image_is_pinned_labelled_and_asks_this_instance() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", dockerfile, re.MULTILINE)
    assert base is not None and re.fullmatch(r"python:3\.11\.\d+-slim-[a-z]+", base.group(1))
    assert dockerfile.count("FROM ${PYTHON_IMAGE}") == 2
    for label in ("title", "description", "version", "licenses", "base.name"):
        assert f"org.opencontainers.image.{label}=" in dockerfile
    assert 'CMD ["dmhost", "health", "--max-age", "60"]' in dockerfile and "DMHOST_METRICS_PORT=9100" in dockerfile
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".env", "secrets"} <= set(ignored)
