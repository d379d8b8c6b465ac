"""`dmhost puzzles build`, `dmhost puzzle`, `dmhost insights NAME` and `dmhost fairplay` (bot.coaching)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bot.ops.dburl import db_url
from bot.opserrors import check_database_url

T = TypeVar("T")
DB_HELP = "SQLite file or database URL (default: DMHOST_DATABASE_URL when set, else ./dmhost.db)"


def add_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The coaching subcommands."""
    for add in (add_puzzles, add_puzzle, add_insights, add_fairplay):
        add(sub)


def add_puzzles(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`dmhost puzzles build`."""
    pz = sub.add_parser("puzzles", help="certified puzzles from finished, analysed matches")
    pz.add_argument("action", choices=["build"], help="search the analysed matches not searched yet, then list")
    pz.add_argument("--db", metavar="PATH", help=DB_HELP)
    pz.add_argument("--game", metavar="G")
    pz.add_argument("--json", action="store_true", help="one JSON line per puzzle")
    pz.set_defaults(func=cmd_puzzles)


def add_puzzle(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`dmhost puzzle`."""
    one = sub.add_parser("puzzle", help="solve a puzzle in the terminal (type your move)")
    one.add_argument("--db", metavar="PATH", help=DB_HELP)
    one.add_argument("--player", metavar="NAME", default="player")
    one.add_argument("--game", metavar="G")
    one.add_argument("--events-json", action="store_true")
    one.set_defaults(func=cmd_puzzle)


def add_insights(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`dmhost insights NAME`."""
    ins = sub.add_parser("insights", help="a player's verdicts and losses, counted from the stored analyses")
    ins.add_argument("name", metavar="NAME")
    ins.add_argument("--db", metavar="PATH", help=DB_HELP)
    ins.add_argument("--game", metavar="G")
    ins.add_argument("--json", action="store_true")
    ins.set_defaults(func=cmd_insights)


def add_fairplay(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`dmhost fairplay`."""
    fp = sub.add_parser("fairplay", help="for hosts: engine-move rates in rated matches, and flags")
    fp.add_argument("--db", metavar="PATH", help=DB_HELP)
    fp.add_argument("--game", metavar="G")
    fp.add_argument("--json", action="store_true")
    fp.set_defaults(func=cmd_fairplay)


def _usage(message: str) -> int:
    print(f"dmhost: {message}", file=sys.stderr)
    return 2


def _game_problem(game: str | None) -> str | None:
    from bot.records.analysis import ANALYSED_GAMES

    if game is not None and game not in ANALYSED_GAMES:
        from bot.wording.ops import unanalysed_game

        return unanalysed_game(game, ANALYSED_GAMES)
    return None


def _with_coaching(args: argparse.Namespace, work: Callable[[Any], Awaitable[T]]) -> T:
    """Open the database, run `work(coaching)`, close."""
    from bot.compose import build_coaching, build_store

    url = db_url(args.db)
    check_database_url(url, must_exist=True)

    async def main() -> T:
        store = build_store(url)
        try:
            await store.open()
            return await work(build_coaching(store))
        finally:
            await store.close()

    return asyncio.run(main())


def cmd_puzzles(args: argparse.Namespace) -> int:
    """`dmhost puzzles build`: search, then print every puzzle (of `--game`)."""
    from bot.wording.coaching import built_text, puzzles_line

    if (bad := _game_problem(args.game)) is not None:
        return _usage(bad)

    async def work(coaching: Any) -> tuple[int, list[Any], tuple[int, int]]:
        added = await coaching.build(args.game)
        return added, await coaching.puzzles(args.game), await coaching.scanned()

    added, puzzles, (scanned, found) = _with_coaching(args, work)
    if args.json:
        for p in puzzles:
            print(json.dumps(p.as_json()))
    else:
        for p in puzzles:
            print(puzzles_line(p))
        print(built_text(added, scanned, found))
    return 0


def cmd_puzzle(args: argparse.Namespace) -> int:
    """`dmhost puzzle`: serve one puzzle to `--player`, read moves until a legal one, judge and rate it."""
    from bot.coaching import PuzzleMoveError
    from bot.playernames import name_problem
    from bot.wording.coaching import answer_text, move_refused, no_puzzle, puzzle_heading

    if (bad := _game_problem(args.game)) is not None:
        return _usage(bad)
    name = args.player.strip()
    if (bad := name_problem([name], [])) is not None:
        return _usage(bad)
    player = f"local:{name}"

    def say(event: dict[str, Any], text: str) -> None:
        print(json.dumps(event) if args.events_json else text, flush=True)

    async def work(coaching: Any) -> int:
        puzzle = await coaching.next_puzzle(None, player, args.game)
        if puzzle is None:
            say({"event": "none", "player": name}, no_puzzle(name, args.game))
            return 0
        board = puzzle.ruleset().render_text(puzzle.state())
        say(
            {
                "event": "puzzle",
                "puzzle": puzzle.id,
                "game": puzzle.game,
                "match": puzzle.match_id,
                "ply": puzzle.ply,
                "to_move": puzzle.mover_name,
                "seat": puzzle.seat,
                "moves": puzzle.moves,
                "board": board,
            },
            f"{puzzle_heading(puzzle)}\n{board}",
        )
        while True:
            line = await asyncio.to_thread(sys.stdin.readline)
            if not line:
                return 0  # end of input: no answer, nothing rated
            text = line.strip()
            if not text:
                continue
            try:
                result = await coaching.answer(puzzle, None, player, text)
            except PuzzleMoveError as exc:
                say({"event": "refused", "puzzle": puzzle.id, "reason": str(exc)}, move_refused(str(exc)))
                continue
            say(
                {
                    "event": "solved" if result.solved else "failed",
                    "puzzle": puzzle.id,
                    "move": result.move,
                    "answer": puzzle.answer,
                    "line": result.line,
                    "proof": puzzle.proof,
                    "rating": round(result.rating, 1),
                    "change": round(result.change, 1),
                },
                answer_text(result),
            )
            return 0

    return _with_coaching(args, work)


def cmd_insights(args: argparse.Namespace) -> int:
    """`dmhost insights NAME`."""
    from bot.wording.coaching import insights_text

    if (bad := _game_problem(args.game)) is not None:
        return _usage(bad)

    async def work(coaching: Any) -> list[dict[str, Any]] | None:
        ids = await coaching.player_ids(args.name)
        if not ids:
            return None
        rows: list[dict[str, Any]] = await coaching.insights(ids, args.game)
        return rows

    rows = _with_coaching(args, work)
    if rows is None:
        from bot.wording.ops import no_player

        return _usage(no_player(args.name))
    print(json.dumps({"player": args.name, "games": rows}, indent=2) if args.json else insights_text(args.name, rows))
    return 0


def cmd_fairplay(args: argparse.Namespace) -> int:
    """`dmhost fairplay`."""
    from bot.wording.coaching import fairplay_text

    if (bad := _game_problem(args.game)) is not None:
        return _usage(bad)

    async def work(coaching: Any) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = await coaching.fairplay(args.game)
        return rows

    rows = _with_coaching(args, work)
    print(json.dumps(rows, indent=2) if args.json else fairplay_text(rows))
    return 0
