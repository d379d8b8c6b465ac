"""`dmhost log`: a match's log as text or JSON, its analysis, and the files made from it (a GIF replay, an
SGF record, the review page)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from bot.ops.common import EXIT_FAIL, EXIT_OK, check_database_url, db_url, shown_url, usage


def cmd_log(args: argparse.Namespace) -> int:
    """Print a match's log."""
    from bot.compose import build_store
    from bot.records.matchlog import build_log, format_log
    from bot.wording import ops as words

    url = db_url(args.db)
    check_database_url(url, must_exist=True)

    async def main() -> int:
        store = build_store(url)
        try:
            await store.open()
            stored = await store.load(args.match_id, with_events=True)
            context = []
            if stored is not None and args.html:
                from bot.compose import build_readers
                from bot.records.pagecontext import match_context

                readers = build_readers(store)
                context = await match_context(readers.tournaments, readers.series, stored)
            entries = None
            if stored is not None and args.analyse and not (args.sgf and stored.game != "dots"):
                from bot.records.analysis_store import analysed

                entries = await analysed(store, args.match_id)  # stored, or computed now and stored
            elif stored is not None and args.html:
                from bot.records.analysis_store import load_analysis

                entries = await load_analysis(store, args.match_id)  # the page says pending without one
        finally:
            await store.close()
        if stored is None:
            return usage(words.no_match(args.match_id, shown_url(url)))
        from bot.records.agreement import disagreement

        problem = disagreement(stored)
        done = EXIT_OK
        if problem is not None:  # said first, on stderr, the log printed all the same, and exit 1 (a failed check)
            print(words.log_disagrees(args.match_id, problem), file=sys.stderr)
            done = EXIT_FAIL
        if args.sgf and stored.game != "dots":
            return usage(words.SGF_DOTS_ONLY)
        written = []
        if args.html or args.url:
            from bot.ops.web_cli import page_outputs

            written += page_outputs(args, stored, context, entries)
        if args.gif:
            frames = write_gif(stored, Path(args.gif))
            written.append(words.wrote_replay(args.match_id, frames, str(Path(args.gif).resolve())))
        if args.sgf:
            write_sgf(stored, Path(args.sgf))
            written.append(words.wrote_sgf(args.match_id, str(Path(args.sgf).resolve())))
        if written and not args.json and not args.analyse:
            print("\n".join(written))  # the files were asked for, not the log
            return done
        for line in written:
            print(line, file=sys.stderr)
        data = build_log(stored)
        if args.analyse:
            data["analysis"] = entries or []
        text = format_log(data)
        if args.analyse and not args.json:
            from bot.records.analysis import format_analysis

            names = {seat: name for seat, (_pid, name) in stored.players.items()}
            text += "\n" + format_analysis(data["analysis"], names)
        print(json.dumps(data, indent=2) if args.json else text)
        return done

    return asyncio.run(main())


def write_gif(stored: Any, path: Path) -> int:
    """An animated replay: a frame per turn with names, the move highlighted and both clocks; it ends on the
    final position with the result (the same picture `/dm log` attaches). Returns the number of frames."""
    from bot.records.review import replay_gif

    data, frames = replay_gif(stored)
    path.write_bytes(data)
    return frames


def write_sgf(stored: Any, path: Path) -> None:
    """A Dots match as an SGF record."""
    from bot.records.replay import replay_match

    ruleset, frames = replay_match(stored)
    path.write_text(ruleset.export_sgf(stored.options, [f.engine_move for f in frames[1:]]), encoding="utf-8")


def add_parser(sub: Any) -> None:
    """`dmhost log` on the `dmhost` parser."""
    from bot.ops.web_cli import add_log_options
    from bot.opserrors import id_argument

    lg = sub.add_parser("log", help="print a match's log")
    lg.add_argument("match_id", type=id_argument("MATCH_ID"))
    lg.add_argument("--db", metavar="PATH")
    lg.add_argument("--json", action="store_true")
    lg.add_argument("--gif", metavar="FILE", help="write an animated replay")
    lg.add_argument("--sgf", metavar="FILE", help="export a dots match as SGF")
    lg.add_argument(
        "--analyse",
        "--analyze",
        action="store_true",
        help="judge every move with the game's engine (stored, else computed now and stored)",
    )
    add_log_options(lg)
    lg.set_defaults(func=cmd_log)
