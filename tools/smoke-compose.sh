#!/usr/bin/env bash
# smoke-compose.sh: smoke-tests compose.yaml. Prints PASS/FAIL lines; exits with the number of failures.
#
# Where containers run (docker with a daemon, or podman that can start one), it brings the deployment up in a
# project of its own (`docker compose` or `podman-compose`, building the image), waits for the review pages
# to be healthy, asks /healthz, /readyz and /metrics of the web service, checks that the migrations ran once,
# and takes everything down with its volumes.
#
# Where they cannot (the reason is printed: on the development machines of 2026-12 podman's crun cannot set
# RLIMIT_NPROC — the sandbox withholds CAP_SYS_RESOURCE — and no registry serves the base images), it tests what
# can be tested without them:
#   1. the file itself: podman-compose parses it (`--dry-run up`: the podman commands it would run) and every
#      structural promise holds (tests/test_deployment.py: services, healthchecks, secrets, volumes, pins);
#   2. the services' own commands, run as compose runs them but as plain processes: the same settings from a
#      secrets folder (DMHOST_SECRETS_DIR standing for /run/secrets) on a PostgreSQL database of their own
#      (DMHOST_TEST_PG_URL's server), `dmhost db upgrade` (the migrate service), `dmhost web` (the web service)
#      and each service's healthcheck command against it.
set -uo pipefail
cd "$(dirname "$0")/.."
FAILS=0
PROJECT=dmhost-smoke-$$
work=$(mktemp -d)
cleanup_pids=()
cleanup() {
    for pid in "${cleanup_pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

pass() { printf 'PASS  %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; FAILS=$((FAILS + 1)); }
check() {  # check NAME CMD...: PASS when CMD exits 0
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then pass "$name"; else fail "$name: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi
}

# -- Can containers run here? ------------------------------------------------------------------------------
why=""
compose=()
if command -v docker >/dev/null && docker info >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then
    compose=(docker compose -p "$PROJECT")
elif command -v podman >/dev/null && command -v podman-compose >/dev/null; then
    if out=$(podman run --rm --network none --rootfs / /bin/true 2>&1); then
        compose=(podman-compose -p "$PROJECT")
    else
        why="podman cannot start a container here: $(tail -n 1 <<<"$out")"
    fi
else
    why="neither docker (with a daemon and compose) nor podman with podman-compose is installed"
fi

if [ ${#compose[@]} -gt 0 ]; then
    echo "containers: ${compose[*]}"
    DMHOST_TOKEN=${DMHOST_TOKEN:-not-a-real-token} tools/compose-secrets.sh secrets >/dev/null
    check "compose up" "${compose[@]}" up -d --build
    healthy=""
    for _ in $(seq 1 60); do
        if curl -fsS http://127.0.0.1:8080/healthz >/dev/null 2>&1; then healthy=1; break; fi
        sleep 5
    done
    if [ -n "$healthy" ]; then pass "web healthy"; else fail "web never answered /healthz"; fi
    check "web /readyz" curl -fsS http://127.0.0.1:8080/readyz
    check "web /metrics" sh -c "curl -fsS http://127.0.0.1:8080/metrics | grep -q '^dmhost_db_errors_total'"
    check "migrations ran" "${compose[@]}" run --rm --no-deps migrate dmhost db current
    "${compose[@]}" down -v >/dev/null 2>&1
    echo "failures: $FAILS"
    exit "$FAILS"
fi

echo "containers cannot run here, so they are not started: $why"

# -- 1. The file ------------------------------------------------------------------------------------------
mkdir -p "$work/compose/secrets"
cp compose.yaml Dockerfile "$work/compose/"
for f in postgres_password database_url web_secret discord_token; do echo placeholder >"$work/compose/secrets/$f"; done
if command -v podman-compose >/dev/null; then
    out=$(cd "$work/compose" && podman-compose -p "$PROJECT" --dry-run up -d --no-build 2>&1)
    for service in db migrate bot web; do
        if grep -q -- "--name=${PROJECT}_${service}_1" <<<"$out"; then
            pass "podman-compose would run $service"
        else
            fail "podman-compose would not run $service"
        fi
    done
    grep -q -- "/run/secrets/DMHOST_WEB_SECRET" <<<"$out" && pass "the web secret mounted as a setting" \
        || fail "the web secret is not mounted at /run/secrets/DMHOST_WEB_SECRET"
else
    echo "SKIP  podman-compose --dry-run (podman-compose is not installed)"
fi
check "structure (tests/test_deployment.py)" python -m pytest -q -n 0 -p no:randomly tests/test_deployment.py

# -- 2. The services' commands, as plain processes ---------------------------------------------------------
pg=${DMHOST_TEST_PG_URL:-postgresql+asyncpg://postgres@127.0.0.1:5432/test}
db="dmhost_smoke_$$"
if python - "$pg" "$db" <<'EOF'
import asyncio, sys
import asyncpg
from sqlalchemy.engine import make_url
url = make_url(sys.argv[1])
async def main() -> None:
    conn = await asyncpg.connect(user=url.username, password=url.password, host=url.host, port=url.port or 5432,
                                 database=url.database)
    await conn.execute(f'CREATE DATABASE "{sys.argv[2]}"')
    await conn.close()
asyncio.run(main())
EOF
then
    secrets="$work/run-secrets"
    mkdir -p "$secrets"
    python -c "import sys; from sqlalchemy.engine import make_url; print(make_url(sys.argv[1]).set(database=sys.argv[2]).render_as_string(hide_password=False), end='')" \
        "$pg" "$db" >"$secrets/DMHOST_DATABASE_URL"
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$secrets/DMHOST_WEB_SECRET"
    export DMHOST_SECRETS_DIR=$secrets DMHOST_LOG_FORMAT=json XDG_CONFIG_HOME="$work/cfg"
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
    cd "$work" || exit 1  # no .env of the checkout is read
    check "migrate: dmhost db upgrade" python -m bot.ops.cli db upgrade
    port=$(python -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
    python -m bot.ops.cli web --host 127.0.0.1 --port "$port" 2>"$work/web.log" &
    web=$!
    cleanup_pids+=("$web")
    up=""
    for _ in $(seq 1 100); do
        if python -m bot.ops.cli health --url "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then up=1; break; fi
        sleep 0.2
    done
    if [ -n "$up" ]; then pass "web: its healthcheck command (dmhost health --url …/healthz)"; else fail "web: never healthy: $(tail -n 3 "$work/web.log")"; fi
    check "web: /readyz" python -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/readyz', timeout=5)"
    check "web: /metrics" sh -c "python -c \"import urllib.request as u; print(u.urlopen('http://127.0.0.1:$port/metrics', timeout=5).read().decode())\" | grep -q '^dmhost_db_errors_total'"
    check "web: JSON log lines" python -c "
import json, sys
lines = [json.loads(l) for l in open('$work/web.log') if l.strip()]
assert lines and all({'time', 'level', 'message'} <= set(l) for l in lines), lines"
    if python -m bot.ops.cli health --url "http://127.0.0.1:1/healthz" >/dev/null 2>&1; then
        fail "dmhost health says healthy where nothing answers"
    else
        pass "dmhost health: unhealthy where nothing answers"
    fi
    kill -TERM "$web" && wait "$web"
    check "web: stops at SIGTERM with exit 0" test "$?" = 0
    python - "$pg" "$db" <<'EOF' >/dev/null 2>&1
import asyncio, sys
import asyncpg
from sqlalchemy.engine import make_url
url = make_url(sys.argv[1])
async def main() -> None:
    conn = await asyncpg.connect(user=url.username, password=url.password, host=url.host, port=url.port or 5432,
                                 database=url.database)
    await conn.execute(f'DROP DATABASE IF EXISTS "{sys.argv[2]}" WITH (FORCE)')
    await conn.close()
asyncio.run(main())
EOF
else
    fail "no PostgreSQL at $pg to run the services' commands on (set DMHOST_TEST_PG_URL)"
fi
echo "failures: $FAILS"
exit "$FAILS"
