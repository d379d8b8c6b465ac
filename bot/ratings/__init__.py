"""Ratings, profiles and leaderboards per server and game (Glicko-2), beside the host core.

`bot.ratings.glicko` is the arithmetic, `bot.ratings.models` the tables, `bot.ratings.service` the
subscriber that rates finished matches and answers the look-ups (leaderboard, profile, seeding).
"""
