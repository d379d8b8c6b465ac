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
ENV DMHOST_DATABASE_URL=sqlite+aiosqlite:////data/dmhost.db
VOLUME ["/data"]
CMD ["dmhost", "run"]
