"""`dmhost ratings [--game G] [--guild ID] [--db PATH] [--json]` and `dmhost ratings rebuild`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from bot.compose import build_ratings, build_store
from bot.opserrors import id_argument
from bot.wording.ratings import table_text


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """The `ratings` subcommand."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "ratings",
        help="the rating table (terminal-room matches count under no guild); `rebuild` recomputes it from the logs",
    )
    parser.add_argument("action", nargs="?", choices=["rebuild"], help="recompute every table from the match logs")
    parser.add_argument("--game", metavar="G", help="one game (default: every game)")
    parser.add_argument(
        "--guild", type=id_argument("--guild"), metavar="ID", help="a Discord server's table (default: no guild)"
    )
    parser.add_argument("--db", metavar="PATH")
    parser.add_argument("--json", action="store_true")
    from bot.ops.web_cli import add_url_options

    add_url_options(parser, "server's (its leaderboards; --guild: that server's, else the terminal rooms')")
    return parser


def run(args: argparse.Namespace, url: str) -> int:
    """Print the table, or rebuild; returns the exit code (2 on a usage error)."""
    from bot.wording import ops as words
    from games import registry

    if args.game is not None and args.game not in registry.GAME_MODULES:
        print(words.unknown_game(args.game, registry.GAME_MODULES), file=sys.stderr)
        return 2
    if getattr(args, "url", False):
        if args.action == "rebuild":
            print(words.REBUILD_NO_URL, file=sys.stderr)
            return 2
        from bot.ops.web_cli import page_address

        print(page_address("server", args.guild or 0, args.base))
        return 0
    if args.action == "rebuild" and (args.game is not None or args.guild is not None):
        print(words.REBUILD_NO_FILTER, file=sys.stderr)
        return 2

    async def main() -> int:
        store = build_store(url)
        try:
            await store.open()
            ratings = build_ratings(store)
            await ratings.catch_up()  # as every face does at its start: what finished matches owe is rated
            if args.action == "rebuild":
                print(json.dumps((await ratings.rebuild()).as_json()))
                return 0
            rows = await ratings.table(args.guild, args.game)
        finally:
            await store.close()
        print(json.dumps([s.as_json() for s in rows], indent=2) if args.json else table_text(rows))
        return 0

    return asyncio.run(main())
