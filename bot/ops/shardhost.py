"""A headless host for a set of shards: `python -m bot.shardhost --db URL --shard-count N --shard-ids 0 1`.

It runs one `MatchService` that owns the clocks of the matches of its shards' guilds
(`(guild_id >> 22) % shard_count in shard_ids`; matches without a guild belong to shard 0), resumes
them at start, and prints every host event as one JSON line with the loop time (`"t"`). It reads
JSON commands from stdin, one per line, and stops at end of input:

    {"create": {"game": "boxes", "players": [["1", "alice"], ["2", "bob"]], "guild_id": 42, "clock": {...}}}
    {"submit": {"match": 7, "player": "1", "text": "A1-B1"}}

Used by the sharding tests and handy for operating a shard set without Discord.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any

from bot.adapters.terminal.room import stdin_lines
from bot.host.service import HostError, HostEvent, MatchService, PlayerRef
from bot.store.matches import MatchStore
from bot.wording import error_text, event_text, reason_text


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


async def serve(url: str, shard_ids: list[int] | None, shard_count: int | None, heartbeat: float) -> int:
    """Run until end of input."""
    owns = owner(shard_ids, shard_count)
    service = MatchService(MatchStore(url), heartbeat_seconds=heartbeat, owns_guild=owns)

    def on_event(ev: HostEvent) -> None:
        _print({"event": ev.kind, "match": ev.match_id, "t": service.now(), **ev.data, "text": event_text(ev)})

    service.subscribe(on_event)
    try:
        resumed = await service.start()
        from bot.ops.runtime import tune_gc

        tune_gc()
        _print({"event": "ready", "instance": service.instance, "resumed": resumed, "t": service.now()})
        lines = await stdin_lines()
        while (line := await lines.get()) is not None:
            if not line.strip():
                continue
            try:
                await _command(service, owns, json.loads(line))
            except (HostError, ValueError, KeyError, TypeError) as exc:
                reason = error_text(exc) if isinstance(exc, HostError) else str(exc)
                _print({"event": "error", "reason": reason, "t": service.now()})
        return 0
    finally:
        await service.close()
        await service.store.close()


async def _command(service: MatchService, owns: Callable[[int | None], bool], cmd: dict[str, Any]) -> None:
    if "create" in cmd:
        spec = cmd["create"]
        guild = spec.get("guild_id")
        if not owns(guild):
            raise HostError(f"guild {guild} belongs to another shard")
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
        raise HostError("a command is {'create': ...} or {'submit': ...}")


def main(argv: list[str] | None = None) -> int:
    """Entry point: arguments override DMHOST_DATABASE_URL, DMHOST_SHARD_IDS and DMHOST_SHARD_COUNT."""
    parser = argparse.ArgumentParser(prog="python -m bot.shardhost", description=__doc__.splitlines()[0])
    parser.add_argument("--db", metavar="URL")
    parser.add_argument("--shard-count", type=int)
    parser.add_argument("--shard-ids", type=int, nargs="+")
    parser.add_argument("--heartbeat", type=float)
    args = parser.parse_args(argv)
    from bot.settings import Settings

    settings = Settings()
    url = args.db or settings.db_url
    shard_ids = args.shard_ids if args.shard_ids is not None else settings.shard_ids
    shard_count = args.shard_count if args.shard_count is not None else settings.shard_count
    heartbeat = args.heartbeat or settings.heartbeat_seconds
    from bot.opserrors import check_database_url, explain

    try:
        check_database_url(url)
        return asyncio.run(serve(url, shard_ids, shard_count, heartbeat))
    except Exception as exc:  # an operator's mistake is one line; anything else is a bug and keeps its traceback
        line = explain(exc, url)
        if line is None:
            raise
        print(f"shardhost: {line}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
