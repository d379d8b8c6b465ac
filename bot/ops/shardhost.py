"""A headless host for a set of shards: `python -m bot.shardhost --db URL --shard-count N --shard-ids 0 1`.

It runs one `MatchService` that owns the clocks of the matches of its shards' guilds
(`(guild_id >> 22) % shard_count in shard_ids`; matches without a guild belong to shard 0) while it
holds those shards' leases: started while another live process holds them, it waits as a standby
(`{"event": "standby"}`) and takes over when that owner stops (SIGTERM releases the leases at once)
or dies (its leases expire after `--lease` seconds). It resumes the matches (`{"event": "ready"}`),
prints every host event as one JSON line with the loop time (`"t"`), and, if its leases were taken
over while it was stalled, stops hosting (`{"event": "lost"}`) and waits again. It reads JSON
commands from stdin, one per line, and stops at end of input or SIGTERM:

    {"create": {"game": "boxes", "players": [["1", "alice"], ["2", "bob"]], "guild_id": 42, "clock": {...}}}
    {"submit": {"match": 7, "player": "1", "text": "A1-B1"}}

Used by the sharding tests and handy for operating a shard set without Discord.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Callable, Iterable
from typing import Any

from bot.adapters.discord.render import markdown
from bot.adapters.terminal.room import stdin_lines
from bot.host.service import HostError, HostEvent, MatchService, PlayerRef
from bot.wording import error_text, event_text, reason_text
from bot.wording import ops as words


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """Discord's shard of a guild; matches outside any guild live on shard 0."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


def owner(shard_ids: Iterable[int] | None, shard_count: int | None) -> Callable[[int | None], bool]:
    """The `owns_guild` hook of a process running `shard_ids` of `shard_count` (everything if unsharded)."""
    if shard_ids is None or not shard_count:
        return lambda _guild: True
    ids = frozenset(shard_ids)
    count = shard_count
    return lambda guild: shard_of(guild, count) in ids


def _print(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


async def serve(
    url: str,
    shard_ids: list[int] | None,
    shard_count: int | None,
    heartbeat: float,
    lease: float = 10.0,
    metrics_at: tuple[str, int] | None = None,
) -> int:
    """Host the matches of these shards while holding their leases (waiting as a standby while another live
    process holds any of them), until end of input or SIGTERM; then release the leases at once. `metrics_at`:
    serve /healthz, /readyz and /metrics on that address."""
    from bot.compose import build_keeper, build_service, build_store, bus_of
    from bot.ownership.keeper import until

    store = build_store(url)
    await store.open()
    service = build_service(store, heartbeat_seconds=heartbeat)
    keeper = build_keeper(service, shard_ids or [0], shard_count or 1, lease_seconds=lease)
    service.owns_guild = keeper.holds
    probes = await _probes(service, keeper, metrics_at)
    let_go: set[int] = set()  # the matches of shards taken over, noted the moment the store learns of it

    def note_lost(_shards: set[int]) -> None:
        let_go.update(lv.id for lv in service.live.values() if not keeper.holds(lv.guild_id))

    keeper.fencing.on_lost.insert(0, note_lost)

    def on_event(ev: HostEvent) -> None:
        _print(
            {"event": ev.kind, "match": ev.match_id, "t": service.now(), **ev.data, "text": markdown(event_text(ev))}
        )

    bus_of(service).subscribe(on_event)
    lines = await stdin_lines()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, stopping.set)
    commands = asyncio.create_task(_commands(service, keeper, lines, stopping))
    started = False
    try:
        while not stopping.is_set():

            def standby(holders: list[Any]) -> None:
                by = sorted({h.owner for h in holders if h.owner})
                _print({"event": "standby", "instance": service.instance, "held_by": by, "t": service.now()})

            got = await until(stopping, keeper.wait_for_leases(standby))
            if got is None:
                break
            if not started:
                resumed = await service.start()
                started = True
                from bot.ops.runtime import tune_gc

                tune_gc()
            else:
                resumed = await service.resume_owned()
            _print(
                {"event": "ready", "instance": service.instance, "resumed": resumed, "epochs": got, "t": service.now()}
            )
            lost = await until(stopping, keeper.keep())
            if lost is None:
                break
            let_go.update(service.abandon())
            _print({"event": "lost", "shards": sorted(lost), "matches": sorted(let_go), "t": service.now()})
            let_go.clear()
        return 0
    finally:
        commands.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await commands
        await service.close()
        await keeper.release()
        if probes is not None:
            from bot.adapters.web.probes import stop_probes

            await stop_probes(*probes)
        await store.close()


