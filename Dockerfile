# syntax=docker/dockerfile:1
# Two stages: wheels for everything (pinned by constraints.txt) plus the solver compiled ahead of time,
# then a runtime stage without compilers that installs those wheels offline and runs as a non-root user.
# Build with the Docker image format (`docker build` does; `buildah bud --format docker`, `podman build
# --format docker`): the OCI format has no HEALTHCHECK field and drops it.
# The base pinned by Python release and Debian codename (bookworm: the Debian these images and the CI are tested
# on); a new Python patch release is a one-line change here after a green smoke test (tools/smoke-image.sh).
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm
FROM ${PYTHON_IMAGE} AS build
# gcc (and g++, which numba checks for): numba's ahead-of-time compiler makes the solver a C extension module;
# it also needs Python's headers (the official image has them; a Debian-built Python needs python3-dev)
RUN apt-get update && apt-get install -y --no-install-recommends gcc g++ libc6-dev \
    && { python3 -c "import os, sys, sysconfig; sys.exit(not os.path.exists(sysconfig.get_path('include') + '/Python.h'))" \
         || apt-get install -y --no-install-recommends python3-dev; } \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY constraints.txt pyproject.toml README.md ./
COPY games ./games
COPY seeds ./seeds
COPY bot ./bot
COPY migrations ./migrations
COPY benchmarks ./benchmarks
# PIP_CONSTRAINT pins the build backend too (pip applies it inside the isolated build environment)
ENV PIP_CONSTRAINT=/src/constraints.txt PIP_DISABLE_PIP_VERSION_CHECK=1
RUN pip wheel --no-cache-dir --wheel-dir /wheels .
# The search as an extension module for a processor level, not this build machine: x86-64-v2 (any x86-64
# processor since about 2009: SSE4.2 and POPCNT) or the architecture's generic level elsewhere. It needs
# neither numba nor a compiler to run, and any user can load it from a read-only folder.
RUN pip install --no-cache-dir --no-index --find-links /wheels dmhost \
    && mkdir -p /opt/dmhost/solver \
    && DMHOST_SOLVER_CPU=portable DMHOST_SOLVER_AOT_DIR=/opt/dmhost/solver NUMBA_CACHE_DIR=/tmp/numba \
       python -c "from games.solver import solve; solve(2, 2, engine='kernel')" \
    && { ls /opt/dmhost/solver/_dmsolver_*.so || { cat /opt/dmhost/solver/*.failed; exit 1; }; }

FROM ${PYTHON_IMAGE}
ARG DMHOST_VERSION=0.1.0
LABEL org.opencontainers.image.title="dmhost" \
      org.opencontainers.image.description="A Discord bot that hosts two-player Death Match board games: exact engines, clocks, logs." \
      org.opencontainers.image.version="${DMHOST_VERSION}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.base.name="docker.io/library/${PYTHON_IMAGE}" \
      org.opencontainers.image.documentation="docs/operating.md"
RUN useradd --create-home --uid 10001 dmhost && mkdir -p /data && chown dmhost /data
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
# The wheels are mounted from the build stage for this one step, not copied: a copied folder stays in its
# layer (and in the image's size) even when a later step deletes it.
# The test suites some dependencies install with themselves (numpy 17 MB, numba 15 MB, networkx 9 MB,
# llvmlite 1 MB) are never imported at run time: removed in the same step, so they never reach a layer.
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links /wheels dmhost \
    && for p in numpy numba networkx llvmlite; do \
         d=$(python -c "import importlib.util, os, sys; print(os.path.dirname(importlib.util.find_spec(sys.argv[1]).origin))" "$p") \
         && find "$d" -depth -type d -name tests -exec rm -rf {} + || exit 1; \
       done
COPY --from=build /opt/dmhost/solver /opt/dmhost/solver
WORKDIR /app
USER dmhost
# The rule cards and presets are the package `seeds` (seeds/); nothing is read from the working directory.
# The solver loads the module built above (DMHOST_SOLVER_CPU: the level it was compiled for); numba's
# just-in-time path stays as a fallback and compiles into a folder this user can write (NUMBA_CACHE_DIR
# when writable, else ~/.cache, else /tmp), so another --user or a read-only root still solves.
# The default SQLite database is /data/dmhost.db (DMHOST_DATA_DIR); DMHOST_DATABASE_URL, in the environment or
# as the secret file /run/secrets/DMHOST_DATABASE_URL, names another (compose.yaml: PostgreSQL). Every process
# serves /healthz, /readyz and /metrics on DMHOST_METRICS_PORT (127.0.0.1 unless DMHOST_METRICS_HOST says
# otherwise; `dmhost web` on its own port as well), which the HEALTHCHECK asks: this instance, not the database
# (`--max-age 60` caps the wait for its answer at 10 s, and is the heartbeat's age when asked with `--db`).
ENV DMHOST_DATA_DIR=/data \
    DMHOST_METRICS_PORT=9100 \
    DMHOST_SOLVER_AOT_DIR=/opt/dmhost/solver \
    DMHOST_SOLVER_CPU=portable \
    NUMBA_CACHE_DIR=/home/dmhost/.cache/numba
VOLUME ["/data"]
# Healthy while this instance answers /healthz: its event loop ticks, its database answers, its leases are held.
HEALTHCHECK --interval=30s --timeout=20s --start-period=2m --retries=3 CMD ["dmhost", "health", "--max-age", "60"]
CMD ["dmhost", "run"]
