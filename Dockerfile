# Two stages: build a wheel with its dependencies, then run it as a non-root user.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY games ./games
COPY bot ./bot
COPY migrations ./migrations
COPY benchmarks ./benchmarks
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 dmhost && mkdir -p /data && chown dmhost /data
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
COPY seeds /app/seeds
WORKDIR /app
USER dmhost
ENV DMHOST_DATABASE_URL=sqlite+aiosqlite:////data/dmhost.db \
    NUMBA_CACHE_DIR=/home/dmhost/.cache/numba
# The slim image has no C compiler, so the solver uses numba's just-in-time code here, not the extension
# module built ahead of time (games/solver/aot.py; add gcc to this stage to get it).
# Compile the solver's numba kernel now, so the first `/dm practice` or `--analyse` does not wait for it
# (about a minute on a small machine). The compiled code lands in NUMBA_CACHE_DIR, owned by the user the
# bot runs as (numba only reads a cache folder it can also write to); a 2x2 board compiles the same code
# every board size uses. The cache is compiled for the build machine's CPU (numba recompiles, once, on a
# different CPU model); for an image built on one machine and run on others, add NUMBA_CPU_NAME=generic to
# the ENV above (portable code, somewhat slower).
RUN python -c "from games.solver import move_values, solve; solve(2, 2, engine='kernel'); move_values(2, 2, engine='kernel')"
VOLUME ["/data"]
# Healthy while some host process wrote its heartbeat (every DMHOST_HEARTBEAT_SECONDS) in the last minute.
HEALTHCHECK --interval=30s --timeout=20s --start-period=2m --retries=3 CMD ["dmhost", "health", "--max-age", "60"]
CMD ["dmhost", "run"]
