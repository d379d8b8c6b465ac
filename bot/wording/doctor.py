"""What `dmhost doctor` says: one line per check (what was checked, what was found, the fix for a failure), in
the operator's words; `bot.adapters.discord.doctor` runs the checks."""

from __future__ import annotations

EVENTS_GIVE = "scheduled DMs (/dm event schedule) also appear in the server's Events tab"
EVENTS_LOST = "scheduled DMs are not listed in the server's Events tab (the DMs, reminders and check-in still work)"
"""What the optional Manage Events permission gives, and what goes without it."""


def line(name: str, ok: bool, detail: str, fix: str | None, note: bool) -> str:
    """A check's line: its mark, what was checked and found, and the fix (a failure) or how to have it (a note)."""
    mark = "FAIL" if not ok else "note" if note else "ok  "
    text = f"{mark}  {name}: {detail}"
    if not fix or (ok and not note):
        return text
    return f"{text} — {'to have it' if ok else 'fix'}: {fix}"


def server(name: str, guild_id: int) -> str:
    """The name of a server's check."""
    return f"server {name} ({guild_id})"


def room_channel(name: str, guild_id: int) -> str:
    """The name of a server's game-room channel check."""
    return f"server {name} ({guild_id}) game-room channel"


NO_SERVER = "the bot is in no server"


def invite(link: str | None) -> str:
    """The fix when the bot is in no server: invite it (with `link` when the bot's id is known)."""
    return f"invite it{' with ' + link if link else ' from the developer portal (OAuth2 → URL Generator)'}"


def invite_again(link: str | None) -> str:
    """The tail of a missing permission's fix: invite the bot again with every permission (when the link is known)."""
    return f", or invite the bot again with {link}" if link else ""


NOT_VISIBLE = "the bot's own membership is not visible"
TRY_AGAIN = "try again in a minute"
ITS_ROLE = "its role"
"""The bot's role when it has none but @everyone."""


def all_granted(count: int) -> str:
    """Every needed permission is granted in a server."""
    return f"all {count} permissions the bot needs are granted"


def missing(labels: list[str]) -> str:
    """The needed permissions a server does not grant."""
    return "missing " + ", ".join(labels)


def grant(role: str, labels: list[str], again: str = "") -> str:
    """The fix: give the bot's role these permissions (`again`: `invite_again`)."""
    return f"give the bot's role `{role}` {', '.join(labels)} in Server Settings → Roles{again}"


def granted(gives: str) -> str:
    """An optional permission granted, and what it gives."""
    return f"granted: {gives}"


def not_granted(lost: str) -> str:
    """An optional permission not granted, and what goes without it."""
    return f"not granted (optional): {lost}"


def room_gone(channel_id: int) -> str:
    """The game-room channel set with /dm config is gone or hidden."""
    return f"the channel set with /dm config (id {channel_id}) is gone or hidden from the bot"


ROOM_GONE_FIX = "set another with `/dm config room_channel:`, or let the bot see that channel"
ROOM_OK = "its overrides take none of the needed permissions away"


def taken_away(labels: list[str]) -> str:
    """The needed permissions the game-room channel's overrides take away."""
    return "the channel's overrides take away " + ", ".join(labels)


def allow_in_channel(labels: list[str], role: str, channel: str) -> str:
    """The fix: allow these permissions in the game-room channel."""
    return f"allow {', '.join(labels)} for the bot or its role `{role}` in #{channel} → Edit Channel → Permissions"


TOKEN_REFUSED = "Discord refused the token (wrong, reset or revoked)"


def new_token(portal: str) -> str:
    """The fix for a refused token."""
    return f"copy the bot token from {portal} (your application → Bot → Reset Token) into DMHOST_TOKEN"


def session_refused(error: object) -> str:
    """Discord's gateway refused the session."""
    return f"Discord's gateway did not accept the session ({error})"


SESSION_REFUSED_FIX = "check https://discordstatus.com and run `dmhost doctor` again in a few minutes"


def unreachable(error: object) -> str:
    """Discord cannot be reached."""
    return f"cannot reach Discord ({error})"


UNREACHABLE_FIX = "check the network connection, DNS and any proxy, then run `dmhost doctor` again"


def intent(label: str) -> str:
    """The name of a privileged intent's check."""
    return f"intent {label}"


ENABLED = "enabled"
NOT_ENABLED = "not enabled for this application"
WITHOUT_MESSAGE_CONTENT = "set DMHOST_MESSAGE_CONTENT=off (players then move by mentioning the bot or with /move), or "
"""The first way out when the Message Content Intent is not enabled (the second is `turn_on`)."""


def turn_on(label: str, portal: str) -> str:
    """The fix for an intent not enabled."""
    return f"turn on {label} in {portal} → your application → Bot → Privileged Gateway Intents"


MOVES_READ = (
    "read from plain messages in the game rooms (DMHOST_MESSAGE_CONTENT=on: the bot needs the "
    "Message Content Intent, which a bot in more than 100 servers gets only after Discord's review)"
)


def moves_by_mention(me: str) -> str:
    """How moves are handed in without the Message Content Intent."""
    return (
        f"by mentioning the bot (`{me} A1-B1`) or with `/move text:` (DMHOST_MESSAGE_CONTENT=off: the Message "
        "Content Intent is not asked for; plain messages in the rooms are not read)"
    )


MOVES_BY_MESSAGE_FIX = (
    "enable Message Content Intent in the developer portal and set DMHOST_MESSAGE_CONTENT=on to read moves "
    "from plain messages"
)
THE_BOT = "the bot"
"""Who logged in, before Discord said the bot's name."""


def logged_in(who: str) -> str:
    """The login check passed."""
    return f"logged in as {who}"


GATEWAY_CLOSED = "the gateway closed before the bot was ready"


def not_ready(timeout: float) -> str:
    """The gateway did not get ready in time."""
    return f"Discord's gateway did not get ready within {timeout:g} s"
