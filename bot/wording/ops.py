"""What the operator reads from the command line and at start: the lines for Discord's refusals at start (a
wrong token, privileged intents not enabled, Discord unreachable), and the command lines' own sentences."""

from __future__ import annotations

from collections.abc import Iterable

TOKEN_REFUSED = (
    "Discord refused the token (wrong, reset or revoked): copy the bot token from the developer portal "
    "(your application → Bot → Reset Token) into DMHOST_TOKEN."
)
INTENTS_REFUSED = (
    "Discord refused the privileged intents: enable Message Content Intent and Server Members Intent "
    "in the developer portal (your application → Bot → Privileged Gateway Intents), or set "
    "DMHOST_MESSAGE_CONTENT=off to do without Message Content (moves by mention or /move); "
    "`dmhost doctor` tells which one is missing."
)
DISCORD_UNWELL = "Discord is not answering properly right now (gateway or server error): try again in a few minutes."
NOTHING_SCHEDULED = "No scheduled DMs (add one with `dmhost schedule add`)."
"""`dmhost schedule list` with nothing scheduled."""


def discord_unreachable(error: str) -> str:
    """Discord's API cannot be reached from here (`error`: what the connection said)."""
    return f"cannot reach Discord ({error}): check the network connection, DNS and any proxy, then try again."


# The command line's own lines (one-line usage errors, what a command wrote, a host's health). The command line
# imports this module only when it says one (the words package is heavier than `dmhost --help`).

NO_TOKEN = (
    "dmhost: no Discord token configured.\n"
    "  Set DMHOST_TOKEN (environment or a .env file) to the bot token from the Discord developer\n"
    "  portal, then run `dmhost run` again. See docs/discord.md, 'Running on Discord'.\n"
    "  To play without Discord: dmhost room boxes --player alice --player bob"
)
"""`dmhost run` without a token."""
NO_DISCORD = "the Discord adapter is not part of this build"
NO_TOKEN_CHECK = "no Discord token is configured"
NO_TOKEN_FIX = (
    "set DMHOST_TOKEN (environment or a .env file) to the bot token from the Discord developer portal, "
    "then run `dmhost doctor` again"
)
"""`dmhost doctor`'s first check when there is no token: what failed, and its fix."""
SGF_DOTS_ONLY = "SGF export is for dots matches"


def no_migration(target: str, known: list[str], action: str, example: str) -> str:
    """`dmhost db` to a revision that does not exist."""
    return (
        f"there is no migration {target!r}: give one of {', '.join(known)}, head or base "
        f"(e.g. `dmhost db {action} {example}`)"
    )


def downgrade_to_base(db: str) -> str:
    """`dmhost db downgrade` to base without `--yes`."""
    return (
        f"downgrading {db} to base drops every table and every match in it: "
        "add --yes to do it, or give the revision to go back to (e.g. `dmhost db downgrade 0001`)"
    )


def migration_failed(action: str, db: str, target: str, error: str, now: str) -> str:
    """A migration step beyond the first or last one."""
    return f"cannot {action} {db} to {target}: {error} (it is at {now})"


def answered(url: str, code: int, body: str) -> str:
    """`dmhost health`: the instance answered with an error."""
    return f"unhealthy: {url} answered {code}: {body}"


def no_answer(url: str, reason: object) -> str:
    """`dmhost health`: the instance does not answer."""
    return f"unhealthy: {url} does not answer ({reason})"


def unhealthy(line: str) -> str:
    """`dmhost health`: the database's problem."""
    return f"unhealthy: {line}"


def no_heartbeat(db: str) -> str:
    """`dmhost health`: no host ever wrote a heartbeat."""
    return f"unhealthy: no host has written a heartbeat to {db} yet"


def stale_heartbeat(age: float, limit: float) -> str:
    """`dmhost health`: the newest heartbeat is too old."""
    return f"unhealthy: the newest heartbeat is {age:.0f} s old (limit {limit:g} s)"


def healthy(age: float) -> str:
    """`dmhost health`: a fresh heartbeat."""
    return f"healthy: heartbeat {age:.1f} s ago"


def no_match(match_id: int, db: str) -> str:
    """A match the database does not have."""
    return f"there is no match {match_id} in the database {db}"


def log_disagrees(match_id: int, problem: str) -> str:
    """`dmhost log`: the stored log does not replay to the snapshot."""
    return f"dmhost log: match {match_id}'s log and snapshot disagree: {problem}"


def wrote_replay(match_id: int, frames: int, path: str) -> str:
    """`dmhost log --gif`."""
    return f"Wrote the replay of match {match_id} ({frames} frames) to {path}"


def wrote_sgf(match_id: int, path: str) -> str:
    """`dmhost log --sgf`."""
    return f"Wrote the SGF record of match {match_id} to {path}"


def wrote_page(match_id: int, path: str) -> str:
    """`dmhost log --html`."""
    return f"Wrote the review page of match {match_id} to {path}"


def cannot_serve(host: str, port: int, error: object) -> str:
    """`dmhost web` cannot listen there."""
    return f"dmhost: cannot serve on {host}:{port}: {error}"


