"""`dmhost schedule add|list|cancel|when`: scheduled Death Matches from the terminal (local player names).

The entry point of `bot.schedule` for operators; everything it does goes through the scheduler core."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sys
from typing import Any

from bot.opserrors import id_argument

EXIT_OK = 0
EXIT_USAGE = 2


def _fail(message: str) -> int:
    print(f"dmhost: {message}", file=sys.stderr)
    return EXIT_USAGE


def _kv(pairs: list[str] | None, what: str) -> dict[str, str]:
    """`--opt`/`--clock`/`--rule` values as a dict; exit 2 on a bad one."""
    from games.clitools import UsageError, parse_kv

    try:
        return parse_kv([item for pair in pairs or [] for item in pair.split()], what)
    except UsageError as exc:
        raise SystemExit(_fail(str(exc))) from None


def _now(text: str | None) -> dt.datetime:
    from bot.schedule.when import WhenError

    if text is None:
        return dt.datetime.now(dt.UTC)
    raw = text.strip()
    try:
        value = dt.datetime.fromisoformat(raw[:-1] + "+00:00" if raw[-1:] in "Zz" and raw else raw)
    except ValueError:
        from bot.wording.ops import not_an_iso_time

        raise WhenError(not_an_iso_time(text)) from None
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def cmd_when(args: argparse.Namespace) -> int:
    """How the bot reads a start time."""
    from bot.schedule.when import WhenError, iso, parse_when

    try:
        at = parse_when(args.text, tz=args.tz, now=_now(args.now))
    except WhenError as exc:
        return _fail(str(exc))
    print(json.dumps({"at": iso(at)}))
    return EXIT_OK


def _row(s: Any) -> dict[str, Any]:
    from bot.schedule.when import iso

    return {
        "schedule": s.id,
        "game": s.game,
        "players": [s.players[0].name, s.players[1].name],
        "at": iso(s.at),
        "prize": s.prize,
        "status": s.public_status,
        "match": s.match_id,
    }


async def _with_scheduler(db: str | None, must_exist: bool, action: Any) -> Any:
    from bot.compose import build_scheduler, build_store
    from bot.ops.dburl import db_url
    from bot.opserrors import check_database_url
    from bot.store.db import migrate

    url = db_url(db)
    check_database_url(url, must_exist=must_exist)
    store = build_store(url)
    try:
        await migrate(url)
        return await action(build_scheduler(store))
    finally:
        await store.close()


def cmd_add(args: argparse.Namespace) -> int:
    """Store a scheduled DM between two local players."""
    from bot.compose import build_scheduler  # noqa: F401  (imported before `--at` is read: `in 2s` stays ahead)
    from bot.host.match import HostError, PlayerRef
    from bot.playernames import name_problem
    from bot.schedule.core import ScheduleError
    from bot.schedule.when import WhenError, iso, parse_when, zone
    from bot.wording.ops import SCHEDULE_ADD_NEEDS, minutes_not_whole, minutes_out_of_range
    from bot.wording.schedule import refusal

    names = [n.strip() for n in args.player or []]
    if len(names) != 2:
        return _fail(SCHEDULE_ADD_NEEDS)
    if (bad := name_problem(args.player)) is not None:
        return _fail(bad)
    minutes: dict[str, int | None] = {}
    for flag, value in (("checkin", args.checkin), ("no_show", args.no_show)):
        try:
            minutes[flag] = None if value is None else int(value)
        except ValueError:
            return _fail(minutes_not_whole(flag.replace("_", "-"), value))
        if minutes[flag] is not None and not 1 <= int(value) <= 7 * 24 * 60:
            return _fail(minutes_out_of_range(flag.replace("_", "-"), value))
    options, clock, rules = _kv(args.opt, "--opt"), _kv(args.clock, "--clock"), _kv(args.rule, "--rule")
    try:
        zone(args.tz)
        at = parse_when(args.at, tz=args.tz, now=dt.datetime.now(dt.UTC))
    except WhenError as exc:
        return _fail(str(exc))

    async def add(scheduler: Any) -> Any:
        return await scheduler.add(
            args.game,
            [PlayerRef(f"local:{n}", n) for n in names],
            at,
            options=options,
            clock=clock,
            rules=rules,
            prize=args.prize,
            checkin_s=None if minutes["checkin"] is None else minutes["checkin"] * 60,
            no_show_s=None if minutes["no_show"] is None else minutes["no_show"] * 60,
        )

    try:
        sched = asyncio.run(_with_scheduler(args.db, False, add))
    except HostError as exc:
        from bot.wording import error_text

        return _fail(error_text(exc))
    except ScheduleError as exc:
        return _fail(refusal(exc.code, exc.data))
    print(json.dumps({"schedule": sched.id, "at": iso(sched.at), "prize": sched.prize}))
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    """Every schedule, soonest first."""

    async def listing(scheduler: Any) -> Any:
        return await scheduler.listing()

    rows = asyncio.run(_with_scheduler(args.db, True, listing))
    if not (args.table or (not args.json and sys.stdout.isatty())):  # scripts keep the contract's JSON
        print(json.dumps([_row(s) for s in rows], indent=2 if not args.json else None))
    else:
        from bot.ops.schedule_table import schedule_table

        print(schedule_table([_row(s) for s in rows]))
    return EXIT_OK


def cmd_cancel(args: argparse.Namespace) -> int:
    """Call a scheduled DM off."""
    from bot.schedule.core import ScheduleError
    from bot.wording.schedule import refusal

    async def cancel(scheduler: Any) -> Any:
        return await scheduler.cancel(args.schedule_id, "local:terminal")

    try:
        sched = asyncio.run(_with_scheduler(args.db, True, cancel))
    except ScheduleError as exc:
        return _fail(refusal(exc.code, exc.data))
    print(json.dumps({"schedule": sched.id, "status": sched.public_status}))
    return EXIT_OK


def add_parser(sub: Any) -> None:
    """`dmhost schedule …` on the `dmhost` parser."""
    from games.cli import games_help

    schedule = sub.add_parser("schedule", help="scheduled Death Matches: add, list, cancel, read a time")
    actions = schedule.add_subparsers(dest="action", required=True)
    add = actions.add_parser(
        "add",
        help="store a scheduled DM between two local players",
        epilog=games_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add.add_argument("game")
    add.add_argument("--player", action="append", metavar="NAME")
    add.add_argument("--at", required=True, metavar="WHEN")
    add.add_argument("--opt", action="extend", nargs="+", metavar="K=V")
    add.add_argument("--clock", action="extend", nargs="+", metavar="K=V")
    add.add_argument("--rule", action="extend", nargs="+", metavar="K=V")
    add.add_argument("--prize", metavar="TEXT")
    add.add_argument("--tz", metavar="ZONE", help="zone of a time written without one (default UTC)")
    add.add_argument("--checkin", metavar="MIN", help="the check-in opens MIN minutes before the start (default 15)")
    add.add_argument("--no-show", metavar="MIN", help="a player absent MIN minutes after the start loses (default 10)")
    add.add_argument("--db", metavar="PATH")
    add.add_argument("--json", action="store_true", help="(the output is JSON in any case)")
    add.set_defaults(func=cmd_add)

    ls = actions.add_parser("list", help="the schedules, soonest first (a table on a terminal, else JSON)")
    ls.add_argument("--db", metavar="PATH")
    ls.add_argument("--json", action="store_true", help="the contract's JSON on one line")
    ls.add_argument("--table", action="store_true", help="a table for people (the default on a terminal)")
    ls.set_defaults(func=cmd_list)

    cancel = actions.add_parser("cancel", help="call a scheduled DM off")
    cancel.add_argument("schedule_id", type=id_argument("ID"), metavar="ID")
    cancel.add_argument("--db", metavar="PATH")
    cancel.set_defaults(func=cmd_cancel)

    when = actions.add_parser("when", help='how a start time is read: {"at": ISO UTC}')
    when.add_argument("text", metavar="TEXT")
    when.add_argument("--tz", metavar="ZONE", help="zone of a time written without one (default UTC)")
    when.add_argument("--now", metavar="ISO", help="read relative times from this instant (default: now)")
    when.set_defaults(func=cmd_when)