async def _probes(service: MatchService, keeper: Any, at: tuple[str, int] | None) -> tuple[Any, Any] | None:
    """Serve the probes of this process on `at` (None: not served): healthy while its loop ticks, its database
    answers and it holds its leases (or waits as a standby); ready while it hosts."""
    if at is None:
        return None
    from bot.adapters.web.probes import Probe, serve_probes, watch_host

    def hosting() -> bool | None:
        return True if keeper.active else None  # a standby (or between a loss and the next hold): healthy

    probe = Probe(service.store.ping, hosting=hosting, ready=lambda: bool(keeper.active))
    watch_host(service, keeper)
    runner = await serve_probes(probe, *at)
    return runner, probe


async def _commands(
    service: MatchService, keeper: Any, lines: asyncio.Queue[str | None], stopping: asyncio.Event
) -> None:
    """Run the JSON commands of stdin; a standby refuses them. End of input stops the process."""
    while (line := await lines.get()) is not None:
        if not line.strip():
            continue
        try:
            if not keeper.active:
                raise HostError(words.STANDBY)
            await _command(service, service.owns_guild, json.loads(line))
        except (HostError, ValueError, KeyError, TypeError) as exc:
            reason = error_text(exc) if isinstance(exc, HostError) else str(exc)
            _print({"event": "error", "reason": reason, "t": service.now()})
    stopping.set()


async def _command(service: MatchService, owns: Callable[[int | None], bool], cmd: dict[str, Any]) -> None:
    if "create" in cmd:
        spec = cmd["create"]
        guild = spec.get("guild_id")
        if not owns(guild):
            raise HostError(words.other_shard(guild))
        mid = await service.create_match(
            spec["game"],
            [PlayerRef(str(pid), str(name)) for pid, name in spec["players"]],
            options=spec.get("options"),
            clock=spec.get("clock"),
            guild_id=guild,
            channel_id=spec.get("channel_id"),
        )
        _print({"event": "created", "match": mid, "guild_id": guild, "t": service.now()})
    elif "submit" in cmd:
        spec = cmd["submit"]
        result = await service.submit(int(spec["match"]), str(spec["player"]), str(spec["text"]))
        _print({"event": "submitted", "match": spec["match"], "status": result.status, "reason": reason_text(result)})
    else:
        raise HostError(words.COMMAND_SHAPE)


def main(argv: list[str] | None = None) -> int:
    """Entry point: arguments override DMHOST_DATABASE_URL, DMHOST_SHARD_IDS and DMHOST_SHARD_COUNT."""
    parser = argparse.ArgumentParser(prog="python -m bot.shardhost", description=__doc__.splitlines()[0])
    parser.add_argument("--db", metavar="URL", help="a database URL or a SQLite file (default DMHOST_DATABASE_URL)")
    parser.add_argument("--shard-count", type=int)
    parser.add_argument("--shard-ids", type=int, nargs="+")
    parser.add_argument("--heartbeat", type=float)
    parser.add_argument(
        "--lease", type=float, help="seconds a silent owner keeps its shards (default DMHOST_LEASE_SECONDS)"
    )
    parser.add_argument("--metrics-port", type=int, help="serve /healthz, /readyz, /metrics (DMHOST_METRICS_PORT)")
    args = parser.parse_args(argv)
    from bot.settings import SettingsProblem, export_dotenv, load_settings

    try:
        export_dotenv()
        settings = load_settings()
        from bot.ops.logsetup import sentry, setup_logging

        setup_logging(settings.log_level, settings.log_format)
        sentry(settings)
    except SettingsProblem as exc:
        print(f"shardhost: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    from bot.ops.dburl import db_url

    url = db_url(args.db) if args.db else settings.db_url  # a file path or a URL, as `dmhost --db` takes
    shard_ids = args.shard_ids if args.shard_ids is not None else settings.shard_ids
    shard_count = args.shard_count if args.shard_count is not None else settings.shard_count
    heartbeat = args.heartbeat or settings.heartbeat_seconds
    lease = args.lease or settings.lease_seconds
    port = args.metrics_port if args.metrics_port is not None else settings.metrics_port
    metrics_at = None if port is None else (settings.metrics_host, port)
    import logging

    from bot.opserrors import check_database_url, explain, shown_url

    logging.getLogger("dmhost").info(
        "dmhost shard host starting: shards %s of %s on %s%s",
        shard_ids if shard_ids is not None else "all",
        shard_count or 1,
        shown_url(url),
        words.probes_at(metrics_at),
    )
    try:
        check_database_url(url)
        return asyncio.run(serve(url, shard_ids, shard_count, heartbeat, lease, metrics_at))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # an operator's mistake is one line; anything else is a bug and keeps its traceback
        line = explain(exc, url)
        if line is None:
            raise
        print(f"shardhost: {line}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