def not_a_port(port: int) -> str:
    """`dmhost web --port` out of range."""
    return f"dmhost: --port {port} is not a TCP port (1–65535)"


def usage_error(prog: str, message: str) -> str:
    """A usage error argparse found: one line, and where to read the usage."""
    return f"{prog}: {message} (see {prog} --help)"


NO_COMMAND = "give a command (see dmhost --help)"
"""`dmhost` with no command."""


def serving(ids: object, count: object, db: str, metrics: tuple[str, int] | None) -> str:
    """`dmhost run`'s start line: what the process serves (its shards, its database, its probes if any)."""
    return f"the Discord bot, shard(s) {ids} of {count}, database {db}" + probes_at(metrics)


def probes_at(metrics: tuple[str, int] | None) -> str:
    """The tail of a start line: where health and metrics are served (nothing when they are not)."""
    return "" if metrics is None else f"; health and metrics on http://{metrics[0]}:{metrics[1]}"


NO_SENTRY_SDK = (
    "DMHOST_SENTRY_DSN is set but the sentry-sdk package is not installed: `pip install sentry-sdk` "
    "beside dmhost, or unset DMHOST_SENTRY_DSN"
)
"""A start with `DMHOST_SENTRY_DSN` set and no `sentry-sdk`."""

# `dmhost room`, `schedule`, `tournament`, `ratings`, the coaching commands: their one-line usage errors.

ROOM_NEEDS = "room needs GAME and two --player NAME, one --player with --bot, or --resume ID"
ROOM_SCHEDULED_NEEDS = "room --scheduled ID takes the game, players and rules from the schedule: give only --db"
SCHEDULE_ADD_NEEDS = "schedule add needs GAME and two --player NAME"


def png_is_a_file(png: str) -> str:
    """`dmhost room --png` naming a file."""
    return f"--png names a folder for the pictures, and {png} is a file: give a folder (it is made if missing)"


def png_under_a_file(png: str, parent: object) -> str:
    """`dmhost room --png` below a file: the folder cannot be made."""
    return f"--png {png}: {parent} is a file, so the folder cannot be made there"


def not_an_iso_time(text: str) -> str:
    """`dmhost schedule when --now` that is not an ISO-8601 time."""
    return f"--now takes an ISO-8601 time such as 2026-12-05T18:00:00Z, not {text!r}"


def minutes_not_whole(flag: str, value: str) -> str:
    """`dmhost schedule add --checkin/--no-show` that is not a number."""
    return f"--{flag} takes a whole number of minutes, not {value!r}"


def minutes_out_of_range(flag: str, value: str) -> str:
    """`dmhost schedule add --checkin/--no-show` out of its range."""
    return f"--{flag} is 1 minute to 7 days (10080), not {value}"


def unrecognized_arguments(extras: list[str]) -> str:
    """Arguments a `dmhost tournament` command does not take (argparse's words)."""
    return f"unrecognized arguments: {' '.join(extras)}"


def not_a_whole_number(flag: str, text: str) -> str:
    """A `dmhost tournament` number that is not one."""
    return f"{flag} takes a whole number, not {text!r}"


def too_large(flag: str, text: str) -> str:
    """A `dmhost tournament` number beyond any field."""
    return f"{flag} is too large: {text.strip()}"


SIMULATE_NEEDS = "--format and --players are required"


def not_a_format(formats: list[str], given: str) -> str:
    """`dmhost tournament simulate --format` of no known format."""
    return f"--format must be one of {', '.join(formats)}, not {given!r}"


def not_a_probability(shown: str) -> str:
    """`dmhost tournament simulate --draws` (`shown`: the value as said, quoted or `nan`)."""
    return f"--draws takes a probability from 0 to 1, not {shown}"


def not_bye_points(given: str) -> str:
    """`dmhost tournament create --bye-points`."""
    return f"--bye-points is 1 or 0.5, not {given!r}"


def unknown_game(game: str, known: Iterable[str]) -> str:
    """`dmhost ratings --game` of no game."""
    return f"dmhost: unknown game {game!r}; known: {', '.join(known)}"


REBUILD_NO_URL = "dmhost: ratings rebuild takes no --url"
REBUILD_NO_FILTER = "dmhost: ratings rebuild takes no --game or --guild: it recomputes every table"


def unanalysed_game(game: str, known: Iterable[str]) -> str:
    """`dmhost puzzles/insights/fairplay --game` of a game never analysed."""
    return f"unknown or unanalysed game {game!r}; known: {', '.join(known)}"


def no_player(name: str) -> str:
    """`dmhost insights NAME` of no player in the database."""
    return f"no player named {name!r} in this database"


# `python -m bot.shardhost`: the reasons of its refused commands (JSON `error` events).

STANDBY = "standby: another process hosts these shards"
COMMAND_SHAPE = "a command is {'create': ...} or {'submit': ...}"


def other_shard(guild: object) -> str:
    """A match created for a guild of another shard."""
    return f"guild {guild} belongs to another shard"
