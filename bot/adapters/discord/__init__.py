"""The Discord adapter: slash commands, the game-room listener, announcements and buttons.

Each feature is a package with a private `_cog.py` (and `_views.py` for buttons); `bot.adapters.discord.app` loads them.
Discord objects stop here: the host service only ever sees `(match, player id, text)`.
"""
